package finder

import (
	"fmt"
	"slices"
	"testing"

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
}
