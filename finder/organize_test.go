package finder

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

func doc(server, ref, modified string) protocol.DPEDocumentSummary {
	return protocol.DPEDocumentSummary{
		DocRef: ref, URI: "dpe://" + server + ".host/" + ref, FileURI: "file:///x/" + ref,
		FileType: "md", Title: ref, PageCount: 1, Server: server, LastModified: modified,
	}
}

func refs(docs []protocol.DPEDocumentSummary) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.DocRef
	}
	return out
}

func TestOrganize(t *testing.T) {
	withFields := func(ref, title, summary string, kws ...string) protocol.DPEDocumentSummary {
		d := doc("s", ref, "")
		d.Title, d.Summary, d.Keywords = title, summary, kws
		return d
	}
	typed := func(ref, ft string) protocol.DPEDocumentSummary {
		d := doc("s", ref, "")
		d.FileType = ft
		return d
	}
	bad := doc("s", "bad", "")
	bad.URI = "http://s.host/bad"
	broken := doc("s", "broken", "")
	broken.URI = "dpe://s.host/broken?limit=0"

	tests := []struct {
		name      string
		docs      []protocol.DPEDocumentSummary
		keywords  []string
		fileType  string
		history   []string
		offset    int
		limit     int
		want      []string
		wantTotal int
	}{
		{name: "empty input", limit: 20, want: []string{}, wantTotal: 0},
		{
			name:     "keyword in title, case-insensitive",
			docs:     []protocol.DPEDocumentSummary{withFields("a", "Annual REPORT", ""), withFields("b", "other", "")},
			keywords: []string{"report"}, limit: 20, want: []string{"a"}, wantTotal: 1,
		},
		{
			name:     "keyword in keywords",
			docs:     []protocol.DPEDocumentSummary{withFields("a", "x", "", "财务", "年报"), withFields("b", "y", "")},
			keywords: []string{"年报"}, limit: 20, want: []string{"a"}, wantTotal: 1,
		},
		{
			name:     "keyword in summary",
			docs:     []protocol.DPEDocumentSummary{withFields("a", "x", "Quarterly Revenue"), withFields("b", "y", "costs")},
			keywords: []string{"revenue"}, limit: 20, want: []string{"a"}, wantTotal: 1,
		},
		{
			name:     "keywords are OR-matched, blanks ignored",
			docs:     []protocol.DPEDocumentSummary{withFields("a", "alpha", ""), withFields("b", "beta", ""), withFields("c", "gamma", "")},
			keywords: []string{"ALPHA", " ", "gamma"}, limit: 20, want: []string{"a", "c"}, wantTotal: 2,
		},
		{
			name:     "file type exact match",
			docs:     []protocol.DPEDocumentSummary{typed("a", "pdf"), typed("b", "xlsx"), typed("c", "PDF")},
			fileType: "pdf", limit: 20, want: []string{"a"}, wantTotal: 1,
		},
		{
			name:     "file type mismatch gives empty",
			docs:     []protocol.DPEDocumentSummary{typed("a", "pdf")},
			fileType: "docx", limit: 20, want: []string{}, wantTotal: 0,
		},
		{
			name:  "invalid URIs dropped",
			docs:  []protocol.DPEDocumentSummary{bad, doc("s", "ok", ""), broken},
			limit: 20, want: []string{"ok"}, wantTotal: 1,
		},
		{
			name:  "servers alphabetical without history",
			docs:  []protocol.DPEDocumentSummary{doc("zeta", "z1", ""), doc("alpha", "a1", ""), doc("mid", "m1", "")},
			limit: 20, want: []string{"a1", "m1", "z1"}, wantTotal: 3,
		},
		{
			name:    "history: most recent first, de-duplicated, rest alphabetical",
			docs:    []protocol.DPEDocumentSummary{doc("a", "a1", ""), doc("b", "b1", ""), doc("c", "c1", ""), doc("d", "d1", "")},
			history: []string{"c", "b", "c", "gone"}, limit: 20,
			want: []string{"c1", "b1", "a1", "d1"}, wantTotal: 4,
		},
		{
			name: "last_modified descending as instants (not strings), missing last, ties stable",
			docs: []protocol.DPEDocumentSummary{
				doc("s", "none1", ""), doc("s", "old", "2025-01-01T00:00:00Z"),
				doc("s", "tz", "2026-03-01T01:00:00+08:00"), doc("s", "none2", ""),
				doc("s", "mid", "2026-02-28T23:00:00Z"), doc("s", "mid-twin", "2026-02-28T23:00:00Z"),
			},
			limit: 20, want: []string{"mid", "mid-twin", "tz", "old", "none1", "none2"}, wantTotal: 6,
		},
		{
			name: "ISO 8601 forms without zone or time are instants (UTC); unparsable after them, as strings, before missing",
			docs: []protocol.DPEDocumentSummary{
				doc("s", "garbage-a", "around easter"), doc("s", "missing", ""), doc("s", "date", "2026-03-02"),
				doc("s", "nozone", "2026-03-01T12:00:00"), doc("s", "spaced", " 2026-03-01T13:00:00Z "),
				doc("s", "garbage-z", "yesterday"), doc("s", "space-sep", "2026-03-01 14:00:00+00:00"),
			},
			limit: 20, want: []string{"date", "space-sep", "spaced", "nozone", "garbage-z", "garbage-a", "missing"}, wantTotal: 7,
		},
		{
			name: "server rank before last_modified",
			docs: []protocol.DPEDocumentSummary{
				doc("b", "b-new", "2026-12-01T00:00:00Z"), doc("a", "a-old", "2020-01-01T00:00:00Z"), doc("a", "a-none", ""),
			},
			limit: 20, want: []string{"a-old", "a-none", "b-new"}, wantTotal: 3,
		},
		{
			name:   "offset past the end",
			docs:   []protocol.DPEDocumentSummary{doc("s", "a", ""), doc("s", "b", "")},
			offset: 5, limit: 20, want: []string{}, wantTotal: 2,
		},
		{
			name:  "limit 0 gives empty page but counts",
			docs:  []protocol.DPEDocumentSummary{doc("s", "a", ""), doc("s", "b", "")},
			limit: 0, want: []string{}, wantTotal: 2,
		},
		{
			name:  "limit greater than total",
			docs:  []protocol.DPEDocumentSummary{doc("s", "a", ""), doc("s", "b", "")},
			limit: 50, want: []string{"a", "b"}, wantTotal: 2,
		},
		{
			name:     "total counts the filtered set, not the page",
			docs:     []protocol.DPEDocumentSummary{withFields("a", "hit", ""), withFields("b", "hit", ""), withFields("c", "hit", ""), withFields("d", "miss", "")},
			keywords: []string{"hit"}, offset: 1, limit: 1, want: []string{"b"}, wantTotal: 3,
		},
		{
			name:   "negative offset treated as 0",
			docs:   []protocol.DPEDocumentSummary{doc("s", "a", "")},
			offset: -3, limit: 5, want: []string{"a"}, wantTotal: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.docs)
			got, total := Organize(in, tt.keywords, tt.fileType, tt.history, tt.offset, tt.limit)
			if total != tt.wantTotal {
				t.Errorf("total = %d, want %d", total, tt.wantTotal)
			}
			if g := refs(got); !slices.Equal(g, tt.want) {
				t.Errorf("page = %v, want %v", g, tt.want)
			}
			if got == nil {
				t.Error("page is nil; want an empty slice so it encodes as []")
			}
			if !slices.EqualFunc(in, tt.docs, func(a, b protocol.DPEDocumentSummary) bool { return a.DocRef == b.DocRef }) {
				t.Error("Organize reordered its input")
			}
		})
	}
}

// TestOrganizeOrderIndependent: the pages must not depend on the order the
// aggregator happened to list documents in, or paging would repeat or skip
// documents. Mixed timestamp forms once made the comparison cyclic.
func TestOrganizeOrderIndependent(t *testing.T) {
	base := []protocol.DPEDocumentSummary{
		doc("s", "a", "2026-03-01T01:00:00+08:00"), doc("s", "b", "2026-02-28T23:00:00Z"),
		doc("s", "c", "2026-03-01"), doc("s", "d", "not a date"), doc("s", "e", ""),
		doc("t", "f", "2026-01-01T00:00:00Z"),
	}
	want := []string{"c", "b", "a", "d", "e", "f"}
	perm := slices.Clone(base)
	var permute func(k int)
	permute = func(k int) {
		if k == len(perm) {
			got, _ := Organize(perm, nil, "", nil, 0, 20)
			if g := refs(got); !slices.Equal(g, want) {
				t.Fatalf("input %v gave %v, want %v", refs(perm), g, want)
			}
			return
		}
		for i := k; i < len(perm); i++ {
			perm[k], perm[i] = perm[i], perm[k]
			permute(k + 1)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	permute(0)
}

// TestOrganizeMatchesReference checks the bounded-heap path and the full
// sort against a plain stable sort over random catalogs and pages.
func TestOrganizeMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	stamps := []string{"", "", "2026-01-01T00:00:00Z", "2026-01-01T08:00:00+08:00", "2026-01-02", "junk", "2025-12-31T23:59:59.5Z"}
	for round := range 200 {
		n := rng.IntN(400)
		docs := make([]protocol.DPEDocumentSummary, n)
		for i := range docs {
			docs[i] = doc(fmt.Sprintf("s%d", rng.IntN(5)), fmt.Sprintf("d%d", i), stamps[rng.IntN(len(stamps))])
			if rng.IntN(20) == 0 {
				docs[i].URI = "dpe://"
			}
		}
		history := []string{"s3", "s1", "s3"}
		offset, limit := rng.IntN(n+5)-2, rng.IntN(120)-5
		got, total := Organize(docs, nil, "", history, offset, limit)
		want, wantTotal := referenceOrganize(docs, history, offset, limit)
		if total != wantTotal || !slices.Equal(refs(got), refs(want)) {
			t.Fatalf("round %d (n=%d offset=%d limit=%d):\n got %v (%d)\nwant %v (%d)", round, n, offset, limit, refs(got), total, refs(want), wantTotal)
		}
	}
}

// referenceOrganize is the obvious implementation: filter, stable sort by
// (server rank, time class, instant desc, raw desc), slice.
func referenceOrganize(docs []protocol.DPEDocumentSummary, history []string, offset, limit int) ([]protocol.DPEDocumentSummary, int) {
	var kept []protocol.DPEDocumentSummary
	for _, d := range docs {
		if _, err := dpe.Parse(d.URI); err == nil {
			kept = append(kept, d)
		}
	}
	var order []string
	for i := len(history) - 1; i >= 0; i-- {
		if !slices.Contains(order, history[i]) {
			order = append(order, history[i])
		}
	}
	var rest []string
	for _, d := range kept {
		if !slices.Contains(order, d.Server) && !slices.Contains(rest, d.Server) {
			rest = append(rest, d.Server)
		}
	}
	slices.Sort(rest)
	order = append(order, rest...)
	when := func(s string) (int, time.Time) {
		if s == "" {
			return 2, time.Time{}
		}
		for _, l := range []string{time.RFC3339Nano, "2006-01-02"} {
			if t, err := time.Parse(l, s); err == nil {
				return 0, t
			}
		}
		return 1, time.Time{}
	}
	sort.SliceStable(kept, func(i, j int) bool {
		a, b := kept[i], kept[j]
		if ra, rb := slices.Index(order, a.Server), slices.Index(order, b.Server); ra != rb {
			return ra < rb
		}
		ca, ta := when(a.LastModified)
		cb, tb := when(b.LastModified)
		if ca != cb {
			return ca < cb
		}
		if ca == 0 {
			return ta.After(tb)
		}
		return a.LastModified > b.LastModified
	})
	total := len(kept)
	offset = max(offset, 0)
	if limit <= 0 || offset >= total {
		return nil, total
	}
	return kept[offset:min(offset+min(limit, MaxLimit), total)], total
}

func TestOrganizeLimitCapped(t *testing.T) {
	var docs []protocol.DPEDocumentSummary
	for i := range 250 {
		docs = append(docs, doc("s", fmt.Sprintf("d%03d", i), ""))
	}
	got, total := Organize(docs, nil, "", nil, 0, 1000)
	if len(got) != MaxLimit || total != 250 {
		t.Fatalf("len = %d total = %d, want %d and 250", len(got), total, MaxLimit)
	}
}

func benchDocs(n, servers int) []protocol.DPEDocumentSummary {
	docs := make([]protocol.DPEDocumentSummary, n)
	for i := range docs {
		s := fmt.Sprintf("server-%02d", i%servers)
		docs[i] = protocol.DPEDocumentSummary{
			DocRef: fmt.Sprintf("doc-%06d", i), URI: fmt.Sprintf("dpe://%s.example/doc-%06d", s, i),
			FileURI: fmt.Sprintf("file:///data/doc-%06d.pdf", i), FileType: []string{"pdf", "xlsx", "md", "docx"}[i%4],
			Title: fmt.Sprintf("Quarterly report %d", i), PageCount: i%40 + 1,
			Keywords: []string{"finance", fmt.Sprintf("tag%d", i%97)}, Summary: "Revenue and operations summary for the period",
			Server: s, LastModified: fmt.Sprintf("2026-%02d-%02dT%02d:00:00Z", i%12+1, i%28+1, i%24),
		}
	}
	return docs
}

func BenchmarkOrganize100k(b *testing.B) {
	docs := benchDocs(100_000, 20)
	history := []string{"server-03", "server-07", "server-03"}
	b.Run("keyword", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Organize(docs, []string{"TAG42"}, "", history, 0, 20)
		}
	})
	b.Run("no-filter", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Organize(docs, nil, "", history, 40, 20)
		}
	})
	b.Run("no-filter-last-page", func(b *testing.B) { // offset near the end: full sort
		b.ReportAllocs()
		for b.Loop() {
			Organize(docs, nil, "", history, 99_980, 20)
		}
	})
}
