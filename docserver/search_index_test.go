package docserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/smcp-browse/smcp-browse/docserver/fulltext"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// waitIndexed waits until the server's index holds every document.
func waitIndexed(t testing.TB, s *Server, within time.Duration) IndexStatus {
	t.Helper()
	var st IndexStatus
	testutil.EventuallyNil(t, within, "the index holding every document", func() error {
		if st = s.IndexStatus(); st.State != IndexReady || st.Indexed != st.Total {
			return fmt.Errorf("%+v", st)
		}
		return nil
	})
	return st
}

// searchAll runs a search to its end and returns every match.
func searchAll(t testing.TB, c *client.Client, args map[string]any) ([]SearchMatch, SearchResult) {
	t.Helper()
	var all []SearchMatch
	var last SearchResult
	for steps := 0; ; steps++ {
		if steps > 1000 {
			t.Fatal("the search never ends")
		}
		res, raw := callSearch(t, c, args)
		if raw.IsError {
			t.Fatalf("search %v: %v", args, raw.Content)
		}
		all = append(all, res.Matches...)
		last = res
		if res.NextCursor == "" {
			return all, last
		}
		next := map[string]any{}
		for k, v := range args {
			next[k] = v
		}
		next["cursor"] = res.NextCursor
		args = next
	}
}

// TestSearchRanked: with the index built, a search answers from it alone,
// best first, and a title word puts its document on top.
func TestSearchRanked(t *testing.T) {
	s, c, _ := startInProcess(t, copyCorpus(t), Options{})
	callSearch(t, c, map[string]any{"query": "warm up"}) // a search starts the build
	st := waitIndexed(t, s, 60*time.Second)
	if st.DiskBytes <= 0 || st.Where != "disk" {
		t.Errorf("index status %+v: want its size on disk", st)
	}

	res, _ := callSearch(t, c, map[string]any{"query": "budget"})
	if res.Indexed != res.Total || res.Scanned != res.Total || res.NextCursor != "" || res.Index.State != IndexReady {
		t.Errorf("a built index answers for every document at once: %+v", res)
	}
	if len(res.Matches) < 2 || res.Matches[0].Path != "reports/budget.xlsx" || res.Matches[0].PageIndex != 0 {
		t.Fatalf("the document titled Budget is not first: %+v", res.Matches)
	}
	if res.IndexHits != len(res.Matches) {
		t.Errorf("the index counts %d pages with the word, the search found %d", res.IndexHits, len(res.Matches))
	}
	// A smaller step still tells how many pages match in all.
	if one, _ := callSearch(t, c, map[string]any{"query": "budget", "maxMatches": 1}); len(one.Matches) != 1 || one.NextCursor == "" || one.IndexHits != len(res.Matches) {
		t.Errorf("one match of %d: %d matches, %d index hits, cursor %q", len(res.Matches), len(one.Matches), one.IndexHits, one.NextCursor)
	}
	for i, m := range res.Matches {
		if m.Score <= 0 || i > 0 && m.Score > res.Matches[i-1].Score {
			t.Errorf("match %d: score %v after %v: not ranked", i, m.Score, res.Matches[max(i-1, 0)].Score)
		}
		if !strings.EqualFold(m.Line[m.Start:m.End], "budget") && m.Line[m.Start:m.End] != "Budget" {
			t.Errorf("match %d highlights %q in %q", i, m.Line[m.Start:m.End], m.Line)
		}
	}

	// A phrase, in its order only; a prefix; the PDF's page and element.
	res, _ = callSearch(t, c, map[string]any{"query": `"written approval"`})
	if len(res.Matches) != 1 || res.Matches[0].Path != "reports/handbook.pdf" || res.Matches[0].PageIndex != 1 ||
		res.Matches[0].ElementID == "" || res.Matches[0].Line[res.Matches[0].Start:res.Matches[0].End] != "written approval" {
		t.Errorf("phrase: %+v", res.Matches)
	}
	if res, _ = callSearch(t, c, map[string]any{"query": `"approval written"`}); len(res.Matches) != 0 {
		t.Errorf("a phrase out of order matched %+v", res.Matches)
	}
	res, _ = callSearch(t, c, map[string]any{"query": "approv*"})
	if len(res.Matches) == 0 || !slices.ContainsFunc(res.Matches, func(m SearchMatch) bool { return m.Path == "reports/handbook.pdf" }) {
		t.Errorf("prefix: %+v", res.Matches)
	}
	// Words must all be on the page; whole words only.
	if res, _ = callSearch(t, c, map[string]any{"query": "approv"}); len(res.Matches) != 0 {
		t.Errorf("part of a word matched %+v", res.Matches)
	}
	res, _ = callSearch(t, c, map[string]any{"query": "PAYROLL", "fileType": "docx"})
	if len(res.Matches) != 1 || res.Matches[0].Path != "guides/onboarding.docx" || res.Total != 1 {
		t.Errorf("a DOCX table cell: %+v", res)
	}
	if _, raw := callSearch(t, c, map[string]any{"query": "*** ---"}); !raw.IsError {
		t.Error("a query without words is not refused")
	}
}

// indexSome builds the index of a server that was not started, with the
// documents whose path keep accepts, and returns it.
func indexSome(t *testing.T, s *Server, keep func(rel string) bool) *fulltext.Index {
	t.Helper()
	ft, err := fulltext.Open(fulltext.Options{Schema: s.text.schema, Root: s.rootDir})
	if err != nil {
		t.Fatal(err)
	}
	s.text.ft = ft
	close(s.text.ready)
	for _, e := range s.index.snapshot() {
		if !keep(e.rel) {
			continue
		}
		doc, err := s.wholeDocument(context.Background(), e, false)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := indexDoc(e, doc)
		if err := ft.Put(d); err != nil {
			t.Fatal(err)
		}
	}
	return ft
}

// TestSearchWhileIndexing: while the index holds only some documents, a
// search returns their pages ranked, then scans the others (score 0) and
// says how many the index answered for; together they are exactly what
// the whole index finds.
func TestSearchWhileIndexing(t *testing.T) {
	dir := copyCorpus(t)
	full, err := New(dir, Options{Host: testHost, CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	indexSome(t, full, func(string) bool { return true })
	part, err := New(dir, Options{Host: testHost, CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer part.Close()
	indexSome(t, part, func(rel string) bool { return strings.HasPrefix(rel, "reports/") })

	key := func(m SearchMatch) string { return fmt.Sprintf("%s#%d", m.Path, m.PageIndex) }
	for _, q := range []string{"the", "budget", "revenue", `"written approval"`, "team*"} {
		want, err := full.Search(context.Background(), SearchParams{SearchQuery: protocol.SearchQuery{Query: q, MaxMatches: 500}})
		if err != nil {
			t.Fatal(err)
		}
		var got []SearchMatch
		p := SearchParams{SearchQuery: protocol.SearchQuery{Query: q, MaxMatches: 3, MaxDocuments: 2}}
		var res SearchResult
		for steps := 0; ; steps++ {
			res, err = part.Search(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, res.Matches...)
			if res.NextCursor == "" || steps > 100 {
				break
			}
			p.Cursor = res.NextCursor
		}
		if res.Indexed == 0 || res.Indexed >= res.Total || res.Scanned != res.Total {
			t.Errorf("%s: indexed %d scanned %d of %d", q, res.Indexed, res.Scanned, res.Total)
		}
		var a, b []string
		for _, m := range want.Matches {
			a = append(a, key(m))
		}
		zero := false
		for i, m := range got {
			b = append(b, key(m))
			ranked := strings.HasPrefix(m.Path, "reports/")
			if ranked != (m.Score > 0) || zero && m.Score > 0 || i > 0 && m.Score > got[i-1].Score {
				t.Errorf("%s: %s score %v: indexed pages first, ranked, then the scanned ones at 0", q, key(m), m.Score)
			}
			zero = zero || m.Score == 0
		}
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			t.Errorf("%s: partial index found %q, whole index %q", q, b, a)
		}
	}
}

// TestSearchIndexFollowsTheWatcher: an edited file is found by its new
// words (from the index) soon after the edit, a deleted one is gone.
func TestSearchIndexFollowsTheWatcher(t *testing.T) {
	dir := copyCorpus(t)
	s, c, _ := startInProcess(t, dir, Options{})
	callSearch(t, c, map[string]any{"query": "start"})
	waitIndexed(t, s, 60*time.Second)

	path := filepath.Join(dir, "notes", "meeting.txt")
	edited := time.Now()
	writeFile(t, path, "Agenda: the zeppelin budget\n")
	var took time.Duration
	for {
		res, _ := callSearch(t, c, map[string]any{"query": "zeppelin"})
		if len(res.Matches) == 1 && res.Matches[0].Score > 0 && res.Indexed == res.Total {
			took = time.Since(edited)
			break
		}
		if time.Since(edited) > 20*time.Second {
			t.Fatalf("the edit is not in the index: %+v", res)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("edited file found from the index %v after the write", took)
	if res, _ := callSearch(t, c, map[string]any{"query": "attendees"}); slices.ContainsFunc(res.Matches, func(m SearchMatch) bool { return m.Path == "notes/meeting.txt" }) {
		t.Errorf("the old text is still found: %+v", res.Matches)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	testutil.EventuallyNil(t, 20*time.Second, "a deleted file no longer found", func() error {
		if res, _ := callSearch(t, c, map[string]any{"query": "zeppelin"}); len(res.Matches) > 0 {
			return fmt.Errorf("still found: %+v", res.Matches)
		}
		return nil
	})
	// The record goes with the index's next plan, which the watcher wakes
	// (the status may still read "ready" from the plan before).
	testutil.Eventually(t, 20*time.Second, "the deleted file's record gone from the index", func() bool {
		_, ok := s.text.index().Records()["notes/meeting.txt"]
		return !ok
	})
}

// TestSearchIndexSurvivesARestart: a second server over the same folder
// and cache answers from the index without parsing a single file.
func TestSearchIndexSurvivesARestart(t *testing.T) {
	dir := copyCorpus(t)
	cache := t.TempDir()
	s1, c1, _ := startInProcess(t, dir, Options{CacheDir: cache})
	callSearch(t, c1, map[string]any{"query": "budget"})
	waitIndexed(t, s1, 60*time.Second)
	want, _ := callSearch(t, c1, map[string]any{"query": "budget"})
	s1.Close()

	s2, c2, _ := startInProcess(t, dir, Options{CacheDir: cache})
	got, _ := callSearch(t, c2, map[string]any{"query": "budget"})
	if got.Indexed != got.Total || len(got.Matches) != len(want.Matches) || got.Matches[0].Path != want.Matches[0].Path {
		t.Errorf("after a restart: %+v\nbefore: %+v", got, want)
	}
	waitIndexed(t, s2, 30*time.Second)
	// The index holds no text: the text files whose pages the search
	// shows are read again, as a read of those pages would be; the text
	// of the others (PDF, office) comes from the text cache.
	shown, parsedFormats := map[string]bool{}, 0
	for _, m := range got.Matches {
		if e, ok := s2.index.lookupRel(m.Path); ok && !prefilterKind(e.kind) {
			parsedFormats++
			continue
		}
		shown[m.Path] = true
	}
	if parsedFormats == 0 {
		t.Fatalf("the search shows no PDF or office file, so it checks nothing of the text cache: %+v", got.Matches)
	}
	if n := s2.parsesRun.Load(); n > int64(len(shown)) {
		t.Errorf("%d files parsed again after a restart over unchanged files; the search shows pages of %d text files", n, len(shown))
	}
}

// TestSearchIndexBounds: a file over the size bound is counted as
// unreadable, not read; a document whose text passes the index's bound is
// indexed in part and its other pages are still found, by scanning.
func TestSearchIndexBounds(t *testing.T) {
	sizeTests.Start(t)
	if testing.Short() {
		t.Skip("writes large files")
	}
	dir := t.TempDir()
	huge, err := os.Create(filepath.Join(dir, "huge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := huge.Truncate(1 << 30); err != nil { // sparse: 1 GiB that takes no disk
		t.Fatal(err)
	}
	huge.Close()
	// 12 MiB of text in distinct words: more than a document may put in
	// the index (8 MiB); the last line's word must still be found.
	var b strings.Builder
	for i := 0; b.Len() < 12<<20; i++ {
		fmt.Fprintf(&b, "w%07x alpha beta gamma delta\n", i)
	}
	b.WriteString("omegaword at the very end\n")
	writeFile(t, filepath.Join(dir, "big.txt"), b.String())
	writeFile(t, filepath.Join(dir, "small.md"), "# Small\n\nomegaword here too\n")

	s, c, _ := startInProcess(t, dir, Options{MaxFileSize: 64 << 20})
	callSearch(t, c, map[string]any{"query": "start"})
	st := waitIndexed(t, s, 120*time.Second)
	t.Logf("index of a 12 MiB text file and a 1 GiB one: %+v", st)
	if st.DiskBytes > 64<<20 {
		t.Errorf("the index takes %d MiB on disk", st.DiskBytes>>20)
	}
	rec := s.text.index().Records()
	if r := rec["big.txt"]; r.Indexed == 0 || r.Indexed >= r.Pages {
		t.Errorf("big.txt record %+v: want indexed in part", r)
	}
	if r := rec["huge.txt"]; r.Unreadable == "" {
		t.Errorf("huge.txt record %+v: want unreadable", r)
	}
	matches, res := searchAll(t, c, map[string]any{"query": "omegaword"})
	var paths []string
	for _, m := range matches {
		paths = append(paths, m.Path)
	}
	slices.Sort(paths)
	if !slices.Equal(paths, []string{"big.txt", "small.md"}) || res.Unreadable != 1 {
		t.Errorf("found in %q, unreadable %d: want big.txt (scanned past the bound) and small.md", paths, res.Unreadable)
	}
}

// TestIndexTimeLeftFollowsThePace: while the index builds, its status
// estimates the time left from the documents indexed since the build
// began, and says nothing when it cannot tell or is not building.
func TestIndexTimeLeftFollowsThePace(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		state                string
		base, indexed, total int
		spent                time.Duration
		want                 int64
	}{
		{IndexBuilding, 0, 100, 300, 10 * time.Second, 20_000},
		{IndexBuilding, 200, 300, 400, 5 * time.Second, 5_000}, // restarted with 200 indexed
		{IndexBuilding, 100, 100, 400, 5 * time.Second, 0},     // nothing indexed yet: no pace
		{IndexReady, 0, 400, 400, 5 * time.Second, 0},
	} {
		ti := &textIndex{state: tc.state, buildBase: tc.base, indexed: tc.indexed, total: tc.total, buildStart: now.Add(-tc.spent)}
		if got := ti.remainingLocked(now); got != tc.want {
			t.Errorf("%s, %d indexed of %d (%d at the start) after %v: %d ms left, want %d", tc.state, tc.indexed, tc.total, tc.base, tc.spent, got, tc.want)
		}
	}
}

// pagesOf lists the matches' pages in their order.
func pagesOf(ms []SearchMatch) []string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s#%d %.4f", m.Path, m.PageIndex, m.Score))
	}
	return out
}

// A second server on a folder whose index another process holds (a
// `search --docs` beside a browser on it) asks the holder's index: the
// same ranked pages, with no index of its own; it takes the index over
// when the holder closes.
// holdIndex starts a server on a copy of the corpus with its index in
// cache, waits for the index, and returns its answer to a search for
// "budget".
func holdIndex(t *testing.T) (first *Server, dir, cache string, want []SearchMatch, last SearchResult) {
	t.Helper()
	dir, cache = copyCorpus(t), t.TempDir()
	first, c1, _ := startInProcess(t, dir, Options{CacheDir: cache})
	callSearch(t, c1, map[string]any{"query": "warm up"})
	waitIndexed(t, first, 60*time.Second)
	want, last = searchAll(t, c1, map[string]any{"query": "budget"})
	return first, dir, cache, want, last
}

// startAsking starts another server on the holder's folder and waits for
// it to ask the holder's index.
func startAsking(t *testing.T, dir, cache string) (*Server, *client.Client) {
	t.Helper()
	s, c, _ := startInProcess(t, dir, Options{CacheDir: cache})
	callSearch(t, c, map[string]any{"query": "warm up"})
	testutil.EventuallyNil(t, 30*time.Second, "the second server to ask the holder's index", func() error {
		if st := s.IndexStatus(); st.Where != "shared" || st.State != IndexReady {
			return fmt.Errorf("%+v", st)
		}
		return nil
	})
	return s, c
}

// sortedPages lists the matches' pages in path order.
func sortedPages(ms []SearchMatch) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Path+"#"+strconv.Itoa(m.PageIndex))
	}
	slices.Sort(out)
	return out
}

func TestHeldIndexIsAskedForRankedPages(t *testing.T) {
	first, dir, cache, want, wantLast := holdIndex(t)
	second, c2 := startAsking(t, dir, cache)
	found, last := searchAll(t, c2, map[string]any{"query": "budget"})
	st := second.IndexStatus()
	if !strings.Contains(st.Note, "held by process "+strconv.Itoa(os.Getpid())) || !strings.Contains(st.Note, "ask") || st.MemoryBytes != 0 {
		t.Errorf("shared index status %+v: want a note naming this process, and no index in memory", st)
	}
	if len(want) == 0 || last.Indexed != wantLast.Indexed || !slices.Equal(pagesOf(found), pagesOf(want)) {
		t.Errorf("asking the holder: %d indexed, pages %v; the holder: %d indexed, pages %v",
			last.Indexed, pagesOf(found), wantLast.Indexed, pagesOf(want))
	}

	first.Close()
	testutil.EventuallyNil(t, 60*time.Second, "the second server to take the index over", func() error {
		if st := second.IndexStatus(); st.Where != "disk" || st.Note != "" || st.State != IndexReady {
			return fmt.Errorf("%+v", st)
		}
		return nil
	})
	if found, _ := searchAll(t, c2, map[string]any{"query": "budget"}); !slices.Equal(pagesOf(found), pagesOf(want)) {
		t.Errorf("after the takeover: pages %v, want %v", pagesOf(found), pagesOf(want))
	}
}

// A holder that does not answer (an older smcp-browse, or one whose
// socket is gone) leaves the second server scanning, and saying so; one
// that stops answering is dropped at the next search.
func TestHeldIndexScansAndSaysSo(t *testing.T) {
	first, dir, cache, want, _ := holdIndex(t)
	socks, _ := filepath.Glob(filepath.Join(cache, "*.search", "share.sock"))
	if len(socks) != 1 {
		t.Fatalf("the holder's socket: %v, want one", socks)
	}

	// The holder stops answering once the second server has asked it.
	second, c2 := startAsking(t, dir, cache)
	if err := os.Remove(socks[0]); err != nil {
		t.Fatal(err)
	}
	var got SearchResult
	testutil.Eventually(t, 30*time.Second, "the second server to say its index is held", func() bool {
		got, _ = callSearch(t, c2, map[string]any{"query": "budget"})
		return got.Index.State == IndexHeld
	})
	found, last := searchAll(t, c2, map[string]any{"query": "budget"})
	if !strings.Contains(got.Index.Note, "held by process "+strconv.Itoa(os.Getpid())) ||
		!strings.Contains(got.Index.Note, "scan") || got.Index.MemoryBytes != 0 {
		t.Errorf("held index status %+v: want a note naming this process and no index in memory", got.Index)
	}
	if last.Indexed != 0 || !slices.Equal(sortedPages(found), sortedPages(want)) {
		t.Errorf("held: %d indexed, pages %v; the holder's index finds %v", last.Indexed, sortedPages(found), sortedPages(want))
	}

	// A third server finds no socket at all: it scans from the start.
	third, c3, _ := startInProcess(t, dir, Options{CacheDir: cache})
	callSearch(t, c3, map[string]any{"query": "warm up"})
	testutil.Eventually(t, 30*time.Second, "the third server to say its index is held", func() bool {
		return third.IndexStatus().State == IndexHeld
	})
	if found, _ := searchAll(t, c3, map[string]any{"query": "budget"}); !slices.Equal(sortedPages(found), sortedPages(want)) {
		t.Errorf("third: pages %v; the holder's index finds %v", sortedPages(found), sortedPages(want))
	}

	first.Close()
	testutil.EventuallyNil(t, 60*time.Second, "one of the others to take the index over", func() error {
		for _, s := range []*Server{second, third} {
			if st := s.IndexStatus(); st.Where == "disk" && st.Note == "" {
				return nil
			}
		}
		return fmt.Errorf("second %+v, third %+v", second.IndexStatus(), third.IndexStatus())
	})
}
