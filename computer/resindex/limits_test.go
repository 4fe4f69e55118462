package resindex

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
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
		for deadline := time.Now().Add(5 * time.Second); big.lists.Load() < int64(4+2*i); {
			if time.Now().After(deadline) {
				t.Fatalf("no listing after list_changed %d", i+1)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	time.Sleep(50 * time.Millisecond) // the last listing's end
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
	deadline := time.Now().Add(5 * time.Second)
	for len(a.Documents(ctx)) != 2 {
		if time.Now().After(deadline) {
			t.Fatal("the last list change was lost")
		}
		time.Sleep(10 * time.Millisecond)
	}
	n := f.lists.Load() - lists0
	t.Logf("%d listings for a flood of list_changed over %v", n, elapsed.Round(time.Millisecond))
	if max := int64(elapsed/(50*time.Millisecond)) + 3; n > max {
		t.Errorf("%d listings, want at most %d (one per 50 ms)", n, max)
	}
}
