package docserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
)

// Peeks find a document's title and summary for listing. A hostile file
// can make a reader loop (a PDF page tree that contains itself), so:
//
//   - every peek has a deadline (Options.PeekTimeout); one that does not
//     finish by then is abandoned and the file is unreadable ("took
//     longer than ...") until it changes;
//   - one peek per file version runs at a time (single flight): listings,
//     reads and completions that need it wait for the same one;
//   - peeks run on a small pool of workers, so a folder of thousands of
//     files queues work instead of starting thousands of goroutines; the
//     peek a reader waits for goes first (a listing of a folder being
//     changed queues hundreds, and a read behind them waited for all);
//   - the verdict, good or bad, is kept until the file changes, so a bad
//     file costs one deadline, not one per listing.

// metaItem is the peeked title and summary of one file version, or why
// the file cannot be peeked.
type metaItem struct {
	key  cacheKey
	meta extract.Meta
	err  error
}

// peekCall is one peek, queued or running; done is closed when item is set.
type peekCall struct {
	key      cacheKey
	e        *entry
	done     chan struct{}
	item     metaItem
	announce bool // a listing showed the file as pending: notify when done
}

// peeks holds peek verdicts per path and the peek queue.
type peeks struct {
	mu         sync.Mutex
	m          map[string]metaItem // rel → verdict of its latest peeked version
	calls      map[cacheKey]*peekCall
	queue      []*peekCall
	workers    int
	maxWorkers int
}

func newPeeks() *peeks {
	return &peeks{
		m:          map[string]metaItem{},
		calls:      map[cacheKey]*peekCall{},
		maxWorkers: max(2, runtime.GOMAXPROCS(0)),
	}
}

// get returns the verdict of a file version, if it is known.
func (p *peeks) get(k cacheKey) (metaItem, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	it, ok := p.m[k.rel]
	return it, ok && it.key == k
}

// forget drops the verdict of a path (it changed or went away).
func (p *peeks) forget(rel string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.m, rel)
}

// announceIfRunning marks a peek that has not finished to be announced
// when it does, and reports whether it had not finished.
func (p *peeks) announceIfRunning(c *peekCall) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if isDone(c.done) {
		return false
	}
	c.announce = true
	return true
}

// errTimedOut is the verdict of a peek or parse that did not finish in time.
type errTimedOut struct{ after time.Duration }

func (e errTimedOut) Error() string {
	return fmt.Sprintf("opening it took longer than %s (the file may be malformed)", e.after)
}

// startPeek returns the peek of e's version: the running or queued one, or
// a new one put on the queue (at its head when a reader waits for it:
// urgent; a queued one is moved there). It returns nil when the verdict
// is known.
func (s *Server) startPeek(e *entry, urgent bool) *peekCall {
	k := keyOf(e.fileInfo)
	p := s.peeks
	p.mu.Lock()
	defer p.mu.Unlock()
	if it, ok := p.m[k.rel]; ok && it.key == k {
		return nil
	}
	if c, ok := p.calls[k]; ok {
		if i := slices.Index(p.queue, c); urgent && i > 0 {
			copy(p.queue[1:i+1], p.queue[:i])
			p.queue[0] = c
		}
		return c
	}
	c := &peekCall{key: k, e: e, done: make(chan struct{})}
	p.calls[k] = c
	if urgent {
		p.queue = slices.Insert(p.queue, 0, c)
	} else {
		p.queue = append(p.queue, c)
	}
	if p.workers < p.maxWorkers {
		p.workers++
		go s.peekWorker()
	}
	return c
}

// peekWorker runs queued peeks until the queue is empty.
func (s *Server) peekWorker() {
	p := s.peeks
	for {
		p.mu.Lock()
		if len(p.queue) == 0 {
			p.workers--
			p.mu.Unlock()
			return
		}
		c := p.queue[0]
		p.queue[0] = nil
		p.queue = p.queue[1:]
		p.mu.Unlock()

		m, err := s.runPeek(c.e)
		s.peeksRun.Add(1)
		c.item = metaItem{key: c.key, meta: m, err: err}
		transient := err != nil && (s.baseCtx.Err() != nil || errors.Is(err, fs.ErrNotExist))
		var timedOut errTimedOut
		if !transient && !errors.As(err, &timedOut) && !errors.Is(err, fs.ErrPermission) {
			// A timeout may be the machine's load, a permission the
			// server's user: neither is kept across restarts.
			s.disk.update(c.key, func(d *diskEntry) {
				d.Peeked, d.Title, d.Summary, d.PeekErr = true, m.Title, m.Summary, ""
				if err != nil {
					d.PeekErr = unreadableReason(err)
				}
			})
		}
		p.mu.Lock()
		delete(p.calls, c.key)
		if !transient {
			p.m[c.key.rel] = c.item
		}
		close(c.done)
		announce := c.announce
		p.mu.Unlock()
		if err != nil && !transient {
			s.log.Warn("document cannot be peeked; listed as unreadable", "path", c.e.rel, "err", err)
		}
		if announce && !transient {
			s.notifyUpdated(c.e.docRef)
		}
	}
}

// runPeek peeks at one file, once the memory gate admits it, within
// PeekTimeout from then. A reader that does not return by then is
// abandoned: its goroutine is left to finish on its own (keeping its
// memory reservation) and its result is dropped.
func (s *Server) runPeek(e *entry) (extract.Meta, error) {
	if e.denied != nil {
		return extract.Meta{}, e.denied
	}
	if e.size > s.opts.MaxFileSize {
		return extract.Meta{}, fmt.Errorf("the file is %d MiB, over this server's bound of %d MiB", e.size>>20, s.opts.MaxFileSize>>20)
	}
	f, err := s.openRegular(e.rel)
	if errors.Is(err, fs.ErrPermission) {
		return extract.Meta{}, errDenied("read this file", err)
	}
	if err != nil {
		return extract.Meta{}, err
	}
	s.warmEngine(e.kind)
	release, err := s.mem.acquire(s.baseCtx, peekCost(e.kind, f, e.size, s.opts.Extract))
	if err != nil {
		f.Close()
		return extract.Meta{}, err
	}
	ctx, cancel := context.WithTimeout(s.baseCtx, s.opts.PeekTimeout)
	defer cancel()
	type result struct {
		m   extract.Meta
		err error
	}
	done := make(chan result, 1)
	s.work.Add(1)
	go func() {
		defer s.work.Done()
		defer release()
		defer f.Close()
		m, err := s.parser.Peek(ctx, s.sourceName(e.rel), f, e.size)
		done <- result{m, err}
	}()
	select {
	case r := <-done:
		if r.err != nil && ctx.Err() != nil && s.baseCtx.Err() == nil {
			return extract.Meta{}, errTimedOut{s.opts.PeekTimeout}
		}
		return r.m, r.err
	case <-ctx.Done():
		if s.baseCtx.Err() != nil {
			return extract.Meta{}, s.baseCtx.Err()
		}
		return extract.Meta{}, errTimedOut{s.opts.PeekTimeout}
	}
}

// metaOf returns the title and summary of a document for listing: from the
// parsed document when it is cached, else from its peek (run once per file
// version, waited for until ctx ends). The error is the reason a document
// cannot be listed normally: it is unreadable.
func (s *Server) metaOf(ctx context.Context, e *entry) (extract.Meta, error) {
	k := keyOf(e.fileInfo)
	if h, ok := s.docs.peek(k); ok {
		return extract.Meta{Title: h.info.Title, Summary: h.info.Summary}, nil
	}
	for {
		if it, ok := s.peeks.get(k); ok {
			return it.meta, it.err
		}
		c := s.startPeek(e, true)
		if c == nil {
			continue // finished meanwhile
		}
		select {
		case <-c.done:
			return c.item.meta, c.item.err
		case <-ctx.Done():
			return extract.Meta{}, ctx.Err()
		}
	}
}

// restorePeeks takes the peek verdicts of unchanged files from the
// on-disk cache, and drops its entries of files no longer served.
func (s *Server) restorePeeks(files map[string]fileInfo) {
	s.disk.mu.Lock()
	for rel := range s.disk.entries {
		if _, ok := files[rel]; !ok {
			delete(s.disk.entries, rel)
			s.disk.dirty = true
		}
	}
	s.disk.mu.Unlock()
	s.peeks.mu.Lock()
	defer s.peeks.mu.Unlock()
	for _, f := range files {
		k := keyOf(f)
		d, ok := s.disk.get(k)
		if !ok || !d.Peeked {
			continue
		}
		it := metaItem{key: k, meta: extract.Meta{Title: d.Title, Summary: d.Summary}}
		if d.PeekErr != "" {
			it.err = errors.New(d.PeekErr)
		}
		s.peeks.m[f.rel] = it
	}
}
