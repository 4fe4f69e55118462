package docserver

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// A PDF is opened once per file version (page count, outline, metadata
// and a profile learnt from a dozen sampled pages, which are kept as read:
// enough for Level 0 and Level 1, and for a page index — depth=pages —
// that reads no page: see summaries) and its pages are read on one worker
// goroutine, in this order:
//
//  1. pages a reader is waiting for, oldest request first;
//  2. the neighbours of the last page asked for (the next two and the one
//     before), so that turning the page finds it read;
//  3. when something needs the whole document (WholeDocument: search,
//     indexing), every other page in order, within ParseTimeout of engine
//     time and the output budget.
//
// A page a reader asks for therefore waits at most for the one page being
// read. Pages are cached with the document. The engine instance (and its
// memory reservation) is kept for pdfLinger after the last page so that
// the next page turn does not reopen the file, and given back at once
// when another read waits for memory.

// pdfLinger is how long an idle PDF keeps its engine instance.
const pdfLinger = 3 * time.Second

// lazyPDF is an open PDF whose pages are read as they are asked for.
type lazyPDF struct {
	s     *Server
	rel   string
	info  extract.PDFInfo
	marks map[int][]extract.OutlineEntry // the bookmarks, by page
	cost  int64                          // the memory reservation of an attached engine
	src   int64                          // the file's size (held in memory to re-attach)

	eng     sync.Mutex // held while the engine works: f and release
	f       *extract.PDF
	release func() // gives back the memory reservation; nil when detached

	mu       sync.Mutex
	slots    map[int]*pageSlot
	demand   []int // pages readers wait for
	prefetch []int // neighbours of the last page asked for
	all      *wholeRead
	running  bool // the worker runs
	closed   bool // dropped from the cache: no lingering
	bytes    int64
	linger   *time.Timer
}

// pageSlot is one page: read when done is closed.
type pageSlot struct {
	done chan struct{}
	page extract.Page
	err  error
}

// wholeRead is the background read of every page.
type wholeRead struct {
	done      chan struct{}
	next      int           // the pages before it are read
	spent     time.Duration // engine time spent on it
	err       error
	truncated bool
}

// openPDF opens a PDF file version (see lazyPDF), once the memory gate
// admits it, within ParseTimeout.
func (s *Server) openPDF(f fileInfo) (*handle, error) {
	file, err := s.openRegular(f.rel)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	s.warmEngine(f.kind)
	cost := readCost(f.kind, file, f.size, s.opts.Extract)
	release, err := s.mem.acquire(s.baseCtx, cost)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(file, s.opts.MaxFileSize+1))
	if err == nil && int64(len(data)) > s.opts.MaxFileSize {
		err = fmt.Errorf("file is larger than %d bytes", s.opts.MaxFileSize)
	}
	if err != nil {
		release()
		return nil, fmt.Errorf("read: %w", err)
	}
	ctx, cancel := context.WithTimeout(s.baseCtx, s.opts.ParseTimeout)
	defer cancel()
	s.work.Add(1)
	defer s.work.Done()
	pdf, err := s.parser.OpenPDF(ctx, extract.Source{Name: s.sourceName(f.rel), Data: data})
	if err != nil {
		release()
		if ctx.Err() != nil && s.baseCtx.Err() == nil {
			return nil, errTimedOut{s.opts.ParseTimeout}
		}
		return nil, fmt.Errorf("parse pdf: %w", err)
	}
	sampled, err := pdf.SampledPages(ctx)
	if err != nil {
		pdf.Close()
		release()
		return nil, fmt.Errorf("parse pdf: %w", err)
	}
	pi := pdf.Info()
	l := &lazyPDF{s: s, rel: f.rel, info: pi, marks: pi.BookmarksByPage(), cost: cost, src: int64(len(data)), f: pdf, release: release, slots: map[int]*pageSlot{}}
	for i, pg := range sampled {
		done := make(chan struct{})
		close(done)
		l.slots[i] = &pageSlot{done: done, page: pg}
		l.bytes += pageBytes(pg)
	}
	s.attachedPDFs.add(l)
	l.mu.Lock()
	l.idleLocked()
	l.mu.Unlock()
	return &handle{
		info: &docInfo{Title: pi.Title, Summary: pi.Summary, Keywords: pi.Keywords, Pages: pi.Pages, Truncated: pi.Truncated, Cut: pi.Cut},
		pdf:  l,
	}, nil
}

// page returns page i, asking for its neighbours too.
func (l *lazyPDF) page(ctx context.Context, i int) (extract.Page, error) {
	l.mu.Lock()
	slot := l.askLocked(i)
	l.prefetch = l.prefetch[:0]
	for _, n := range []int{i + 1, i + 2, i - 1} {
		if n >= 0 && n < l.info.Pages && l.slots[n] == nil {
			l.prefetch = append(l.prefetch, n)
		}
	}
	l.startLocked()
	l.mu.Unlock()
	return slot.wait(ctx)
}

// pages returns pages [from, to), all asked for at once.
func (l *lazyPDF) pages(ctx context.Context, from, to int) ([]extract.Page, error) {
	l.mu.Lock()
	slots := make([]*pageSlot, 0, to-from)
	for i := from; i < to; i++ {
		slots = append(slots, l.askLocked(i))
	}
	l.startLocked()
	l.mu.Unlock()
	out := make([]extract.Page, 0, len(slots))
	for _, s := range slots {
		pg, err := s.wait(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, pg)
	}
	return out, nil
}

// pageSummary is what a page index says of a page.
type pageSummary struct {
	title     string
	elements  int // protocol.ElementsNotCounted for a page not read
	bookmarks []extract.OutlineEntry
}

// summaries describes pages [from, to) from what is known without reading
// any: a page read (or sampled) has its title and element count; another
// is titled by the outline (the title its read gives it) or "Page N", its
// elements not counted yet.
func (l *lazyPDF) summaries(from, to int) []pageSummary {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]pageSummary, 0, max(to-from, 0))
	for i := from; i < to; i++ {
		ps := pageSummary{title: l.info.UnreadPageTitle(i), elements: protocol.ElementsNotCounted, bookmarks: l.marks[i]}
		if slot := l.slots[i]; slot != nil && isDone(slot.done) && slot.err == nil {
			ps.title, ps.elements = slot.page.Title, len(slot.page.Elements)
		}
		out = append(out, ps)
	}
	return out
}

// bookmarkCount is the number of bookmarks that point to a page.
func (l *lazyPDF) bookmarkCount() int {
	n := 0
	for _, m := range l.marks {
		n += len(m)
	}
	return n
}

// whole returns the document with every page, starting the background
// read of all pages if it is not running.
func (l *lazyPDF) whole(ctx context.Context) (*extract.Document, error) {
	l.mu.Lock()
	if l.all == nil {
		l.all = &wholeRead{done: make(chan struct{})}
		l.startLocked()
	}
	all := l.all
	l.mu.Unlock()
	select {
	case <-all.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if all.err != nil {
		return nil, all.err
	}
	doc := &extract.Document{Title: l.info.Title, Summary: l.info.Summary, Keywords: l.info.Keywords, Truncated: l.info.Truncated || all.truncated, Cut: l.info.Cut}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := 0; i < all.next; i++ {
		doc.Pages = append(doc.Pages, l.slots[i].page)
	}
	return doc, nil
}

// askLocked returns the slot of page i, queueing its read when it is not
// read (l.mu held).
func (l *lazyPDF) askLocked(i int) *pageSlot {
	slot := l.slots[i]
	if slot == nil {
		slot = &pageSlot{done: make(chan struct{})}
		l.slots[i] = slot
		l.demand = append(l.demand, i)
	}
	return slot
}

// wait waits for the page to be read or ctx to end.
func (p *pageSlot) wait(ctx context.Context) (extract.Page, error) {
	select {
	case <-p.done:
		return p.page, p.err
	case <-ctx.Done():
		return extract.Page{}, ctx.Err()
	}
}

// startLocked starts the worker if it does not run (l.mu held).
func (l *lazyPDF) startLocked() {
	if l.running {
		return
	}
	l.running = true
	if l.linger != nil {
		l.linger.Stop()
		l.linger = nil
	}
	l.s.work.Add(1)
	go l.run()
}

// run reads pages until there is nothing to read.
func (l *lazyPDF) run() {
	defer l.s.work.Done()
	for {
		i, slot, background, ok := l.next()
		if !ok {
			return
		}
		start := time.Now()
		pg, err := l.read(i)
		l.finish(slot, pg, err, background, time.Since(start))
	}
}

// next picks the next page to read, or stops the worker.
func (l *lazyPDF) next() (int, *pageSlot, bool, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.demand) > 0 {
		i := l.demand[0]
		l.demand = l.demand[1:]
		if s := l.slots[i]; !isDone(s.done) {
			return i, s, false, true
		}
	}
	for len(l.prefetch) > 0 {
		i := l.prefetch[0]
		l.prefetch = l.prefetch[1:]
		if l.slots[i] == nil {
			s := &pageSlot{done: make(chan struct{})}
			l.slots[i] = s
			return i, s, false, true
		}
	}
	if all := l.all; all != nil && !isDone(all.done) {
		for all.next < l.info.Pages {
			s := l.slots[all.next]
			if s != nil && isDone(s.done) {
				all.next++
				continue
			}
			if s == nil {
				s = &pageSlot{done: make(chan struct{})}
				l.slots[all.next] = s
			}
			return all.next, s, true, true
		}
		close(all.done)
	}
	l.running = false
	l.idleLocked()
	return 0, nil, false, false
}

// read reads page i on the engine, attaching it (within the memory
// gate) if needed.
func (l *lazyPDF) read(i int) (extract.Page, error) {
	l.eng.Lock()
	defer l.eng.Unlock()
	if l.release == nil {
		release, err := l.s.mem.acquire(l.s.baseCtx, l.cost)
		if err != nil {
			return extract.Page{}, err
		}
		l.release = release
		l.s.attachedPDFs.add(l)
	}
	ctx, cancel := context.WithTimeout(l.s.baseCtx, l.s.opts.ParseTimeout)
	defer cancel()
	pg, err := l.f.Page(ctx, i)
	if err != nil && ctx.Err() != nil && l.s.baseCtx.Err() == nil {
		err = errTimedOut{l.s.opts.ParseTimeout}
	}
	if err != nil {
		l.s.log.Warn("pdf page cannot be read", "path", l.rel, "page", i, "err", err)
	}
	return pg, err
}

// finish records a page read.
func (l *lazyPDF) finish(slot *pageSlot, pg extract.Page, err error, background bool, took time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	slot.page, slot.err = pg, err
	if err == nil {
		l.bytes += pageBytes(pg)
	}
	close(slot.done)
	all := l.all
	if all == nil || isDone(all.done) {
		return
	}
	if background {
		all.spent += took
	}
	switch {
	case err != nil && background:
		all.err = err
	case all.spent > l.s.opts.ParseTimeout:
		all.err = errTimedOut{l.s.opts.ParseTimeout}
	case l.bytes > l.s.opts.Extract.MaxOutputBytes && l.s.opts.Extract.MaxOutputBytes > 0:
		all.truncated = true
	default:
		return
	}
	if all.err == nil {
		// Cut short by the output budget: the pages read so far, in order.
		for all.next < l.info.Pages && l.slots[all.next] != nil && isDone(l.slots[all.next].done) {
			all.next++
		}
	}
	close(all.done)
}

// pageBytes estimates the memory of a page.
func pageBytes(pg extract.Page) int64 {
	d := extract.Document{Pages: []extract.Page{pg}}
	return d.EstimatedBytes()
}

// idleLocked arms the detach of an idle engine (l.mu held).
func (l *lazyPDF) idleLocked() {
	if l.linger != nil {
		l.linger.Stop()
	}
	wait := l.s.opts.pdfLinger
	if l.closed || l.s.baseCtx.Err() != nil || l.s.mem.waiting.Load() > 0 {
		// Dropped from the cache, the server is closing, or another read
		// waits for memory this one holds (a scan over several PDFs
		// waited out each one's linger).
		wait = 0
	}
	l.linger = time.AfterFunc(wait, func() { l.detachIfIdle() })
}

// detachIfIdle gives back the engine instance and its memory reservation
// unless the worker is reading; it reports whether it did.
func (l *lazyPDF) detachIfIdle() bool {
	if !l.eng.TryLock() {
		return false
	}
	defer l.eng.Unlock()
	l.mu.Lock()
	busy := l.running
	l.mu.Unlock()
	if busy || l.release == nil {
		return false
	}
	l.f.Detach()
	l.release()
	l.release = nil
	l.s.attachedPDFs.remove(l)
	return true
}

// close is called when the cache drops the document: reads in progress
// finish, and the engine is given back as soon as the worker is idle.
func (l *lazyPDF) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	l.prefetch = nil
	if !l.running {
		l.idleLocked()
	}
}

// estimatedBytes is the memory the PDF holds: its file and its pages.
func (l *lazyPDF) estimatedBytes() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.src + l.bytes
}

// attachedPDFs are the lazy PDFs holding an engine instance, which give
// it back when another read waits for memory.
type attachedPDFs struct {
	mu  sync.Mutex
	set map[*lazyPDF]struct{}
}

func (a *attachedPDFs) add(l *lazyPDF) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.set == nil {
		a.set = map[*lazyPDF]struct{}{}
	}
	a.set[l] = struct{}{}
}

func (a *attachedPDFs) remove(l *lazyPDF) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.set, l)
}

// reclaim detaches the idle ones and reports whether any was.
func (a *attachedPDFs) reclaim() bool {
	a.mu.Lock()
	ls := make([]*lazyPDF, 0, len(a.set))
	for l := range a.set {
		ls = append(ls, l)
	}
	a.mu.Unlock()
	freed := false
	for _, l := range ls {
		freed = l.detachIfIdle() || freed
	}
	return freed
}
