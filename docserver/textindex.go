package docserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
	"github.com/smcp-browse/smcp-browse/docserver/fulltext"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// The full-text index (package fulltext) holds the text of every page as
// format=text shows it, NFKC-normalised (extract.SearchForm), in a Bleve
// index beside the catalog cache ($XDG_CACHE_HOME/smcp-browse/docs/
// <folder>.search), keyed by each file's size and modification time so an
// unchanged file is never extracted again. It is built in the background
// once the catalog has been listed (or a search asks, or a few seconds
// after Start), one document at a time, giving way to reads in progress;
// the watcher's changes go to the front of its queue. Its progress and
// size are in every dpe_search answer.
//
// Bounds: a document's text is indexed up to indexMaxDocText (its later
// pages are searched by scanning), a batch holds at most indexBatchText of
// text, and extraction goes through the same memory gate, size bound and
// deadline as a read.

// Bounds and timing of the index build.
const (
	indexMaxDocText  = 8 << 20
	indexBatchText   = 1 << 20
	indexBatchDocs   = 128
	indexWriters     = 2
	indexStartDelay  = 3 * time.Second
	indexYieldMax    = 2 * time.Second
	indexProgressLog = 10 * time.Second
	// indexCompactAfter is how many documents the builds write before the
	// index is compacted, once it is ready (see compact).
	indexCompactAfter = 1000
)

// indexForm names what indexDoc puts in the index beyond the extracted
// text: a change to it builds the index again. 1: a plain text's first
// line as text, not as a title.
const indexForm = "form-1"

// Index states reported in IndexStatus.State.
const (
	IndexOpening  = protocol.IndexOpening
	IndexBuilding = protocol.IndexBuilding
	IndexReady    = protocol.IndexReady
	IndexOff      = protocol.IndexOff // the index could not be opened: every search scans
	IndexHeld     = protocol.IndexHeld
)

// IndexStatus is how far the full-text index is built, and its size (the
// index of dpe_search's result).
type IndexStatus = protocol.DPEIndexStatus

// textIndex builds and keeps the full-text index of a Server.
type textIndex struct {
	s      *Server
	dir    string // "" in memory
	schema string

	texts   *textCache
	ready   chan struct{} // closed once ft is set (or failed)
	ft      *fulltext.Index
	started atomic.Bool
	listed  chan struct{} // closed by the first listing or search
	once    sync.Once
	wake    chan struct{}
	done    chan struct{}

	mu       sync.Mutex
	touched  map[string]bool   // paths the watcher changed, indexed first
	failed   map[string]string // rel → version whose parse timed out (not retried)
	state    string
	indexed  int
	total    int
	reading  atomic.Int64                    // reads in progress: the build gives way to them
	held     atomic.Bool                     // another process holds the index: searches do not wait for it
	remote   atomic.Pointer[fulltext.Remote] // that process's index, while it shares it
	note     string                          // why searches scan (off, held)
	lastStat fulltext.Stats
	// The build's pace: when it began building and how many documents
	// were indexed then.
	buildStart time.Time
	buildBase  int
	// written counts the documents written since the last compaction;
	// compacting is set while one runs, in bg.
	written    int
	compacting atomic.Bool
	bg         sync.WaitGroup
	lastLog    time.Time // of the build's progress
}

func newTextIndex(s *Server, cacheDir string) *textIndex {
	t := &textIndex{
		s: s, state: IndexOpening,
		schema: fmt.Sprintf("extract-%d/%+v", diskCacheVersion, s.opts.Extract),
		ready:  make(chan struct{}), listed: make(chan struct{}), wake: make(chan struct{}, 1), done: make(chan struct{}),
		touched: map[string]bool{}, failed: map[string]string{},
	}
	textDir := ""
	if cacheDir != "" {
		t.dir = filepath.Join(cacheDir, cacheName(s.rootDir, s.host)+".search")
		textDir = filepath.Join(cacheDir, cacheName(s.rootDir, s.host)+".text")
	}
	t.texts = newTextCache(textDir, t.schema, s.log)
	return t
}

// start runs the index's goroutine (once).
func (t *textIndex) start(ctx context.Context) {
	if t.started.Swap(true) {
		return
	}
	go t.run(ctx)
}

// markListed says the catalog has been listed: the build may start.
func (t *textIndex) markListed() { t.once.Do(func() { close(t.listed) }) }

// touch queues paths the watcher saw change (or appear, or go).
func (t *textIndex) touch(rels []string) {
	if len(rels) == 0 {
		return
	}
	t.mu.Lock()
	for _, r := range rels {
		t.touched[r] = true
	}
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// indexOpenWait bounds how long a search waits for the index to open
// (opening reads its file records: milliseconds for thousands of files).
const indexOpenWait = 3 * time.Second

// indexSource is an index to search: this process's own, or the one
// another process on the same folder holds and shares.
type indexSource interface {
	Read(ctx context.Context, fn func(fulltext.Reader) error) error
}

// opened returns the index once it is open, waiting at most
// indexOpenWait (or until ctx ends): this process's own, or while another
// process holds it, that process's; nil when there is none by then (not
// started, not open yet, could not be opened, or held by a process that
// does not share it).
func (t *textIndex) opened(ctx context.Context) indexSource {
	if r := t.remote.Load(); r != nil {
		return r
	}
	if !t.started.Load() || t.held.Load() {
		return t.source()
	}
	wait := time.NewTimer(indexOpenWait)
	defer wait.Stop()
	select {
	case <-t.ready:
	case <-wait.C:
	case <-ctx.Done():
	}
	if r := t.remote.Load(); r != nil {
		return r
	}
	return t.source()
}

// source is the open index as an indexSource (nil when there is none).
func (t *textIndex) source() indexSource {
	if ft := t.index(); ft != nil {
		return ft
	}
	return nil
}

// index returns the open index, or nil while it opens (or when it could
// not be opened).
func (t *textIndex) index() *fulltext.Index {
	select {
	case <-t.ready:
		return t.ft
	default:
		return nil
	}
}

// lost drops a shared index whose holder no longer answers: searches scan
// until this process takes the index over (see open).
func (t *textIndex) lost(r *fulltext.Remote, err error) {
	if t.remote.CompareAndSwap(r, nil) {
		t.s.log.Warn("the search index's holder does not answer; searches scan until it is free", "holder", r.PID(), "err", err)
		t.setNote(IndexHeld, heldNote(r.PID(), false))
	}
}

// IndexStatus reports how far the full-text index is built, and its size.
func (s *Server) IndexStatus() IndexStatus { return s.text.status() }

// status reports the build's progress and the index's size.
func (t *textIndex) status() IndexStatus {
	if r := t.remote.Load(); r != nil {
		p := r.Progress()
		t.mu.Lock()
		defer t.mu.Unlock()
		return IndexStatus{State: p.State, Indexed: p.Indexed, Total: p.Total, Where: "shared",
			RemainingMs: p.RemainingMs, Note: t.note}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return IndexStatus{State: t.state, Indexed: t.indexed, Total: t.total,
		DiskBytes: t.lastStat.DiskBytes, MemoryBytes: t.lastStat.MemoryBytes, Where: t.lastStat.Where,
		RemainingMs: t.remainingLocked(time.Now()), Note: t.note}
}

// remainingLocked estimates the build's time left at now from the
// documents it indexed since it began (t.mu held).
func (t *textIndex) remainingLocked(now time.Time) int64 {
	done := t.indexed - t.buildBase
	if t.state != IndexBuilding || done <= 0 || t.indexed >= t.total {
		return 0
	}
	spent := now.Sub(t.buildStart)
	return max(int64(spent/time.Millisecond)*int64(t.total-t.indexed)/int64(done), 1)
}

func (t *textIndex) setState(state string) {
	t.mu.Lock()
	if state == IndexBuilding && t.state != IndexBuilding {
		t.buildStart, t.buildBase = time.Now(), t.indexed
	}
	t.state = state
	t.mu.Unlock()
}

// close waits for the goroutine and closes the index.
func (t *textIndex) close() error {
	if t.started.Load() {
		<-t.done
	}
	t.bg.Wait() // a compaction ends with the run's context
	if ft := t.index(); ft != nil {
		return ft.Close()
	}
	return nil
}

// run opens the index, waits for the catalog to be listed, then keeps the
// index up to date until ctx ends.
func (t *textIndex) run(ctx context.Context) {
	defer close(t.done)
	s := t.s
	ft, err := t.open(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("search index unavailable; searches scan the documents", "err", err)
			t.setNote(IndexOff, "the search index cannot be opened ("+err.Error()+"): searches scan every document, unranked")
		}
		close(t.ready)
		return
	}
	t.ft = ft
	close(t.ready)
	if t.dir != "" {
		if err := ft.Share(t.progress); err != nil {
			s.log.Info("search index not shared with other processes", "err", err)
		}
	}
	if t.dir != "" {
		others, _ := filepath.Glob(filepath.Join(filepath.Dir(t.dir), "*.search"))
		others = slices.DeleteFunc(others, func(d string) bool { return d == t.dir })
		for _, d := range fulltext.RemoveStale(others) {
			s.log.Info("removed the search index of a folder that is gone", "dir", d)
			_ = os.RemoveAll(strings.TrimSuffix(d, ".search") + ".text") // its text cache
		}
		if s.disk.path != "" {
			for _, f := range removeStaleCaches(filepath.Dir(s.disk.path), s.disk.path) {
				s.log.Info("removed the catalog cache of a folder that is gone", "file", f)
			}
		}
	}
	t.plan(ft) // counts what is indexed already
	t.refresh(ft)
	start := time.NewTimer(indexStartDelay)
	select {
	case <-t.listed:
	case <-start.C:
	case <-ctx.Done():
	}
	start.Stop()
	for ctx.Err() == nil {
		work := t.plan(ft)
		if len(work) == 0 {
			t.setState(IndexReady)
			t.refresh(ft)
			t.compact(ctx, ft)
			select {
			case <-t.wake:
			case <-ctx.Done():
			}
			continue
		}
		t.setState(IndexBuilding)
		t.build(ctx, ft, work)
	}
}

// heldRetry is how often a server whose index another process holds tries
// to open it again.
const heldRetry = 5 * time.Second

// open opens the index. While another process holds it (a browser open on
// the same folder while `search --demo --docs` runs), the state is
// IndexHeld and searches ask that process's index for ranked pages (see
// fulltext.Share), or scan at once when it does not answer; it is tried
// again every heldRetry and taken over when free. An index of this
// process's own in memory would cost minutes of CPU and most of a
// gigabyte for a folder the holder has indexed already.
func (t *textIndex) open(ctx context.Context) (*fulltext.Index, error) {
	for {
		ft, err := fulltext.Open(fulltext.Options{Dir: t.dir, Schema: t.schema + "/" + indexForm, Root: t.s.rootDir, Logger: t.s.log})
		var held *fulltext.InUseError
		if !errors.As(err, &held) {
			if err == nil && t.held.Swap(false) {
				t.remote.Store(nil)
				t.s.log.Info("search index free again: taken over", "dir", t.dir)
				t.setNote(IndexOpening, "")
			}
			return ft, err
		}
		t.held.Store(true)
		t.ask(ctx, held.PID)
		retry := time.NewTimer(heldRetry)
		select {
		case <-retry.C:
		case <-ctx.Done():
			retry.Stop()
			return nil, ctx.Err()
		}
	}
}

// ask connects to the process with pid that holds the index, unless
// this process is connected already, and says how searches are answered.
func (t *textIndex) ask(ctx context.Context, pid int) {
	if t.remote.Load() != nil {
		return
	}
	r, err := fulltext.Ask(ctx, t.dir, pid)
	if err != nil {
		t.mu.Lock()
		said := t.state == IndexHeld
		t.mu.Unlock()
		if !said {
			t.s.log.Warn("search index held by another process that does not share it; searches scan until it is free",
				"dir", t.dir, "holder", pid, "err", err)
			t.setNote(IndexHeld, heldNote(pid, false))
		}
		return
	}
	t.s.log.Info("search index held by another process: searches ask it", "dir", t.dir, "holder", pid)
	t.setNote(IndexHeld, heldNote(pid, true))
	t.remote.Store(r)
}

// heldNote says who holds the index and how searches are answered.
func heldNote(pid int, shared bool) string {
	who := fulltext.Holder(pid)
	if shared {
		return "the search index of this folder is held by " + who + " (another smcp-browse serving it): searches ask its index"
	}
	return "the search index of this folder is held by " + who +
		" (another smcp-browse serving it): searches scan every document, unranked, until it is free"
}

// progress is how far the index is built, for the processes it is
// shared with.
func (t *textIndex) progress() fulltext.Progress {
	st := t.status()
	return fulltext.Progress{State: st.State, Indexed: st.Indexed, Total: st.Total, RemainingMs: st.RemainingMs}
}

// setNote sets the state with the sentence that says why searches scan.
func (t *textIndex) setNote(state, note string) {
	t.setState(state)
	t.mu.Lock()
	t.note = note
	t.mu.Unlock()
}

// versionOf is the key of a file version in the index.
func versionOf(f fileInfo) string {
	return strconv.FormatInt(f.size, 10) + ":" + strconv.FormatInt(f.mtime.UnixNano(), 10)
}

// plan removes the records of files no longer served and returns the
// entries to (re)index: those the watcher touched first, then those a
// search's scan would have to parse (PDF and office files), then the
// text files, whose bytes a scan searches at grep's speed until they are
// indexed.
func (t *textIndex) plan(ft *fulltext.Index) []*entry {
	entries := t.s.index.snapshot()
	recs := ft.Records()
	t.mu.Lock()
	touched := t.touched
	t.touched = map[string]bool{}
	failed := t.failed
	t.mu.Unlock()
	served := make(map[string]bool, len(entries))
	var first, parsed, rest []*entry
	indexed := 0
	for _, e := range entries {
		served[e.rel] = true
		v := e.version()
		if r, ok := recs[e.rel]; ok && r.Version == v {
			indexed++
			continue
		}
		if failed[e.rel] == v {
			continue
		}
		switch {
		case touched[e.rel]:
			first = append(first, e)
		case prefilterKind(e.kind):
			rest = append(rest, e)
		default:
			parsed = append(parsed, e)
		}
	}
	var gone []string
	for rel := range recs {
		if !served[rel] {
			gone = append(gone, rel)
		}
	}
	t.texts.remove(gone...)
	if err := ft.Delete(gone...); err != nil {
		t.s.log.Warn("search index: cannot remove deleted files", "err", err)
	}
	t.mu.Lock()
	t.indexed, t.total = indexed, len(entries)
	t.mu.Unlock()
	return slices.Concat(first, parsed, rest)
}

// build indexes entries until they are done, ctx ends or the watcher
// touches a file (which the next plan puts first). It is a pipeline over
// the cores: extractors parse the files (each giving way to reads in
// progress), and batches of their text are written by up to
// indexWriters Puts at once, whose analysis and segment building run in
// parallel too.
func (t *textIndex) build(ctx context.Context, ft *fulltext.Index, work []*entry) {
	ctx, stop := context.WithCancel(ctx)
	docs := t.extractAll(ctx, work)
	defer func() {
		stop()
		for range docs { // the extractors are done when it closes
		}
	}()
	batches := make(chan []fulltext.Doc)
	var writers sync.WaitGroup
	for range indexWriters {
		writers.Go(func() {
			for b := range batches {
				t.put(ft, b)
			}
		})
	}
	var batch []fulltext.Doc
	size := 0
	flush := func() {
		if len(batch) > 0 {
			batches <- batch
			batch, size = nil, 0
		}
	}
	defer func() {
		flush()
		close(batches)
		writers.Wait()
	}()
	for {
		select {
		case <-t.wake:
			t.wakeAgain()
			return // the deferred flush writes what is extracted
		case d, ok := <-docs:
			if !ok {
				return
			}
			batch = append(batch, d)
			for _, p := range d.Pages {
				size += len(p.Body) + len(p.Headings)
			}
			if size >= indexBatchText || len(batch) >= indexBatchDocs {
				flush()
			}
		}
	}
}

// extractAll extracts work on every core, in about its order, until ctx
// ends; the channel closes when all is done.
func (t *textIndex) extractAll(ctx context.Context, work []*entry) <-chan fulltext.Doc {
	next := make(chan *entry)
	go func() {
		defer close(next)
		for _, e := range work {
			select {
			case next <- e:
			case <-ctx.Done():
				return
			}
		}
	}()
	out := make(chan fulltext.Doc, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for e := range next {
				t.yield(ctx)
				if d, ok := t.extract(ctx, e); ok {
					select {
					case out <- d:
					case <-ctx.Done():
						return
					}
				}
			}
		})
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}

// put writes one batch and counts it.
func (t *textIndex) put(ft *fulltext.Index, batch []fulltext.Doc) {
	if err := ft.Put(batch...); err != nil {
		t.s.log.Warn("search index: write failed", "err", err)
		return
	}
	t.mu.Lock()
	t.indexed += len(batch)
	t.written += len(batch)
	log := time.Since(t.lastLog) > indexProgressLog
	if log {
		t.lastLog = time.Now()
	}
	t.mu.Unlock()
	if log {
		st := t.status()
		t.s.log.Info("indexing", "indexed", st.Indexed, "total", st.Total)
	}
}

// compact merges the index into one segment, in the background, once
// the builds have written indexCompactAfter documents since the last
// time: the tiered merges of a build leave it a fifth larger than it need
// be, in segments every search visits. The index is ready and searched
// meanwhile, and the watcher's changes are indexed beside it.
func (t *textIndex) compact(ctx context.Context, ft *fulltext.Index) {
	t.mu.Lock()
	n := t.written
	t.mu.Unlock()
	if n < indexCompactAfter || !t.compacting.CompareAndSwap(false, true) {
		return
	}
	t.bg.Go(func() {
		defer t.compacting.Store(false)
		start := time.Now()
		if err := ft.Compact(ctx); err != nil {
			if ctx.Err() == nil {
				t.s.log.Warn("search index: compaction failed", "err", err)
			}
			return
		}
		t.mu.Lock()
		t.written -= n
		t.mu.Unlock()
		t.refresh(ft)
		t.s.log.Info("search index compacted", "documents", n, "took", time.Since(start).Round(time.Millisecond), "disk_bytes", ft.Stats().DiskBytes)
	})
}

// wakeAgain re-arms the wake-up that build consumed.
func (t *textIndex) wakeAgain() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// yield waits (a bounded time) while reads are in progress.
func (t *textIndex) yield(ctx context.Context) {
	deadline := time.Now().Add(indexYieldMax)
	for t.reading.Load() > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
}

// extract reads one file version into an index document. ok is false
// when nothing is to be written (the file went away, the server is
// closing, the parse timed out).
func (t *textIndex) extract(ctx context.Context, e *entry) (fulltext.Doc, bool) {
	s := t.s
	fresh, err := s.current(e.docRef)
	if err != nil {
		return fulltext.Doc{}, false // gone: the watcher tells
	}
	doc, err := s.wholeDocument(ctx, fresh, false)
	var timedOut errTimedOut
	switch {
	case err == nil:
		d, pages := indexDoc(fresh, doc)
		t.texts.put(fresh, d.Title, pages)
		return d, true
	case ctx.Err() != nil || isContextErr(err) || errors.Is(err, fs.ErrNotExist):
		return fulltext.Doc{}, false
	case errors.As(err, &timedOut):
		// Perhaps the machine's load: not recorded, not retried until
		// the file changes or the server restarts.
		t.mu.Lock()
		t.failed[fresh.rel] = versionOf(fresh.fileInfo)
		t.mu.Unlock()
		return fulltext.Doc{}, false
	default:
		return fulltext.Doc{Rel: fresh.rel, Version: versionOf(fresh.fileInfo), FileType: fresh.fileType,
			Unreadable: unreadableReason(err)}, true
	}
}

// refresh measures the index for status.
func (t *textIndex) refresh(ft *fulltext.Index) {
	st := ft.Stats()
	t.mu.Lock()
	t.lastStat = st
	t.mu.Unlock()
}

// wholeDocument returns the parsed document of a file version for work on
// its whole text: the scan of a search (cache: kept in the document cache,
// as a read) or the index build (not kept: building must not push the
// documents being read out of the cache). A PDF always goes through its
// page-by-page handle, kept like a read: its whole text is read behind
// the pages its readers ask for, on one engine (a parse of its own would
// hold the engine's memory reservation, and a reader opening the file
// would wait for every page of it). This is the one place that gets a
// document's whole text.
func (s *Server) wholeDocument(ctx context.Context, e *entry, cache bool) (*extract.Document, error) {
	if cache || e.kind == extract.KindPDF {
		_, h, err := s.parsed(ctx, e)
		if err != nil {
			return nil, err
		}
		return h.whole(ctx)
	}
	k := keyOf(e.fileInfo)
	if h, ok := s.docs.peek(k); ok {
		return h.whole(ctx)
	}
	if it, ok := s.peeks.get(k); ok && it.err != nil {
		return nil, it.err
	}
	doc, err := s.parse(e.fileInfo)
	s.parsesRun.Add(1)
	if err == nil {
		s.disk.update(k, func(d *diskEntry) { d.Info = infoOf(doc) })
	}
	return doc, err
}

// pageText is one page's text as the index holds it.
type pageText struct {
	headings string
	body     string // format=text of the page, NFKC-normalised
	elements string // "ID OFFSET" lines: where each element starts in body
}

// textOfPage renders a page as format=text does, normalised for search,
// with where each element's text starts.
func textOfPage(pg extract.Page) pageText {
	els := make([]protocol.DPEElementDetail, len(pg.Elements))
	// The page's own title is not indexed: it is often made up ("Lines
	// 1–200", "Page 15") and not in the text a reader sees.
	var heads []string
	for i, el := range pg.Elements {
		els[i] = protocol.DPEElementDetail{ElementID: el.ID, Category: string(el.Category), Summary: el.Summary, Content: el.Content}
		if el.Category == dpe.Heading {
			if h, _ := el.Content["text"].(string); h != "" {
				heads = append(heads, h)
			}
		}
	}
	body := extract.SearchForm(dpe.RenderPageText(protocol.DPEPage{Elements: els}))
	var where strings.Builder
	at := 0
	for _, el := range els {
		text := extract.SearchForm(dpe.RenderElementText(el))
		if text == "" {
			continue
		}
		if i := strings.Index(body[at:], text); i >= 0 {
			fmt.Fprintf(&where, "%s %d\n", el.ElementID, at+i)
			at += i
		}
	}
	return pageText{headings: extract.SearchForm(strings.Join(heads, "\n")), body: body, elements: where.String()}
}

// elementAt returns the element whose text holds the byte offset off of
// the page's body, from the page's "ID OFFSET" lines.
func elementAt(elements string, off int) string {
	id := ""
	for line := range strings.Lines(elements) {
		name, at, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		n, err := strconv.Atoi(at)
		if !ok || err != nil || n > off {
			break
		}
		id = name
	}
	return id
}

// indexDoc is a parsed document as the index holds it: its leading pages
// up to indexMaxDocText of text. It also returns the text of every page.
func indexDoc(e *entry, doc *extract.Document) (fulltext.Doc, []pageText) {
	d := fulltext.Doc{Rel: e.rel, Version: versionOf(e.fileInfo), FileType: e.fileType,
		Title: extract.SearchForm(doc.Title), TotalPages: len(doc.Pages)}
	pages := make([]pageText, len(doc.Pages))
	left := indexMaxDocText
	for i, pg := range doc.Pages {
		pt := textOfPage(pg)
		pages[i] = pt
		n := len(pt.body) + len(pt.headings)
		if n > left {
			left = -1 // this page and those after it are scanned
			continue
		}
		left -= n
		d.Pages = append(d.Pages, fulltext.Page{Headings: pt.headings, Body: pt.body})
	}
	if doc.TitleIsText && len(d.Pages) > 0 {
		// A plain text's first line is its title on screen, but it is
		// text: a testdata script's first comment must not outrank the
		// sources whose subject the word is.
		d.Pages[0].Body = d.Title + "\n" + d.Pages[0].Body
		d.Title = ""
	}
	return d, pages
}
