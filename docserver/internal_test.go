package docserver

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
)

func TestDocCacheLoadsOnceAndEvicts(t *testing.T) {
	c := newDocCache(2, 1<<30)
	var loads atomic.Int32
	load := func() (*handle, error) {
		loads.Add(1)
		time.Sleep(20 * time.Millisecond)
		return parsedHandle(&extract.Document{Title: "x"}), nil
	}
	k := cacheKey{rel: "a", size: 1, mtime: 1}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if h, err := c.get(context.Background(), k, load); err != nil || h.info.Title != "x" {
				t.Error(h, err)
			}
		}()
	}
	wg.Wait()
	if n := loads.Load(); n != 1 {
		t.Errorf("%d loads for 8 concurrent readers", n)
	}
	c.get(context.Background(), cacheKey{rel: "b"}, load)
	c.get(context.Background(), cacheKey{rel: "c"}, load)
	if _, ok := c.peek(k); ok {
		t.Error("least recently used entry not evicted")
	}
	// A failed load is cached too (a corrupt file is not re-parsed).
	fail := func() (*handle, error) { loads.Add(1); return nil, errors.New("corrupt") }
	before := loads.Load()
	for i := 0; i < 3; i++ {
		if _, err := c.get(context.Background(), cacheKey{rel: "bad"}, fail); err == nil {
			t.Error("no error")
		}
	}
	if loads.Load()-before != 1 {
		t.Errorf("failed load retried %d times", loads.Load()-before)
	}
	// A reader whose context ends stops waiting.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	slow := func() (*handle, error) {
		time.Sleep(200 * time.Millisecond)
		return parsedHandle(&extract.Document{}), nil
	}
	if _, err := c.get(ctx, cacheKey{rel: "slow"}, slow); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v", err)
	}
}

// The parse cache is bounded by bytes as well as by count: it used to keep
// 64 documents whatever their size.
func TestDocCacheIsBoundedByBytes(t *testing.T) {
	big := func() (*handle, error) {
		rows := make([][]string, 20_000)
		for i := range rows {
			rows[i] = []string{strings.Repeat("x", 100)}
		}
		return parsedHandle(&extract.Document{Pages: []extract.Page{{Elements: []extract.Element{{Content: map[string]any{"rows": rows}}}}}}), nil
	}
	h, _ := big()
	size := h.estimatedBytes()
	if size < 2<<20 {
		t.Fatalf("a 20,000-row table is estimated at %d bytes", size)
	}
	c := newDocCache(64, 5*size/2) // room for two
	for i := range 5 {
		c.get(context.Background(), cacheKey{rel: strconv.Itoa(i)}, big)
	}
	c.mu.Lock()
	n, bytes := c.lru.Len(), c.bytes
	c.mu.Unlock()
	if n != 2 || bytes > 5*size/2 {
		t.Errorf("cache holds %d documents, %d bytes (bound %d)", n, bytes, 5*size/2)
	}
	if _, ok := c.peek(cacheKey{rel: "4"}); !ok {
		t.Error("newest document evicted")
	}
	// A document larger than the whole bound is not kept.
	small := newDocCache(64, size/2)
	small.get(context.Background(), cacheKey{rel: "x"}, big)
	if _, ok := small.peek(cacheKey{rel: "x"}); ok {
		t.Error("document larger than the bound kept")
	}
}
