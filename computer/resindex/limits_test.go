package resindex

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
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
