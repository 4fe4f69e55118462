package fulltext

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func words(s string) []string {
	var out []string
	Words(s, func(w Word) { out = append(out, w.Term) })
	return out
}

func TestWords(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"os.ReadFile(name)", []string{"os", "readfile", "name"}},
		{"example_test.go", []string{"example", "test", "go"}},
		{"Café crème, 3 fois", []string{"café", "crème", "3", "fois"}},
		{"项目周报: done", []string{"项", "目", "周", "报", "done"}},
		{"--- *** ///", nil},
		{"naïve", []string{"naïve"}},
	}
	for _, c := range cases {
		if got := words(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Words(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	long := strings.Repeat("x", 3*MaxWordBytes)
	if got := words(long); len(got) != 1 || len(got[0]) != MaxWordBytes {
		t.Errorf("a long word is indexed by its first %d bytes: got %d words of %d", MaxWordBytes, len(got), len(got[0]))
	}
	// Offsets point into the text as given.
	text := "Ünïcode «and» ReadFile"
	Words(text, func(w Word) {
		if strings.ToLower(text[w.Start:w.End]) != w.Term {
			t.Errorf("offsets [%d,%d) give %q, term %q", w.Start, w.End, text[w.Start:w.End], w.Term)
		}
	})
}

func TestParseQuery(t *testing.T) {
	q, err := ParseQuery(`"written approval" read* 文档 os.ReadFile`)
	if err != nil {
		t.Fatal(err)
	}
	want := []clause{
		{phraseClause, []string{"written", "approval"}},
		{prefixClause, []string{"read"}},
		{phraseClause, []string{"文", "档"}},
		{phraseClause, []string{"os", "readfile"}},
	}
	if len(q.clauses) != len(want) {
		t.Fatalf("clauses %+v", q.clauses)
	}
	for i := range want {
		if q.clauses[i].kind != want[i].kind || !slices.Equal(q.clauses[i].terms, want[i].terms) {
			t.Errorf("clause %d = %+v, want %+v", i, q.clauses[i], want[i])
		}
	}
	for _, bad := range []string{"", "   ", `"" ***`, "-- ::"} {
		if _, err := ParseQuery(bad); err != ErrNoWords {
			t.Errorf("ParseQuery(%q) err %v, want ErrNoWords", bad, err)
		}
	}
}

func TestSpansAndMatches(t *testing.T) {
	q, _ := ParseQuery(`"written approval" read*`)
	text := "Needs written approval.\nReadFile reads; written then approval."
	var got []string
	for _, s := range q.Spans(text) {
		got = append(got, text[s.Start:s.End])
	}
	if want := []string{"written approval", "ReadFile", "reads"}; !slices.Equal(got, want) {
		t.Errorf("spans %q, want %q", got, want)
	}
	if !q.Matches("ReadFile", "written approval") || q.Matches("written approval only") {
		t.Error("Matches: every clause in one of the texts")
	}
	term, _ := ParseQuery("read")
	if term.Matches("ReadFile reads ready") {
		t.Error("a term matches whole words only")
	}
}

func page(body string) Page { return Page{Body: body} }

func find(t *testing.T, ix *Index, q string, f Filter) Hits {
	t.Helper()
	pq, err := ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	var h Hits
	err = ix.View(func(v View) error {
		var err error
		h, err = v.Search(context.Background(), pq, f, 0, 100)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func rels(h Hits) []string {
	var out []string
	for _, x := range h.Hits {
		out = append(out, x.Rel+"#"+string(rune('0'+x.Page)))
	}
	return out
}

func TestPutSearchDelete(t *testing.T) {
	ix, err := Open(Options{Dir: filepath.Join(t.TempDir(), "ix"), Root: "/r"})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	err = ix.Put(
		Doc{Rel: "a.md", Version: "1", FileType: "md", Title: "Budget planning", TotalPages: 2,
			Pages: []Page{page("intro text"), page("the budget is in the appendix")}},
		Doc{Rel: "b.md", Version: "1", FileType: "md", Title: "Notes", TotalPages: 1,
			Pages: []Page{page("budget budget budget, more about the budget")}},
		Doc{Rel: "c.pdf", Version: "1", FileType: "PDF", Title: "Other", TotalPages: 1,
			Pages: []Page{{Headings: "Budget", Body: "Budget\nsomething else"}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	h := find(t, ix, "budget", Filter{})
	if h.Total != 4 || h.Hits[0].Rel != "a.md" || h.Hits[0].Page != 0 {
		t.Fatalf("the title hit comes first: %q total %d", rels(h), h.Total)
	}
	if got := rels(find(t, ix, "budget", Filter{FileType: "pdf"})); !slices.Equal(got, []string{"c.pdf#0"}) {
		t.Errorf("file type filter: %q", got)
	}
	if got := rels(find(t, ix, `"in the appendix"`, Filter{})); !slices.Equal(got, []string{"a.md#1"}) {
		t.Errorf("phrase: %q", got)
	}
	// The index holds no positions: the page with the words in another
	// order is a candidate, which the phrase's check on the text drops.
	if got := rels(find(t, ix, `"appendix the"`, Filter{})); !slices.Equal(got, []string{"a.md#1"}) {
		t.Errorf("a phrase's candidates are the pages with all its words: %q", got)
	}
	if q, _ := ParseQuery(`"appendix the"`); q.Matches("the budget is in the appendix") {
		t.Error("a phrase keeps its order on the text")
	}
	if got := rels(find(t, ix, "budg*", Filter{FileType: "md"})); len(got) != 3 {
		t.Errorf("prefix: %q", got)
	}
	// A short prefix (a term of the prefix fields) ranks a title hit
	// first too.
	if got := rels(find(t, ix, "b*", Filter{})); len(got) != 4 || got[0] != "a.md#0" {
		t.Errorf("short prefix: %q", got)
	}

	// A new version with fewer pages replaces the old one entirely.
	seq := ix.Records()["a.md"].Seq
	if err := ix.Put(Doc{Rel: "a.md", Version: "2", FileType: "md", Title: "Plans", TotalPages: 1, Pages: []Page{page("nothing here")}}); err != nil {
		t.Fatal(err)
	}
	if got := rels(find(t, ix, "budget", Filter{})); slices.Contains(got, "a.md#1") || slices.Contains(got, "a.md#0") {
		t.Errorf("old pages of a.md still found: %q", got)
	}
	if r := ix.Records()["a.md"]; r.Version != "2" || r.Seq <= seq || r.Indexed != 1 {
		t.Errorf("record %+v", r)
	}
	// MaxSeq hides what was written later.
	if got := rels(find(t, ix, "nothing", Filter{MaxSeq: seq})); len(got) != 0 {
		t.Errorf("MaxSeq: %q", got)
	}
	if err := ix.Delete("b.md", "missing.md"); err != nil {
		t.Fatal(err)
	}
	if got := rels(find(t, ix, "budget", Filter{})); !slices.Equal(got, []string{"c.pdf#0"}) {
		t.Errorf("after delete: %q", got)
	}
}

// TestReopen: records and pages survive a close and open; an index of
// another schema or a damaged one is built again, empty.
func TestReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	opts := Options{Dir: dir, Schema: "x1", Root: "/r"}
	ix, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Put(Doc{Rel: "a.txt", Version: "v", TotalPages: 1, Pages: []Page{page("hello world")}}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := ix.Records()["a.txt"]; !ok || r.Version != "v" || r.Seq == 0 {
		t.Fatalf("record after reopen: %+v %v", r, ok)
	}
	if len(find(t, ix, "hello", Filter{}).Hits) != 1 {
		t.Error("page lost on reopen")
	}
	ix.Close()

	opts.Schema = "x2"
	ix, err = Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Records()) != 0 {
		t.Error("an index of another schema was kept")
	}
	ix.Put(Doc{Rel: "b.txt", Version: "v", TotalPages: 1, Pages: []Page{page("hello")}})
	ix.Close()

	// Damage: the root file overwritten with garbage.
	root := filepath.Join(dir, "index", "store", "root.bolt")
	if err := os.WriteFile(root, []byte(strings.Repeat("garbage", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(opts)
	if err != nil {
		t.Fatalf("a damaged index is rebuilt, not an error: %v", err)
	}
	defer ix.Close()
	if len(ix.Records()) != 0 || len(find(t, ix, "hello", Filter{}).Hits) != 0 {
		t.Error("a damaged index answered")
	}
	if err := ix.Put(Doc{Rel: "c.txt", Version: "v", TotalPages: 1, Pages: []Page{page("hello")}}); err != nil {
		t.Fatal(err)
	}
}

// TestHeldIndex: a second opener of an index held by another does not
// wait long, nor build an index of its own (that cost a second process
// minutes and most of a gigabyte): it is told who holds it, and opens it
// once the holder closes it.
func TestHeldIndex(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	a, err := Open(Options{Dir: dir, Root: "/r"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Put(Doc{Rel: "x", Version: "1", TotalPages: 1, Pages: []Page{page("word")}}); err != nil {
		t.Fatal(err)
	}
	_, err = Open(Options{Dir: dir, Root: "/r", LockWait: 100e6})
	var held *InUseError
	if !errors.As(err, &held) || held.PID != os.Getpid() || !strings.Contains(err.Error(), "held by process "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second opener: %v, want an InUseError naming this process", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := Open(Options{Dir: dir, Root: "/r", LockWait: 100e6})
	if err != nil {
		t.Fatalf("once the holder closed it: %v", err)
	}
	defer b.Close()
	if len(find(t, b, "word", Filter{}).Hits) != 1 {
		t.Error("the index opened after its holder left does not hold its pages")
	}
}

func TestRemoveStale(t *testing.T) {
	base := t.TempDir()
	gone := filepath.Join(base, "gone-root")
	here := filepath.Join(base, "root")
	os.Mkdir(gone, 0o755)
	os.Mkdir(here, 0o755)
	open := func(name, root string) *Index {
		ix, err := Open(Options{Dir: filepath.Join(base, name), Root: root})
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	open("a.search", gone).Close()
	open("b.search", here).Close()
	held := open("c.search", gone)
	defer held.Close()
	os.Remove(gone)
	removed := RemoveStale([]string{filepath.Join(base, "a.search"), filepath.Join(base, "b.search"), filepath.Join(base, "c.search")})
	if !slices.Equal(removed, []string{filepath.Join(base, "a.search")}) {
		t.Errorf("removed %q: want only the closed index of a gone folder", removed)
	}
}

// TestConcurrentPutsAreSeenWhole writes batches from several goroutines
// at once while views search: a view never finds a page whose file's
// record it does not hold (a batch is seen whole or not at all), and
// every batch is seen in the end.
func TestConcurrentPutsAreSeenWhole(t *testing.T) {
	ix, err := Open(Options{Dir: filepath.Join(t.TempDir(), "ix"), Root: "/r"})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	q, _ := ParseQuery("shared")
	const writers, batches = 3, 20
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for b := range batches {
				var docs []Doc
				for d := range 5 {
					rel := fmt.Sprintf("w%d/b%d/d%d.md", w, b, d)
					docs = append(docs, Doc{Rel: rel, Version: "1", FileType: "md", TotalPages: 2,
						Pages: []Page{page("shared words here"), page("more shared words")}})
				}
				if err := ix.Put(docs...); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	go func() { wg.Wait(); close(done) }()
	views := 0
	for finished := false; !finished; views++ {
		select {
		case <-done:
			finished = true
		default:
		}
		err := ix.View(func(v View) error {
			h, err := v.Search(context.Background(), q, Filter{}, 0, 10_000)
			if err != nil {
				return err
			}
			pages := 0
			for _, x := range h.Hits {
				r, ok := v.Record(x.Rel)
				if !ok || r.Seq > v.Seq() {
					return fmt.Errorf("view at %d finds %s page %d, whose record it does not hold", v.Seq(), x.Rel, x.Page)
				}
				pages++
			}
			want := 0
			for _, r := range ix.records {
				want += r.Indexed
			}
			if pages != want {
				return fmt.Errorf("view at %d finds %d pages, its records hold %d", v.Seq(), pages, want)
			}
			return nil
		})
		if err != nil {
			<-done
			t.Fatal(err)
		}
	}
	if n := len(ix.Records()); n != writers*batches*5 {
		t.Fatalf("%d files recorded, want %d", n, writers*batches*5)
	}
	if got := find(t, ix, "shared", Filter{}); got.Total != writers*batches*5*2 {
		t.Fatalf("%d pages found at the end, want %d", got.Total, writers*batches*5*2)
	}
	t.Logf("%d views checked during the writes", views)
}
