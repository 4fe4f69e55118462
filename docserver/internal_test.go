package docserver

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
)

func TestDocCacheLoadsOnceAndEvicts(t *testing.T) {
	c := newDocCache(2)
	var loads atomic.Int32
	load := func() (*extract.Document, error) {
		loads.Add(1)
		time.Sleep(20 * time.Millisecond)
		return &extract.Document{Title: "x"}, nil
	}
	k := cacheKey{rel: "a", size: 1, mtime: 1}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d, err := c.get(context.Background(), k, load); err != nil || d.Title != "x" {
				t.Error(d, err)
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
	fail := func() (*extract.Document, error) { loads.Add(1); return nil, errors.New("corrupt") }
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
	slow := func() (*extract.Document, error) { time.Sleep(200 * time.Millisecond); return &extract.Document{}, nil }
	if _, err := c.get(ctx, cacheKey{rel: "slow"}, slow); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v", err)
	}
}
