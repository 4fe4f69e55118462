package resindex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// fakeSource is an in-memory MCP server: a resource list served in pages,
// Level 1 reads built from the URI, and counters of what was asked.
type fakeSource struct {
	host     string
	pageSize int

	mu       sync.Mutex
	uris     []string
	failRead map[string]bool
	block    chan struct{} // when set, reads wait on it
	// readDelay and listDelay slow each read and each listed page down.
	readDelay, listDelay time.Duration
	// listGate, when set, holds every page after the first until closed.
	listGate chan struct{}
	lists    atomic.Int64
	reads    atomic.Int64
	readURIs []string // every URI read, in order
	inflight atomic.Int64
	maxIn    atomic.Int64
	subs     [][]string
}

func newFake(host string, docs ...string) *fakeSource {
	f := &fakeSource{host: host, failRead: map[string]bool{}}
	for _, d := range docs {
		f.uris = append(f.uris, f.doc(d))
	}
	return f
}

func (f *fakeSource) doc(ref string) string { return "dpe://" + f.host + "/" + ref }

func (f *fakeSource) set(uris ...string) {
	f.mu.Lock()
	f.uris = uris
	f.mu.Unlock()
}

func (f *fakeSource) ListResources(ctx context.Context, cursor string) ([]mcp.Resource, string, error) {
	f.lists.Add(1)
	f.mu.Lock()
	uris, gate := slices.Clone(f.uris), f.listGate
	f.mu.Unlock()
	if gate != nil && cursor != "" {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, "", ctx.Err()
		}
	}
	if f.listDelay > 0 {
		time.Sleep(f.listDelay)
	}
	start := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil {
			return nil, "", fmt.Errorf("bad cursor %q", cursor)
		}
		start = n
	}
	end := len(uris)
	if f.pageSize > 0 {
		end = min(start+f.pageSize, len(uris))
	}
	var out []mcp.Resource
	for _, u := range uris[start:end] {
		out = append(out, mcp.Resource{URI: u})
	}
	next := ""
	if end < len(uris) {
		next = strconv.Itoa(end)
	}
	return out, next, nil
}

func (f *fakeSource) ReadResource(ctx context.Context, uri string) ([]protocol.ResourceContents, error) {
	f.reads.Add(1)
	n := f.inflight.Add(1)
	defer f.inflight.Add(-1)
	for {
		m := f.maxIn.Load()
		if n <= m || f.maxIn.CompareAndSwap(m, n) {
			break
		}
	}
	f.mu.Lock()
	fail, block := f.failRead[uri], f.block
	f.readURIs = append(f.readURIs, uri)
	f.mu.Unlock()
	if f.readDelay > 0 {
		time.Sleep(f.readDelay)
	}
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if fail {
		return nil, errors.New("read failed")
	}
	ref := uri[len("dpe://"+f.host+"/"):]
	doc := protocol.DPEDocument{DocRef: ref, URI: uri, FileURI: "file:///" + ref, FileType: "md", Title: "Title " + ref, PageCount: 2,
		LastModified: "2026-01-02T03:04:05Z", Keywords: []string{"k-" + ref}}
	b, _ := json.Marshal(doc)
	return []protocol.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}, nil
}

func (f *fakeSource) Subscribe(ctx context.Context, uris []string) error {
	f.mu.Lock()
	f.subs = append(f.subs, slices.Clone(uris))
	f.mu.Unlock()
	return nil
}

func (f *fakeSource) lastSubs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.subs) == 0 {
		return nil
	}
	return f.subs[len(f.subs)-1]
}

// changes records OnChange calls.
type changes struct {
	ch chan Change
}

func newChanges() *changes { return &changes{ch: make(chan Change, 64)} }

func (c *changes) on(x Change) { c.ch <- x }

func (c *changes) expect(t *testing.T, want Change) {
	t.Helper()
	select {
	case got := <-c.ch:
		if got != want {
			t.Fatalf("change = %b, want %b", got, want)
		}
	case <-time.After(3 * time.Second):
		t.Fatalf("no change signalled, want %b", want)
	}
}

func (c *changes) expectNone(t *testing.T, within time.Duration) {
	t.Helper()
	select {
	case got := <-c.ch:
		t.Fatalf("unexpected change %b", got)
	case <-time.After(within):
	}
}

func newAgg(t *testing.T, c *changes) *Index {
	t.Helper()
	opts := Options{Debounce: 20 * time.Millisecond}
	if c != nil {
		opts.OnChange = c.on
	}
	a := New(opts)
	t.Cleanup(a.Close)
	return a
}

func uris(docs []protocol.DPEDocumentSummary) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.URI
	}
	sort.Strings(out)
	return out
}

func TestDocumentsBuildsFromLevel1AndCaches(t *testing.T) {
	ctx := context.Background()
	c := newChanges()
	a := newAgg(t, c)
	fa := newFake("a.host", "x", "y")
	fa.pageSize = 1 // three pages: cursors must be followed
	fa.uris = append(fa.uris, "test://static/1", "dpe://a.host", "dpe://a.host/x/pages/0", "window://a.host/w", "dpe://bad host/z")
	fb := newFake("b.host", "z")
	a.AddSource(ctx, "srv-a", fa)
	a.AddSource(ctx, "srv-b", fb)
	c.expect(t, FinderChanged|DesktopChanged)

	docs := a.Documents(ctx)
	if got, want := uris(docs), []string{"dpe://a.host/x", "dpe://a.host/y", "dpe://b.host/z"}; !slices.Equal(got, want) {
		t.Fatalf("documents = %v, want %v", got, want)
	}
	for _, d := range docs {
		wantServer := map[string]string{"a.host": "srv-a", "b.host": "srv-b"}[d.URI[6:12]]
		if d.Server != wantServer || d.Title != "Title "+d.DocRef || d.PageCount != 2 || d.LastModified == "" {
			t.Errorf("summary %+v", d)
		}
	}
	if r := fa.reads.Load() + fb.reads.Load(); r != 3 {
		t.Errorf("cold reads = %d, want 3", r)
	}
	lists := fa.lists.Load()

	// Warm: pure memory, no list and no read.
	for range 5 {
		if got := a.Documents(ctx); len(got) != 3 {
			t.Fatalf("warm documents = %d", len(got))
		}
	}
	if r := fa.reads.Load() + fb.reads.Load(); r != 3 {
		t.Errorf("warm Documents read again: %d reads", r)
	}
	if fa.lists.Load() != lists {
		t.Errorf("warm Documents listed again")
	}
	if got := fa.lastSubs(); !slices.Equal(got, []string{"dpe://a.host/x", "dpe://a.host/y", "window://a.host/w"}) {
		t.Errorf("subscribed to %v", got)
	}
}

func TestChangeDetection(t *testing.T) {
	ctx := context.Background()
	c := newChanges()
	a := newAgg(t, c)
	f := newFake("h", "a", "b")
	a.AddSource(ctx, "s", f)
	c.expect(t, FinderChanged)
	a.Documents(ctx)
	reads := f.reads.Load()

	t.Run("same set: no emit", func(t *testing.T) {
		f.set(f.doc("b"), f.doc("a"), "test://other") // reordered, plus a non-dpe URI
		a.ResourceListChanged("s")
		c.expectNone(t, 200*time.Millisecond)
	})
	t.Run("added: emit, new doc read, old ones not", func(t *testing.T) {
		f.set(f.doc("a"), f.doc("b"), f.doc("c"))
		a.ResourceListChanged("s")
		c.expect(t, FinderChanged)
		if got := uris(a.Documents(ctx)); len(got) != 3 {
			t.Fatalf("documents = %v", got)
		}
		if f.reads.Load() != reads+1 {
			t.Errorf("reads = %d, want %d", f.reads.Load(), reads+1)
		}
	})
	t.Run("removed: emit, doc gone", func(t *testing.T) {
		f.set(f.doc("a"), f.doc("c"))
		a.ResourceListChanged("s")
		c.expect(t, FinderChanged)
		if got := uris(a.Documents(ctx)); !slices.Equal(got, []string{f.doc("a"), f.doc("c")}) {
			t.Fatalf("documents = %v", got)
		}
	})
	t.Run("updated dpe: emit, only that entry re-read", func(t *testing.T) {
		before := f.reads.Load()
		a.ResourceUpdated("s", f.doc("a")+"/pages/1") // a page update drops its document
		c.expect(t, FinderChanged)
		a.Documents(ctx)
		if f.reads.Load() != before+1 {
			t.Errorf("reads after update = %d, want %d", f.reads.Load(), before+1)
		}
	})
	t.Run("non-dpe updated ignored", func(t *testing.T) {
		a.ResourceUpdated("s", "test://static/1")
		a.ResourceUpdated("s", "file:///x")
		c.expectNone(t, 150*time.Millisecond)
	})
	t.Run("window updated: desktop", func(t *testing.T) {
		a.ResourceUpdated("s", "window://h/w")
		c.expect(t, DesktopChanged)
	})
	t.Run("window added by list change: desktop only", func(t *testing.T) {
		f.set(f.doc("a"), f.doc("c"), "window://h/w")
		a.ResourceListChanged("s")
		c.expect(t, DesktopChanged)
	})
	t.Run("unknown server ignored", func(t *testing.T) {
		a.ResourceListChanged("nope")
		c.expectNone(t, 100*time.Millisecond)
	})
}

func TestDebounceMergesBurst(t *testing.T) {
	ctx := context.Background()
	var calls atomic.Int64
	changes := make(chan Change, 8)
	a := New(Options{Debounce: 80 * time.Millisecond, OnChange: func(c Change) {
		calls.Add(1)
		changes <- c
	}})
	defer a.Close()
	f := newFake("h", "a")
	a.AddSource(ctx, "s", f)
	next := func(what string) Change {
		t.Helper()
		select {
		case c := <-changes:
			return c
		case <-time.After(5 * time.Second):
			t.Fatalf("no OnChange %s", what)
			return 0
		}
	}
	for i := range 50 {
		a.ResourceUpdated("s", f.doc("a"))
		if i == 25 {
			a.ResourceUpdated("s", "window://h/x")
		}
	}
	if c := next("for a burst"); c != FinderChanged|DesktopChanged {
		t.Errorf("merged change = %b", c)
	}
	// A later burst is a new notification; had the first been split, its
	// second call would have come before this one's (it started earlier).
	a.ResourceUpdated("s", f.doc("a"))
	next("for a second burst")
	if n := calls.Load(); n != 2 {
		t.Fatalf("OnChange called %d times for two bursts, want 2", n)
	}
}

func TestRemoveAndReAddSource(t *testing.T) {
	ctx := context.Background()
	c := newChanges()
	a := newAgg(t, c)
	f1, f2 := newFake("one", "a"), newFake("two", "b")
	a.AddSource(ctx, "one", f1)
	a.AddSource(ctx, "two", f2)
	c.expect(t, FinderChanged)
	if n := len(a.Documents(ctx)); n != 2 {
		t.Fatalf("documents = %d", n)
	}
	a.RemoveSource("one")
	c.expect(t, FinderChanged)
	if got := uris(a.Documents(ctx)); !slices.Equal(got, []string{"dpe://two/b"}) {
		t.Fatalf("after down: %v", got)
	}
	if _, ok := a.Owner(ctx, "dpe://one/a"); ok {
		t.Error("a removed server still owns its host")
	}
	a.AddSource(ctx, "one", f1)
	c.expect(t, FinderChanged)
	if n := len(a.Documents(ctx)); n != 2 {
		t.Fatalf("after restart: %d documents", n)
	}
	// Removing a server without documents says nothing.
	a.AddSource(ctx, "empty", newFake("e"))
	a.RemoveSource("empty")
	c.expectNone(t, 100*time.Millisecond)
}

func TestFailedReadLeavesOnlyThatDocumentOut(t *testing.T) {
	ctx := context.Background()
	a := newAgg(t, nil)
	f := newFake("h", "good", "bad", "also-good")
	f.failRead[f.doc("bad")] = true
	a.AddSource(ctx, "s", f)
	if got := uris(a.Documents(ctx)); !slices.Equal(got, []string{f.doc("also-good"), f.doc("good")}) {
		t.Fatalf("documents = %v", got)
	}
	reads := f.reads.Load()
	a.Documents(ctx)
	if f.reads.Load() != reads {
		t.Error("a failed document was read again before its negative TTL")
	}
	// An update notification retries it.
	f.mu.Lock()
	f.failRead = map[string]bool{}
	f.mu.Unlock()
	a.ResourceUpdated("s", f.doc("bad"))
	if n := len(a.Documents(ctx)); n != 3 {
		t.Errorf("after update: %d documents", n)
	}
}

func TestBadLevel1Payloads(t *testing.T) {
	tests := []struct {
		name     string
		contents []protocol.ResourceContents
	}{
		{"empty", nil},
		{"blob only", []protocol.ResourceContents{{URI: "u", Blob: "AAAA"}}},
		{"not json", []protocol.ResourceContents{{URI: "u", Text: "# markdown"}}},
		{"no doc_ref", []protocol.ResourceContents{{URI: "u", Text: `{"title":"x"}`}}},
		{"negative pages", []protocol.ResourceContents{{URI: "u", Text: `{"doc_ref":"x","page_count":-1}`}}},
	}
	for _, tt := range tests {
		if _, err := buildSummary("dpe://h/x", "s", tt.contents); err == nil {
			t.Errorf("%s: accepted", tt.name)
		}
	}
	s, err := buildSummary("dpe://h/x", "s", []protocol.ResourceContents{{Text: `{"doc_ref":"x","uri":"dpe://elsewhere/y","title":"T","page_count":3}`}})
	if err != nil || s.URI != "dpe://h/x" || s.Server != "s" || s.PageCount != 3 {
		t.Errorf("summary = %+v, %v (the listed URI is the catalog key)", s, err)
	}
}

func TestReadsAreBoundedAndShared(t *testing.T) {
	ctx := context.Background()
	a := New(Options{Concurrency: 3})
	defer a.Close()
	var refs []string
	for i := range 40 {
		refs = append(refs, fmt.Sprintf("d%02d", i))
	}
	f := newFake("h", refs...)
	block := make(chan struct{})
	f.block = block
	a.AddSource(ctx, "s", f)
	var wg sync.WaitGroup
	results := make([]int, 2)
	for i := range 2 { // two concurrent cold calls share one read per URI
		wg.Go(func() { results[i] = len(a.Documents(ctx)) })
	}
	// Let the reads pile up at the bound before they are answered.
	testutil.Eventually(t, 5*time.Second, "3 reads waiting", func() bool { return f.inflight.Load() >= 3 })
	close(block)
	wg.Wait()
	if results[0] != 40 || results[1] != 40 {
		t.Fatalf("results = %v", results)
	}
	if m := f.maxIn.Load(); m > 3*2 || m < 1 {
		t.Errorf("max concurrent reads = %d, want <= 6 (3 per call)", m)
	}
	if r := f.reads.Load(); r > 40+6 {
		t.Errorf("reads = %d for 40 documents and two callers", r)
	}
}

// A source replaced while a read of its old incarnation hangs (the old
// process stopped answering) is read afresh: the new incarnation's read
// does not wait on, or take the result of, the old one.
func TestReplacedSourceIsReadAfresh(t *testing.T) {
	ctx := context.Background()
	a := newAgg(t, nil)
	old := newFake("h", "a")
	old.block = make(chan struct{}) // never answers; Close ends the read
	a.AddSource(ctx, "s", old)
	a.Catalog(ctx) // starts the read of a on old
	testutil.Eventually(t, 5*time.Second, "the old incarnation's read started", func() bool { return old.inflight.Load() > 0 })
	fresh := newFake("h", "a")
	a.AddSource(ctx, "s", fresh)
	cat := a.Settle(ctx, true, func(docs []protocol.DPEDocumentSummary) []protocol.DPEDocumentSummary {
		return slices.DeleteFunc(slices.Clone(docs), func(d protocol.DPEDocumentSummary) bool { return !d.Pending })
	})
	if len(cat.Documents) != 1 || cat.Documents[0].Pending || cat.Documents[0].Title != "Title a" {
		t.Fatalf("catalog after the source was replaced = %+v, want a read from the new incarnation", cat.Documents)
	}
	if n := fresh.reads.Load(); n != 1 {
		t.Errorf("new incarnation read %d times, want 1", n)
	}
}

func TestOwner(t *testing.T) {
	ctx := context.Background()
	a := newAgg(t, nil)
	f1 := newFake("docs.a", "x")
	f1.uris = append(f1.uris, "window://app.one/main", "test://r/1")
	f2 := newFake("docs.b", "y")
	a.AddSource(ctx, "one", f1)
	a.AddSource(ctx, "two", f2)
	tests := map[string]string{
		"dpe://docs.a/anything/pages/3": "one",
		"dpe://docs.b":                  "two",
		"window://app.one/main":         "one",
		"window://app.one/other?x=1":    "one",
		"test://r/1":                    "one",
	}
	for uri, want := range tests {
		if got, ok := a.Owner(ctx, uri); !ok || got != want {
			t.Errorf("Owner(%q) = %q %v, want %q", uri, got, ok, want)
		}
	}
	for _, uri := range []string{"dpe://docs.c/x", "window://nope/x", "test://r/2", "dpe://"} {
		if got, ok := a.Owner(ctx, uri); ok {
			t.Errorf("Owner(%q) = %q, want none", uri, got)
		}
	}
	if w := a.Windows(ctx); len(w) != 1 || w[0].Server != "one" {
		t.Errorf("windows = %+v", w)
	}
}

// slowLister fails its first listing, so a later call must list again.
type flakyLister struct {
	*fakeSource
	fails atomic.Int64
}

func (f *flakyLister) ListResources(ctx context.Context, cursor string) ([]mcp.Resource, string, error) {
	if f.fails.Add(-1) >= 0 {
		return nil, "", errors.New("temporarily broken")
	}
	return f.fakeSource.ListResources(ctx, cursor)
}

// TestFailedListingIsRetried: a failed listing is tried again in the
// background with back-off (requests do not wait for it), and the source
// is reported with its error until a listing succeeds.
func TestFailedListingIsRetried(t *testing.T) {
	ctx := context.Background()
	a := New(Options{Debounce: 20 * time.Millisecond, RetryMin: 20 * time.Millisecond})
	t.Cleanup(a.Close)
	f := &flakyLister{fakeSource: newFake("h", "a")}
	f.fails.Store(2)
	a.AddSource(ctx, "s", f)
	// Until a listing succeeds the source is reported with its error.
	if u := a.Unlisted(); len(u) != 1 || u["s"] == nil || !strings.Contains(u["s"].Error(), "temporarily broken") {
		t.Fatalf("Unlisted after a failed listing = %v", u)
	}
	if n := len(a.Documents(ctx)); n != 0 {
		t.Fatalf("documents = %d while listing fails", n)
	}
	if !testutil.WaitUntil(5*time.Second, func() bool { return len(a.Documents(ctx)) == 1 }) {
		t.Fatalf("the listing was not retried: %d lists, unlisted %v", f.lists.Load(), a.Unlisted())
	}
	if n := 2 - f.fails.Load(); n != 3 {
		t.Errorf("listed %d times, want 3 (two failures, then the good one)", n)
	}
	if u := a.Unlisted(); u != nil {
		t.Errorf("Unlisted after a good listing = %v", u)
	}
}

func TestRepeatingCursorIsAnError(t *testing.T) {
	a := newAgg(t, nil)
	if err := a.listAll(context.Background(), loopSource{}, func([]mcp.Resource, bool) bool { return false }); err == nil {
		t.Fatal("a cursor loop was followed forever or accepted")
	}
}

type loopSource struct{}

func (loopSource) ListResources(ctx context.Context, cursor string) ([]mcp.Resource, string, error) {
	return []mcp.Resource{{URI: "dpe://h/" + cursor + "x"}}, "again", nil
}

func (loopSource) ReadResource(ctx context.Context, uri string) ([]protocol.ResourceContents, error) {
	return nil, errors.New("no")
}

func benchIndex(b *testing.B, servers, docs int) (*Index, []*fakeSource) {
	a := New(Options{})
	var fakes []*fakeSource
	for s := range servers {
		var refs []string
		for d := range docs {
			refs = append(refs, fmt.Sprintf("doc-%04d", d))
		}
		f := newFake(fmt.Sprintf("host%02d", s), refs...)
		fakes = append(fakes, f)
		a.AddSource(context.Background(), fmt.Sprintf("server-%02d", s), f)
	}
	return a, fakes
}

func BenchmarkDocumentsWarm10x1000(b *testing.B) {
	a, _ := benchIndex(b, 10, 1000)
	defer a.Close()
	ctx := context.Background()
	a.Documents(ctx)
	b.ReportAllocs()
	for b.Loop() {
		if len(a.Documents(ctx)) != 10_000 {
			b.Fatal("wrong count")
		}
	}
}

func BenchmarkDocumentsCold10x1000(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		a, _ := benchIndex(b, 10, 1000)
		b.StartTimer()
		if len(a.Documents(ctx)) != 10_000 {
			b.Fatal("wrong count")
		}
		a.Close()
	}
}

func FuzzBuildSummary(f *testing.F) {
	f.Add(`{"doc_ref":"x","title":"T","page_count":3,"keywords":["a"],"last_modified":"2026-01-01T00:00:00Z"}`)
	f.Add(`{"doc_ref":""}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, text string) {
		s, err := buildSummary("dpe://h/x", "srv", []protocol.ResourceContents{{URI: "dpe://h/x", Text: text}})
		if err != nil {
			return
		}
		if s.URI != "dpe://h/x" || s.Server != "srv" || s.DocRef == "" || s.PageCount < 0 {
			t.Fatalf("accepted summary %+v", s)
		}
	})
}

// A catalog is not blank while its documents are read: when Level 1 reads
// are slow, Documents answers after FirstWait with entries built from the
// listing (title, summary and doc_ref from resources/list, Pending), the
// reads go on, and a Finder change is signalled when they are done; the
// next call has the full entries.
func TestDocumentsAnswerFromTheListingWhileReading(t *testing.T) {
	f := newFake("h", "a", "b")
	block := make(chan struct{})
	f.block = block
	changes := make(chan Change, 8)
	a := New(Options{FirstWait: 20 * time.Millisecond, Debounce: time.Millisecond,
		OnChange: func(c Change) { changes <- c }})
	defer a.Close()
	a.AddSource(context.Background(), "srv", f)
	for len(changes) > 0 {
		<-changes
	}
	docs := a.Documents(context.Background())
	if len(docs) != 2 {
		t.Fatalf("first answer has %d entries", len(docs))
	}
	for _, d := range docs {
		if !d.Pending || d.DocRef == "" || d.Title == "" || d.Server != "srv" || d.PageCount != 0 {
			t.Errorf("provisional entry %+v", d)
		}
	}
	close(block)
	select {
	case c := <-changes:
		if !c.Has(FinderChanged) {
			t.Errorf("change = %v", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no Finder change when the reads were done")
	}
	docs = a.Documents(context.Background())
	for _, d := range docs {
		if d.Pending || d.PageCount != 2 || d.Title != "Title "+d.DocRef {
			t.Errorf("entry after the reads %+v", d)
		}
	}
}

// provisional takes what the document server's listing says.
func TestProvisionalEntryFromListing(t *testing.T) {
	r := mcp.Resource{URI: "dpe://h/doc-1a2b3c", Name: "Handbook", Description: "Unreadable: encrypted",
		Annotated: mcp.Annotated{Annotations: &mcp.Annotations{LastModified: "2026-01-02T03:04:05Z"}},
		Meta: &mcp.Meta{AdditionalFields: map[string]any{"doc_ref": "doc-1a2b3c", "file_type": "pdf", "unreadable": "encrypted",
			"path": "docs/h.pdf", "file_uri": "file:///srv/docs/h.pdf"}}}
	d := provisional("srv", r.URI, r)
	want := protocol.DPEDocumentSummary{DocRef: "doc-1a2b3c", URI: r.URI, FileURI: "file:///srv/docs/h.pdf", FileType: "pdf", Title: "Handbook",
		Summary: "Unreadable: encrypted", Server: "srv", LastModified: "2026-01-02T03:04:05Z", Unreadable: "encrypted", Pending: true, Path: "docs/h.pdf"}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("provisional = %+v", d)
	}
}

// The reads an answer depends on go ahead of the others: with one read at
// a time and 300 documents to read, the last three of the list are read
// after a handful of others, not after all of them.
func TestSettleReadsWhatTheAnswerNeedsFirst(t *testing.T) {
	refs := make([]string, 300)
	for i := range refs {
		refs[i] = fmt.Sprintf("d%03d", i)
	}
	f := newFake("h", refs...)
	f.readDelay = 2 * time.Millisecond
	a := New(Options{Concurrency: 1, FirstWait: time.Minute})
	defer a.Close()
	a.AddSource(context.Background(), "srv", f)
	want := map[string]bool{f.doc("d297"): true, f.doc("d298"): true, f.doc("d299"): true}
	cat := a.Settle(context.Background(), false, func(docs []protocol.DPEDocumentSummary) []protocol.DPEDocumentSummary {
		var out []protocol.DPEDocumentSummary
		for _, d := range docs {
			if want[d.URI] && d.Pending {
				out = append(out, d)
			}
		}
		return out
	})
	reads := f.reads.Load()
	for _, d := range cat.Documents {
		if want[d.URI] && d.Pending {
			t.Errorf("%s still pending", d.URI)
		}
	}
	if cat.Pending == 0 || reads > 100 {
		t.Errorf("%d reads (%d entries pending) before the 3 needed were in; they were not read first", reads, cat.Pending)
	}
}

// A listing of many pages is shown as it comes: AddSource and Catalog
// return with the pages listed so far (Listing), the rest is listed in the
// background, a Finder change is signalled when it is complete, and URIs
// of the pages already listed are routed meanwhile.
func TestFirstListingIsShownAsItComes(t *testing.T) {
	refs := make([]string, 50)
	for i := range refs {
		refs[i] = fmt.Sprintf("d%02d", i)
	}
	f := newFake("h", refs...)
	f.pageSize = 10
	gate := make(chan struct{})
	f.listGate = gate
	changes := make(chan Change, 8)
	a := New(Options{ListWait: 20 * time.Millisecond, FirstWait: 20 * time.Millisecond, FilterWait: time.Minute,
		Debounce: time.Millisecond, OnChange: func(c Change) { changes <- c }})
	defer a.Close()
	ctx := context.Background()
	a.AddSource(ctx, "srv", f) // returns with the first page: the others wait on the gate
	cat := a.Catalog(ctx)
	if !cat.Listing || len(cat.Documents) != 10 {
		t.Fatalf("while listing: %d documents, listing %v", len(cat.Documents), cat.Listing)
	}
	if name, ok := a.Owner(ctx, f.doc("d03")+"/pages/0"); !ok || name != "srv" {
		t.Errorf("owner while listing = %q, %v", name, ok)
	}
	for len(changes) > 0 {
		<-changes
	}
	// A filtered answer waits for the rest of the listing.
	settled := make(chan Catalog, 1)
	go func() {
		settled <- a.Settle(ctx, true, func([]protocol.DPEDocumentSummary) []protocol.DPEDocumentSummary { return nil })
	}()
	select {
	case c := <-settled:
		t.Fatalf("a filtered answer did not wait for the listing: %d documents, listing %v", len(c.Documents), c.Listing)
	case <-time.After(50 * time.Millisecond):
	}
	close(gate)
	if c := <-settled; c.Listing || len(c.Documents) != 50 {
		t.Errorf("filtered answer: %d documents, listing %v", len(c.Documents), c.Listing)
	}
	select {
	case c := <-changes:
		if !c.Has(FinderChanged) {
			t.Errorf("change = %v", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no Finder change when the listing was complete")
	}
	if cat := a.Catalog(ctx); cat.Listing || len(cat.Documents) != 50 {
		t.Errorf("after the listing: %d documents, listing %v", len(cat.Documents), cat.Listing)
	}
	if n := f.lists.Load(); n != 5 {
		t.Errorf("%d list calls for 5 pages: a second listing started while the first was under way", n)
	}
}

// TestFailedReadsAreSummarised: when every Level 1 read fails (the
// server went down as the program stopped), the log gets one warning
// with the first document and a count of the others when the index
// closes, not a warning per document.
func TestFailedReadsAreSummarised(t *testing.T) {
	var buf syncBuffer
	a := New(Options{Debounce: 20 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	var docs []string
	for i := range 40 {
		docs = append(docs, fmt.Sprintf("d%02d", i))
	}
	f := newFake("h", docs...)
	for _, d := range docs {
		f.failRead[f.doc(d)] = true
	}
	a.AddSource(context.Background(), "s", f)
	if n := len(a.Documents(context.Background())); n != 0 {
		t.Fatalf("%d documents listed, want none", n)
	}
	a.Close()
	out := buf.String()
	if n := strings.Count(out, "document left out of the catalog"); n != 1 {
		t.Errorf("%d warnings for the failed reads, want 1:\n%s", n, out)
	}
	if !strings.Contains(out, "more documents left out of the catalog") || !strings.Contains(out, "count=39") {
		t.Errorf("no summary of the other 39 on close:\n%s", out)
	}
}

// syncBuffer is a bytes.Buffer safe for the index's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
