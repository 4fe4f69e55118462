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

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
	"github.com/smcp-browse/smcp-browse/protocol"
)

func TestRewriteWriter(t *testing.T) {
	l := newErrorLedger()
	l.m[ledgerKey(stdioSessionID, mcp.NewRequestId(float64(7)))] = &RPCError{Code: 4202, Message: "page 9 is out of range", Data: map[string]any{"page_index": 9}}
	l.order = append(l.order, ledgerKey(stdioSessionID, mcp.NewRequestId(float64(7))))
	var out strings.Builder
	w := &rewriteWriter{out: &out, ledger: l}
	errLine := `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"x"}}`
	other := `{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"no such method"}}`
	ok := `{"jsonrpc":"2.0","id":9,"result":{}}`
	// One message split over writes, two joined in one write.
	for _, chunk := range []string{errLine[:10], errLine[10:] + "\n" + other + "\n", ok + "\n"} {
		if _, err := w.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("lines = %q", lines)
	}
	if lines[0] != `{"jsonrpc":"2.0","id":7,"error":{"code":4202,"message":"page 9 is out of range","data":{"page_index":9}}}` {
		t.Errorf("rewritten = %s", lines[0])
	}
	if lines[1] != other || lines[2] != ok {
		t.Errorf("untouched lines changed: %q", lines[1:])
	}
	if len(l.m) != 0 {
		t.Error("ledger entry not consumed")
	}
}

func TestLedgerHookAndBound(t *testing.T) {
	l := newErrorLedger()
	ctx := context.Background()
	l.hook(ctx, float64(1), "resources/read", nil, errors.New("plain errors are not recorded"))
	l.hook(ctx, nil, "resources/read", nil, protocol.NewError(4201, "notifications have no id"))
	if len(l.m) != 0 {
		t.Fatalf("recorded %d", len(l.m))
	}
	for i := 0; i < ledgerMax+10; i++ {
		l.hook(ctx, float64(i), "resources/read", nil, protocol.NewError(4201, "x"))
	}
	if len(l.m) != ledgerMax || len(l.order) != ledgerMax {
		t.Errorf("ledger holds %d/%d, bound %d", len(l.m), len(l.order), ledgerMax)
	}
	if _, ok := l.take("", mcp.NewRequestId(float64(0))); ok {
		t.Error("the oldest entry should have been evicted")
	}
	if re, ok := l.take("", mcp.NewRequestId(float64(ledgerMax+9))); !ok || re.Code != 4201 {
		t.Error("newest entry missing")
	}
}

func TestDocCacheLoadsOnceAndEvicts(t *testing.T) {
	c := newDocCache(2, 1<<30)
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

// The parse cache is bounded by bytes as well as by count: it used to keep
// 64 documents whatever their size.
func TestDocCacheIsBoundedByBytes(t *testing.T) {
	big := func() (*extract.Document, error) {
		rows := make([][]string, 20_000)
		for i := range rows {
			rows[i] = []string{strings.Repeat("x", 100)}
		}
		return &extract.Document{Pages: []extract.Page{{Elements: []extract.Element{{Content: map[string]any{"rows": rows}}}}}}, nil
	}
	d, _ := big()
	size := d.EstimatedBytes()
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
