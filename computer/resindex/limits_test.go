package resindex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// TestListingIsCappedPerServer: past MaxEntries a server's listing is cut
// short (no further page is asked for), with one warning however often it
// is listed again, and the other servers are untouched.
func TestListingIsCappedPerServer(t *testing.T) {
	ctx := context.Background()
	var logs bytes.Buffer
	a := New(Options{MaxEntries: 15, Debounce: 10 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	t.Cleanup(a.Close)
	var refs []string
	for i := range 40 {
		refs = append(refs, fmt.Sprintf("d%02d", i))
	}
	big := newFake("big.host", refs...)
	big.pageSize = 10
	a.AddSource(ctx, "big", big)
	a.AddSource(ctx, "small", newFake("small.host", "a", "b"))
	docs := a.Documents(ctx)
	n := map[string]int{}
	for _, d := range docs {
		n[d.Server]++
	}
	if n["big"] != 15 || n["small"] != 2 {
		t.Errorf("documents per server = %v, want big 15 and small 2", n)
	}
	if got := big.lists.Load(); got != 2 {
		t.Errorf("%d pages asked for, want 2 (the cap is reached in the second)", got)
	}
	for i := range 3 {
		a.ResourceListChanged("big")
		testutil.Eventually(t, 5*time.Second, fmt.Sprintf("a listing after list_changed %d", i+1), func() bool { return big.lists.Load() >= int64(4+2*i) })
	}
	a.mu.Lock()
	done := a.sources["big"].listDone // the last listing's
	a.mu.Unlock()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the last listing never ended")
	}
	if c := strings.Count(logs.String(), "listing cut short"); c != 1 {
		t.Errorf("the cut was logged %d times, want once:\n%s", c, logs.String())
	}
}

// TestListChangedFloodIsCoalesced: a server that says its list changed
// thousands of times a second is listed at most once per RelistGap, and
// the listing after the flood still sees its last list.
func TestListChangedFloodIsCoalesced(t *testing.T) {
	ctx := context.Background()
	a := New(Options{RelistGap: 50 * time.Millisecond, Debounce: 10 * time.Millisecond})
	t.Cleanup(a.Close)
	f := newFake("h", "a")
	a.AddSource(ctx, "s", f)
	lists0 := f.lists.Load()
	start := time.Now()
	for time.Since(start) < 500*time.Millisecond {
		for range 100 {
			a.ResourceListChanged("s")
		}
		time.Sleep(time.Millisecond)
	}
	f.set(f.doc("a"), f.doc("last"))
	a.ResourceListChanged("s")
	elapsed := time.Since(start)
	testutil.Eventually(t, 5*time.Second, "the last list change taken", func() bool { return len(a.Documents(ctx)) == 2 })
	n := f.lists.Load() - lists0
	t.Logf("%d listings for a flood of list_changed over %v", n, elapsed.Round(time.Millisecond))
	if max := int64(elapsed/(50*time.Millisecond)) + 3; n > max {
		t.Errorf("%d listings, want at most %d (one per 50 ms)", n, max)
	}
}

// namedSource lists fixed resources (names and all) and reads a document
// titled as its listing named it.
type namedSource struct{ res []mcp.Resource }

func (s namedSource) ListResources(ctx context.Context, cursor string) ([]mcp.Resource, string, error) {
	return s.res, "", nil
}

func (s namedSource) ReadResource(ctx context.Context, uri string) ([]protocol.ResourceContents, error) {
	for _, r := range s.res {
		if r.URI == uri {
			b, _ := json.Marshal(protocol.DPEDocument{DocRef: "d", URI: uri, Title: r.Name, Summary: r.Description, PageCount: 1})
			return []protocol.ResourceContents{{URI: uri, Text: string(b)}}, nil
		}
	}
	return nil, errors.New("no such resource")
}

// TestBadListedEntriesAreRejected: URIs that break the dpe:// rules
// (4204), carry control characters or are not UTF-8 are left out of the
// catalog, the Desktop and routing, with one warning; names of any length
// are cut to a bound.
func TestBadListedEntriesAreRejected(t *testing.T) {
	ctx := context.Background()
	var logs bytes.Buffer
	a := New(Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	t.Cleanup(a.Close)
	bad := []string{
		"dpe://h/..", "dpe://h/%2e%2e", "dpe://h/./pages/1", "dpe://h/esc\x1b[2Jcape", "dpe://h/nul\x00byte",
		"dpe://h/bad%ffutf8", "dpe://h/raw\xff", "dpe://h/csi\u009b31m", "dpe://h\x1b/x", "dpe:///nohost",
		"window://h/w\x1b]0;owned\x07", "window:///nohost", "custom://x/\x00", "dpe://h/" + strings.Repeat("x", MaxURIBytes),
	}
	var res []mcp.Resource
	for _, u := range bad {
		res = append(res, mcp.Resource{URI: u, Name: "bad"})
	}
	long := strings.Repeat("long name ", 1024)
	res = append(res, mcp.Resource{URI: "dpe://h/good", Name: long, Description: long}, mcp.Resource{URI: "window://h/ok", Name: "ok"})
	a.AddSource(ctx, "s", namedSource{res})
	docs := a.Documents(ctx)
	if len(docs) != 1 || docs[0].URI != "dpe://h/good" {
		t.Fatalf("documents = %v, want only dpe://h/good", uris(docs))
	}
	if len(docs[0].Title) > MaxTitleBytes+len("…") || len(docs[0].Summary) > MaxSummaryBytes+len("…") || !strings.HasSuffix(docs[0].Title, "…") {
		t.Errorf("a 10 KB name is %d bytes in the catalog (summary %d)", len(docs[0].Title), len(docs[0].Summary))
	}
	if w := a.Windows(ctx); len(w) != 1 || w[0].URI != "window://h/ok" {
		t.Errorf("windows = %+v", w)
	}
	// (URIs of host h are routed to its owner, which answers for itself.)
	for _, u := range []string{"custom://x/\x00", "window:///nohost", "dpe:///nohost", "dpe://h\x1b/x"} {
		if got, ok := a.Owner(ctx, u); ok {
			t.Errorf("Owner(%q) = %q, want none", u, got)
		}
	}
	if n := strings.Count(logs.String(), "listed entries rejected"); n != 1 || !strings.Contains(logs.String(), "entries="+strconv.Itoa(len(bad))) {
		t.Errorf("rejections logged %d times, want once with their count:\n%s", n, logs.String())
	}
	if strings.ContainsAny(logs.String(), "\x00\x1b\u009b") {
		t.Errorf("the log holds control characters:\n%q", logs.String())
	}
}
