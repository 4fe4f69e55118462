package fulltext

import (
	"context"
	"errors"
	"maps"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// askAll reads a Remote's records and runs q on it.
func askAll(t *testing.T, r *Remote, q string, f Filter) (map[string]Record, Hits) {
	t.Helper()
	pq, err := ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	var recs map[string]Record
	var hits Hits
	err = r.Read(context.Background(), func(v Reader) error {
		recs = v.(remoteView).records
		var err error
		hits, err = v.Search(context.Background(), pq, f, 0, 100)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return recs, hits
}

// A process that finds the index held asks the holder: the same records
// and the same ranked pages as the holder's own views, kept up to date as
// the holder writes and deletes; nothing once the holder closes it.
func TestSharedIndexAnswersAsTheHolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	ix, err := Open(Options{Dir: dir, Schema: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	put := func(docs ...Doc) {
		t.Helper()
		if err := ix.Put(docs...); err != nil {
			t.Fatal(err)
		}
	}
	put(Doc{Rel: "a.md", Version: "1", Title: "Budget", Pages: []Page{page("the budget for 2025"), page("travel budget")}, TotalPages: 2},
		Doc{Rel: "b.md", Version: "1", Pages: []Page{page("nothing about money")}, TotalPages: 1},
		Doc{Rel: "c.txt", Version: "1", FileType: "txt", Pages: []Page{page("budget budget budget")}, TotalPages: 1})
	progress := Progress{State: "ready", Indexed: 3, Total: 3}
	if err := ix.Share(func() Progress { return progress }); err != nil {
		t.Fatal(err)
	}

	_, err = Open(Options{Dir: dir, Schema: "s", LockWait: 50 * time.Millisecond})
	var held *InUseError
	if !errors.As(err, &held) || held.PID != os.Getpid() {
		t.Fatalf("second Open: %v, want an InUseError naming this process", err)
	}
	r, err := Ask(context.Background(), dir, held.PID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Progress() != progress {
		t.Errorf("progress %+v, want %+v", r.Progress(), progress)
	}
	check := func(what, q string, f Filter) {
		t.Helper()
		recs, hits := askAll(t, r, q, f)
		if !maps.Equal(recs, ix.Records()) {
			t.Errorf("%s: records %v, the holder's %v", what, recs, ix.Records())
		}
		if want := find(t, ix, q, f); !reflect.DeepEqual(hits, want) {
			t.Errorf("%s: %q gives %+v, the holder's %+v", what, q, hits, want)
		}
	}
	check("first", "budget", Filter{})
	check("filtered", "budget", Filter{FileType: "txt"})
	check("prefix", "bud*", Filter{})

	put(Doc{Rel: "d.md", Version: "1", Pages: []Page{page("a budget of its own")}, TotalPages: 1})
	if err := ix.Delete("c.txt"); err != nil {
		t.Fatal(err)
	}
	check("after a write and a delete", "budget", Filter{})

	ix.Close()
	if err := r.Read(context.Background(), func(Reader) error { return nil }); err == nil {
		t.Error("a closed index still answers")
	}
	if _, err := Ask(context.Background(), dir, held.PID); err == nil {
		t.Error("Ask of a closed index succeeds")
	}
}

// Bad requests get no answer and leave the holder serving; a request that
// never ends is cut off.
func TestSharedIndexSurvivesBadRequests(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	ix, err := Open(Options{Dir: dir, Schema: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.Put(Doc{Rel: "a.md", Version: "1", Pages: []Page{page("budget")}, TotalPages: 1}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Share(nil); err != nil {
		t.Fatal(err)
	}
	if err := ix.Share(nil); err == nil {
		t.Error("a second Share succeeds")
	}
	sock, err := socketPath(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"not json\n", `{"op":"drop"}` + "\n", `{"op":"search","query":"***"}` + "\n", strings.Repeat("x", 1<<20)} {
		conn, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = conn.Write([]byte(bad))
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		b := make([]byte, 4096)
		n, _ := conn.Read(b)
		conn.Close()
		if n > 0 && !strings.Contains(string(b[:n]), `"err"`) {
			t.Errorf("request %.20q: answer %q, want an error or none", bad, b[:n])
		}
	}
	r, err := Ask(context.Background(), dir, 0)
	if err != nil {
		t.Fatalf("after bad requests: %v", err)
	}
	if _, hits := askAll(t, r, "budget", Filter{}); hits.Total != 1 {
		t.Errorf("after bad requests: %+v", hits)
	}
}

// A path too long for a socket puts it in a private folder of this
// user's; a folder others can enter is refused.
func TestShareSocketPath(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 120))
	p, err := socketPath(long, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(p) > maxSocketPath || !strings.HasSuffix(p, ".sock") {
		t.Errorf("socket path %q", p)
	}
	if q, _ := socketPath(long, false); q != p {
		t.Errorf("the asker's path %q, the holder's %q", q, p)
	}
	open := t.TempDir()
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ownPrivateDir(open); err == nil {
		t.Error("a folder others can enter is taken for a socket")
	}
}

// A source file that mentions a word on many of its pages outranks a
// small file that mentions it once (page BM25 alone favours the small
// one); a one-letter prefix is ranked by page.
func TestPagesRankWithTheirDocument(t *testing.T) {
	ix, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	long := strings.Repeat("scheduler run queue lock state machine ", 10)
	var pages []Page
	for i := range 30 {
		pages = append(pages, page(long+" goroutine g"+strconv.Itoa(i)+" goroutine"))
	}
	if err := ix.Put(Doc{Rel: "runtime/proc.go", Version: "1", Pages: pages, TotalPages: len(pages)},
		Doc{Rel: "testdata/a.txt", Version: "1", Pages: []Page{page("check that goroutine scheduling does not affect compiler output: go build -o a.out then cmp a.out b.out")}, TotalPages: 1}); err != nil {
		t.Fatal(err)
	}
	if got := rels(find(t, ix, "goroutine", Filter{})); got[0] == "testdata/a.txt#0" {
		t.Errorf("goroutine: %v, want the pages of runtime/proc.go first", got[:3])
	}
	q, _ := ParseQuery("g*")
	if q.byDocument() {
		t.Error("a one-letter prefix is ranked by document")
	}
	var byPage Hits
	err = ix.View(func(v View) error {
		byPage, err = v.search(context.Background(), q.bleveQuery(false), Filter{}, 0, 100, false)
		return err
	})
	if got := find(t, ix, "g*", Filter{}); err != nil || !reflect.DeepEqual(got, byPage) {
		t.Errorf("g*: %v, want the page order %v (%v)", rels(got), rels(byPage), err)
	}
}
