package docserver

import (
	"container/list"
	"context"
	"errors"
	"io/fs"
	"sync"
)

// cacheKey identifies one version of one file.
type cacheKey struct {
	rel    string
	size   int64
	mtime  int64 // UnixNano
	access access
}

func keyOf(f fileInfo) cacheKey {
	return cacheKey{rel: f.rel, size: f.size, mtime: f.mtime.UnixNano(), access: f.access}
}

// docCache keeps the most recently used documents (handles: parsed
// documents and PDFs open for page reads), keyed by (path, size, mtime),
// so an edited file is re-read on its next read. It is bounded by their
// number and by their estimated bytes, measured again whenever one is
// added (a PDF's grows as its pages are read): 64 documents of 100k rows
// each would otherwise stay in memory. Concurrent loads of the same key
// share one load. Failures are cached too, so a corrupt file is not
// re-parsed on every read until it changes. A dropped handle is closed.
type docCache struct {
	mu       sync.Mutex
	max      int
	maxBytes int64
	bytes    int64
	lru      *list.List // of *cacheItem, front = most recent
	items    map[cacheKey]*list.Element
	calls    map[cacheKey]*loadCall
}

type cacheItem struct {
	key  cacheKey
	h    *handle
	err  error
	size int64
}

type loadCall struct {
	done chan struct{}
	h    *handle
	err  error
}

func newDocCache(max int, maxBytes int64) *docCache {
	return &docCache{max: max, maxBytes: maxBytes, lru: list.New(), items: map[cacheKey]*list.Element{}, calls: map[cacheKey]*loadCall{}}
}

// peek returns a cached document without loading it.
func (c *docCache) peek(k cacheKey) (*handle, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		it := el.Value.(*cacheItem)
		return it.h, it.err == nil
	}
	return nil, false
}

// get returns the document for k, calling load once when it is missing.
// A caller whose context ends stops waiting; the load goes on for others.
func (c *docCache) get(ctx context.Context, k cacheKey, load func() (*handle, error)) (*handle, error) {
	c.mu.Lock()
	if el, ok := c.items[k]; ok {
		c.lru.MoveToFront(el)
		it := el.Value.(*cacheItem)
		c.mu.Unlock()
		return it.h, it.err
	}
	call, running := c.calls[k]
	if !running {
		call = &loadCall{done: make(chan struct{})}
		c.calls[k] = call
		go func() {
			call.h, call.err = load()
			c.mu.Lock()
			delete(c.calls, k)
			// A file that went away between its stat and its open is no
			// verdict on that version: it may come back.
			if call.err == nil || !isContextErr(call.err) && !errors.Is(call.err, fs.ErrNotExist) {
				c.store(k, call.h, call.err)
			}
			c.mu.Unlock()
			close(call.done)
		}()
	}
	c.mu.Unlock()
	select {
	case <-call.done:
		return call.h, call.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// store adds an item (c.mu held), evicting the least recently used ones.
// A document larger than the whole byte bound is not kept.
func (c *docCache) store(k cacheKey, h *handle, err error) {
	size := int64(64)
	if h != nil {
		size = h.estimatedBytes()
	}
	if size > c.maxBytes {
		if h != nil {
			h.close()
		}
		return
	}
	c.items[k] = c.lru.PushFront(&cacheItem{key: k, h: h, err: err, size: size})
	c.bytes = 0
	for el := c.lru.Front(); el != nil; el = el.Next() {
		it := el.Value.(*cacheItem)
		if it.h != nil {
			it.size = it.h.estimatedBytes()
		}
		c.bytes += it.size
	}
	for c.lru.Len() > c.max || c.bytes > c.maxBytes {
		c.remove(c.lru.Back())
	}
}

// remove drops one item (c.mu held).
func (c *docCache) remove(el *list.Element) {
	it := el.Value.(*cacheItem)
	c.lru.Remove(el)
	delete(c.items, it.key)
	c.bytes -= it.size
	if it.h != nil {
		it.h.close()
	}
}

// forget drops every cached version of a path.
func (c *docCache) forget(rel string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, el := range c.items {
		if k.rel == rel {
			c.remove(el)
		}
	}
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
