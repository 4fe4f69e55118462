package computer_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/computer"
	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// TestSearchFinderAcrossDocumentServers drives a literal
// client:search_finder from an agent through a real Server to a Computer
// with two real document servers (serve-docs over stdio): small steps
// follow the cursor across both servers with growing progress, every
// match points at a page that holds its line, and a search of only PDFs
// finds only the PDF.
func TestSearchFinderAcrossDocumentServers(t *testing.T) {
	r, nA, nB := twoDocServers(t, []string{"reports", "notes"}, []string{"guides", "data"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	last := 0
	all, steps := r.searchSteps(ctx, t, protocol.SearchQuery{Query: "the", MaxDocuments: 2, MaxMatches: 500, Literal: true}, func(step int, ret *protocol.SearchFinderRet) {
		if ret.TotalDocuments != nA+nB {
			t.Errorf("step %d: total %d, want %d", step, ret.TotalDocuments, nA+nB)
		}
		if ret.ScannedDocuments < last || ret.ScannedDocuments > ret.TotalDocuments {
			t.Errorf("step %d: scanned %d after %d (of %d)", step, ret.ScannedDocuments, last, ret.TotalDocuments)
		}
		last = ret.ScannedDocuments
	})
	if last != nA+nB || steps < (nA+nB)/2 {
		t.Errorf("%d steps scanned %d of %d documents, two at a time", steps, last, nA+nB)
	}
	servers := map[string]bool{}
	for _, m := range all {
		servers[m.Server] = true
	}
	if !servers["docs-a"] || !servers["docs-b"] {
		t.Errorf("matches came from %v, want both servers", servers)
	}
	for _, m := range all[:min(len(all), 8)] {
		u, err := dpe.Parse(m.URI)
		if err != nil || u.Level() != dpe.LevelPage || u.Page != m.PageIndex {
			t.Fatalf("match URI %q: %v", m.URI, err)
		}
		p, err := r.agent.ReadPage(ctx, "pc", u)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(dpe.RenderPageText(*p), m.Line) || !strings.EqualFold(m.Line[m.Start:m.End], "the") {
			t.Errorf("%s does not hold the line %q (match %q)", m.URI, m.Line, m.Line[m.Start:m.End])
		}
	}

	pdf, err := r.agent.SearchFinder(ctx, "pc", protocol.SearchQuery{Query: "approval", FileType: "pdf", Literal: true})
	if err != nil || len(pdf.Matches) != 1 || pdf.Matches[0].Path != "reports/handbook.pdf" || pdf.TotalDocuments != 1 || pdf.NextCursor != "" {
		t.Fatalf("pdf search: %+v %v", pdf, err)
	}

	for name, bad := range map[string]protocol.SearchQuery{
		"empty":  {Query: " "},
		"cursor": {Query: "x", Cursor: "not-a-cursor"},
	} {
		_, err := r.agent.SearchFinder(ctx, "pc", bad)
		if code := protocol.CodeOf(err); code != protocol.CodeBadRequest {
			t.Errorf("%s: %v, want 400", name, err)
		}
	}
}

// TestFinderExtensionOnTheWire: match=all narrows, sort orders, and the
// answer counts the file types, through a real Server and Computer.
func TestFinderExtensionOnTheWire(t *testing.T) {
	bin := testutil.Binary(t)
	dir, n := copyCorpus(t, "reports", "notes", "guides", "data")
	r := startRig(t, []config.Server{docServer(bin, "docs", dir, "docs.x")}, computer.Options{})
	all := r.catalog(t, agent.FinderQuery{Limit: 100}, func(ret *protocol.GetFinderRet) bool { return ret.TotalCount == n })
	if all.FileTypes["pdf"] != 1 || all.FileTypes["md"] < 2 {
		t.Errorf("file_types %v", all.FileTypes)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	anyOf, err := r.agent.GetFinder(ctx, "pc", agent.FinderQuery{Keywords: []string{"handbook", "onboarding"}})
	if err != nil {
		t.Fatal(err)
	}
	allOf, err := r.agent.GetFinder(ctx, "pc", agent.FinderQuery{Keywords: []string{"handbook", "employee"}, MatchAll: true})
	if err != nil {
		t.Fatal(err)
	}
	if anyOf.TotalCount < 2 || allOf.TotalCount != 1 || allOf.Documents[0].Title != "Employee Handbook" {
		t.Errorf("any: %d, all: %+v", anyOf.TotalCount, allOf.Documents)
	}
	sorted, err := r.agent.GetFinder(ctx, "pc", agent.FinderQuery{Sort: "title", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	titles := make([]string, len(sorted.Documents))
	for i, d := range sorted.Documents {
		titles[i] = strings.ToLower(d.Title)
	}
	if !slices.IsSorted(titles) || len(titles) != n {
		t.Errorf("sort=title: %q", titles)
	}
	if _, err := r.agent.GetFinder(ctx, "pc", agent.FinderQuery{Sort: "size"}); protocol.CodeOf(err) != protocol.CodeBadRequest {
		t.Errorf("an unknown sort: %v, want 400", err)
	}
}

// TestSearchFinderRankedAcrossServers: once both document servers have
// built their indexes, a search answers from them, ranked: small steps
// follow the cursor through one order of descending score across both
// servers, and find exactly what one big step finds.
func TestSearchFinderRankedAcrossServers(t *testing.T) {
	r, nA, nB := twoDocServers(t, []string{"reports", "notes", "src"}, []string{"guides", "data", "reports"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		ret, err := r.agent.SearchFinder(ctx, "pc", protocol.SearchQuery{Query: "the"})
		if err != nil {
			t.Fatal(err)
		}
		if ret.Indexing == nil && ret.IndexedDocuments == nA+nB {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("indexes not built: %+v", ret)
		}
		time.Sleep(50 * time.Millisecond)
	}

	key := func(m protocol.SearchMatch) string { return m.URI }
	for _, query := range []string{"the", "budget", "revenue team", "q*"} {
		whole, err := r.agent.SearchFinder(ctx, "pc", protocol.SearchQuery{Query: query, MaxMatches: 500})
		if err != nil || whole.NextCursor != "" {
			t.Fatalf("%s: one big step: %+v %v", query, whole, err)
		}
		stepped, _ := r.searchSteps(ctx, t, protocol.SearchQuery{Query: query, MaxMatches: 3}, func(step int, ret *protocol.SearchFinderRet) {
			if len(ret.Matches) > 3 || ret.TotalDocuments != nA+nB || ret.IndexedDocuments != nA+nB {
				t.Fatalf("%s step %d: %d matches, %d/%d documents indexed", query, step, len(ret.Matches), ret.IndexedDocuments, ret.TotalDocuments)
			}
		})
		servers := map[string]bool{}
		for i, m := range stepped {
			servers[m.Server] = true
			if m.Score <= 0 || i > 0 && m.Score > stepped[i-1].Score {
				t.Errorf("%s: match %d (%s on %s) scores %v after %v", query, i, m.URI, m.Server, m.Score, stepped[max(i-1, 0)].Score)
			}
		}
		if query == "the" && (!servers["docs-a"] || !servers["docs-b"]) {
			t.Errorf("%s: matches from %v, want both servers", query, servers)
		}
		a, b := make([]string, 0, len(whole.Matches)), make([]string, 0, len(stepped))
		for _, m := range whole.Matches {
			a = append(a, key(m))
		}
		for _, m := range stepped {
			b = append(b, key(m))
		}
		if !slices.Equal(a, b) {
			t.Errorf("%s: steps of 3 found\n%q\none step\n%q", query, b, a)
		}
	}
}

// searchSteps follows a search's cursor to its end, calling check on each
// answer, and returns every match and the number of steps.
func (r *rig) searchSteps(ctx context.Context, t *testing.T, q protocol.SearchQuery, check func(step int, ret *protocol.SearchFinderRet)) ([]protocol.SearchMatch, int) {
	t.Helper()
	var all []protocol.SearchMatch
	for step := 1; ; step++ {
		ret, err := r.agent.SearchFinder(ctx, "pc", q)
		if err != nil {
			t.Fatalf("%q step %d: %v", q.Query, step, err)
		}
		check(step, ret)
		all = append(all, ret.Matches...)
		if ret.NextCursor == "" {
			return all, step
		}
		if step > 200 {
			t.Fatalf("%q: the search never ended", q.Query)
		}
		q.Cursor = ret.NextCursor
	}
}

// twoDocServers starts a Computer with two real document servers, docs-a
// and docs-b, over copies of the corpus folders a and b, and waits for its
// catalog to hold their documents (counted in nA and nB).
func twoDocServers(t *testing.T, a, b []string) (r *rig, nA, nB int) {
	t.Helper()
	bin := testutil.Binary(t)
	dirA, nA := copyCorpus(t, a...)
	dirB, nB := copyCorpus(t, b...)
	r = startRig(t, []config.Server{
		docServer(bin, "docs-a", dirA, "docs.a"),
		docServer(bin, "docs-b", dirB, "docs.b"),
	}, computer.Options{})
	r.catalog(t, agent.FinderQuery{Limit: 100}, func(ret *protocol.GetFinderRet) bool { return ret.TotalCount == nA+nB })
	return r, nA, nB
}
