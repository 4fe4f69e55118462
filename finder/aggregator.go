package finder

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Aggregator defaults.
const (
	DefaultConcurrency = 8
	DefaultDebounce    = 75 * time.Millisecond
	DefaultTimeout     = 15 * time.Second
	// DefaultFirstWait is how long Documents waits for missing Level 1
	// reads before answering with entries built from the listing.
	DefaultFirstWait = 300 * time.Millisecond
	// NegativeTTL is how long a document whose Level 1 read failed stays
	// out of the catalog before it is read again.
	NegativeTTL = 30 * time.Second
	// MaxSummarySize bounds the Level 1 text read for a catalog entry.
	MaxSummarySize = 1 << 20
)

// windowScheme is the URI prefix of Desktop windows.
const windowScheme = "window://"

// Resource is one entry of an MCP resources/list answer.
type Resource struct {
	URI      string
	Name     string
	MIMEType string
	// Description, LastModified (annotations.lastModified) and Meta (_meta)
	// give a document's catalog entry until its Level 1 read arrives.
	Description  string
	LastModified string
	Meta         map[string]any
	// Priority is annotations.priority (0-1) and Fullscreen is
	// _meta.fullscreen, when the server gave them.
	Priority   *float64
	Fullscreen *bool
}

// Source is one Finder-capable MCP server as the aggregator sees it.
type Source interface {
	// ListResources returns one page of resources/list and the cursor of
	// the next page ("" after the last).
	ListResources(ctx context.Context, cursor string) ([]Resource, string, error)
	// ReadResource performs resources/read.
	ReadResource(ctx context.Context, uri string) ([]protocol.ResourceContents, error)
}

// Subscriber is implemented by sources that must be told which URIs to
// watch for notifications/resources/updated. The aggregator calls it after
// every listing with the source's current dpe:// and window:// URIs.
type Subscriber interface {
	Subscribe(ctx context.Context, uris []string) error
}

// Change tells which views changed; it is a bit set.
type Change uint8

// The views the aggregator watches.
const (
	FinderChanged  Change = 1 << iota // emit server:update_finder
	DesktopChanged                    // emit server:update_desktop
)

// Has reports whether c includes x.
func (c Change) Has(x Change) bool { return c&x != 0 }

// AggregatorOptions configure an Aggregator. Zero values take defaults.
type AggregatorOptions struct {
	Logger      *slog.Logger
	Concurrency int           // concurrent Level 1 reads (default 8)
	Debounce    time.Duration // window that merges a burst of changes (default 75 ms)
	Timeout     time.Duration // per list or read call (default 15 s)
	FirstWait   time.Duration // see DefaultFirstWait
	// OnChange is called once per debounce window with the views that
	// changed. It runs on its own goroutine and may block.
	OnChange func(Change)
}

// Window is a listed window:// resource and the server that listed it.
type Window struct {
	Server string
	Resource
}

// Aggregator collects the dpe:// documents of MCP servers, caches their
// catalog entries by URI and turns resource notifications into debounced
// Finder and Desktop change events. The cached listing is the source of
// truth until the server says its list changed, so a warm Documents call
// touches no server at all.
type Aggregator struct {
	log       *slog.Logger
	conc      int
	timeout   time.Duration
	firstWait time.Duration
	deb       *debouncer
	flight    singleflight.Group

	mu      sync.Mutex
	sources map[string]*sourceState
	closed  bool
	// catalog is the last collected document list, valid while nothing
	// changed since (any cache mutation resets it to nil).
	catalog []protocol.DPEDocumentSummary
}

type sourceState struct {
	name string
	src  Source
	gen  uint64 // identifies this incarnation of the source

	listed    bool
	docs      []string            // Level 1 dpe:// URIs in list order
	docSet    map[string]struct{} // same, as a set
	listedAs  map[string]Resource // the listing's entry of each document
	hosts     map[string]struct{} // dpe:// hosts seen in the listing
	windows   []Resource
	others    map[string]struct{} // every other listed URI (read bridge routing)
	summaries map[string]summary
	versions  map[string]uint64 // bumped when an entry is invalidated

	relisting bool
	dirty     bool
}

type summary struct {
	doc protocol.DPEDocumentSummary
	ok  bool      // false: the Level 1 read failed (negative cache)
	at  time.Time // when a failed read happened
}

// NewAggregator returns an empty aggregator.
func NewAggregator(opts AggregatorOptions) *Aggregator {
	a := &Aggregator{
		log:       opts.Logger,
		conc:      cmp.Or(opts.Concurrency, DefaultConcurrency),
		timeout:   cmp.Or(opts.Timeout, DefaultTimeout),
		firstWait: cmp.Or(opts.FirstWait, DefaultFirstWait),
		sources:   map[string]*sourceState{},
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	a.deb = newDebouncer(cmp.Or(opts.Debounce, DefaultDebounce), opts.OnChange)
	return a
}

// Close stops pending change notifications.
func (a *Aggregator) Close() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.deb.stop()
}

// AddSource registers (or replaces) the source of server name, lists it
// and subscribes to its URIs. When it lists documents or windows a change
// is signalled. A failed listing is logged and retried on the next read.
func (a *Aggregator) AddSource(ctx context.Context, name string, src Source) {
	a.mu.Lock()
	old := a.sources[name]
	st := &sourceState{name: name, src: src, gen: nextGen(old), summaries: map[string]summary{}, versions: map[string]uint64{}}
	a.sources[name] = st
	a.catalog = nil
	var c Change
	if old != nil {
		c = old.changeIfRemoved()
	}
	a.mu.Unlock()
	a.signal(c)
	a.relist(ctx, st)
}

func nextGen(old *sourceState) uint64 {
	if old == nil {
		return 1
	}
	return old.gen + 1
}

// RemoveSource forgets server name (it went down); its documents and
// windows leave the views, which is signalled when there were any.
func (a *Aggregator) RemoveSource(name string) {
	a.mu.Lock()
	st := a.sources[name]
	delete(a.sources, name)
	a.catalog = nil
	var c Change
	if st != nil {
		c = st.changeIfRemoved()
	}
	a.mu.Unlock()
	a.signal(c)
}

// changeIfRemoved is the change that dropping st causes. Call with a.mu
// held or on a state no longer shared.
func (st *sourceState) changeIfRemoved() Change {
	var c Change
	if len(st.docs) > 0 {
		c |= FinderChanged
	}
	if len(st.windows) > 0 {
		c |= DesktopChanged
	}
	return c
}

// Sources returns the names of the registered sources, sorted.
func (a *Aggregator) Sources() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Sorted(maps.Keys(a.sources))
}

// ResourceListChanged handles notifications/resources/list_changed from
// server name: it re-lists the server in the background and signals a
// change only when its set of dpe:// (or window://) URIs differs from the
// cached one. Bursts coalesce into at most one listing in flight.
func (a *Aggregator) ResourceListChanged(name string) {
	a.mu.Lock()
	st := a.sources[name]
	if st == nil || a.closed {
		a.mu.Unlock()
		return
	}
	if st.relisting {
		st.dirty = true
		a.mu.Unlock()
		return
	}
	st.relisting = true
	a.mu.Unlock()
	go func() {
		for {
			ctx, cancel := context.WithTimeout(context.Background(), a.timeout*4)
			a.relistOnce(ctx, st)
			cancel()
			a.mu.Lock()
			if !st.dirty || a.sources[name] != st || a.closed {
				st.relisting = false
				st.dirty = false
				a.mu.Unlock()
				return
			}
			st.dirty = false
			a.mu.Unlock()
		}
	}()
}

// ResourceUpdated handles notifications/resources/updated from server
// name: a dpe:// URI invalidates that document's cached entry and signals
// a Finder change at once (no set comparison); a window:// URI signals a
// Desktop change; any other URI is ignored.
func (a *Aggregator) ResourceUpdated(name, uri string) {
	switch {
	case strings.HasPrefix(uri, "dpe://"):
		a.mu.Lock()
		if st := a.sources[name]; st != nil {
			a.catalog = nil
			for _, key := range invalidationKeys(uri) {
				delete(st.summaries, key)
				st.versions[key]++
			}
		}
		a.mu.Unlock()
		a.signal(FinderChanged)
	case strings.HasPrefix(uri, windowScheme):
		a.signal(DesktopChanged)
	}
}

// invalidationKeys returns uri and, when it parses, the URI of its
// document, so an update for a page or element drops the document entry.
func invalidationKeys(uri string) []string {
	keys := []string{uri}
	if u, err := dpe.Parse(uri); err == nil && u.Level() >= dpe.LevelDocument {
		if d := u.DocumentURI().String(); d != uri {
			keys = append(keys, d)
		}
	}
	return keys
}

func (a *Aggregator) signal(c Change) {
	if c == 0 {
		return
	}
	a.mu.Lock()
	closed := a.closed
	a.mu.Unlock()
	if !closed {
		a.deb.trigger(c)
	}
}

// relist lists st now (used by AddSource).
func (a *Aggregator) relist(ctx context.Context, st *sourceState) {
	ctx, cancel := context.WithTimeout(ctx, a.timeout*4)
	defer cancel()
	a.relistOnce(ctx, st)
}

// relistOnce lists st, updates its cache, subscribes and signals changes.
func (a *Aggregator) relistOnce(ctx context.Context, st *sourceState) {
	res, err := a.listAll(ctx, st.src)
	if err != nil {
		a.log.Warn("finder: resources/list failed", "server", st.name, "err", err)
		return
	}
	l := classify(res, a.log, st.name)
	a.mu.Lock()
	if a.sources[st.name] != st {
		a.mu.Unlock()
		return // replaced or removed meanwhile
	}
	var c Change
	if !st.listed {
		if len(l.docs) > 0 {
			c |= FinderChanged
		}
		if len(l.windows) > 0 {
			c |= DesktopChanged
		}
	} else {
		if !maps.Equal(st.docSet, l.docSet) {
			c |= FinderChanged
		}
		if !sameWindows(st.windows, l.windows) {
			c |= DesktopChanged
		}
	}
	for uri := range st.summaries {
		if _, ok := l.docSet[uri]; !ok {
			delete(st.summaries, uri)
		}
	}
	st.listed = true
	a.catalog = nil
	st.docs, st.docSet, st.hosts, st.windows, st.others = l.docs, l.docSet, l.hosts, l.windows, l.others
	st.listedAs = l.listedAs
	watch := l.watch()
	a.mu.Unlock()

	if c == 0 {
		a.log.Debug("finder: resource list changed but the dpe:// and window:// sets did not", "server", st.name)
	}
	a.signal(c)
	if sub, ok := st.src.(Subscriber); ok {
		if err := sub.Subscribe(ctx, watch); err != nil {
			a.log.Warn("finder: subscribe failed", "server", st.name, "uris", len(watch), "err", err)
		}
	}
}

// maxPages bounds cursor following against a server that never ends.
const maxPages = 10_000

func (a *Aggregator) listAll(ctx context.Context, src Source) ([]Resource, error) {
	var all []Resource
	cursor := ""
	seen := map[string]bool{}
	for page := 0; ; page++ {
		if page >= maxPages {
			return nil, fmt.Errorf("resources/list: more than %d pages", maxPages)
		}
		callCtx, cancel := context.WithTimeout(ctx, a.timeout)
		res, next, err := src.ListResources(callCtx, cursor)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("resources/list (cursor %q): %w", cursor, err)
		}
		all = append(all, res...)
		if next == "" {
			return all, nil
		}
		if seen[next] {
			return nil, fmt.Errorf("resources/list: cursor %q repeats", next)
		}
		seen[next] = true
		cursor = next
	}
}

type listing struct {
	listedAs map[string]Resource
	docs     []string
	docSet   map[string]struct{}
	hosts    map[string]struct{}
	windows  []Resource
	others   map[string]struct{}
}

func (l listing) watch() []string {
	out := slices.Clone(l.docs)
	for _, w := range l.windows {
		out = append(out, w.URI)
	}
	return out
}

func classify(res []Resource, log *slog.Logger, server string) listing {
	l := listing{listedAs: map[string]Resource{}, docSet: map[string]struct{}{}, hosts: map[string]struct{}{}, others: map[string]struct{}{}}
	for _, r := range res {
		switch {
		case strings.HasPrefix(r.URI, "dpe://"):
			u, err := dpe.Parse(r.URI)
			if err != nil {
				log.Debug("finder: skip invalid dpe:// resource", "server", server, "uri", r.URI, "err", err)
				continue
			}
			l.hosts[u.Host] = struct{}{}
			if u.Level() != dpe.LevelDocument {
				l.others[r.URI] = struct{}{}
				continue
			}
			if _, dup := l.docSet[r.URI]; !dup {
				l.docSet[r.URI] = struct{}{}
				l.docs = append(l.docs, r.URI)
				l.listedAs[r.URI] = r
			}
		case strings.HasPrefix(r.URI, windowScheme):
			if !slices.ContainsFunc(l.windows, func(w Resource) bool { return w.URI == r.URI }) {
				l.windows = append(l.windows, r)
			}
		default:
			l.others[r.URI] = struct{}{}
		}
	}
	return l
}

func sameWindows(a, b []Resource) bool {
	if len(a) != len(b) {
		return false
	}
	set := make(map[string]struct{}, len(a))
	for _, w := range a {
		set[w.URI] = struct{}{}
	}
	for _, w := range b {
		if _, ok := set[w.URI]; !ok {
			return false
		}
	}
	return true
}

// ensureListed lists every source that has not been listed successfully.
func (a *Aggregator) ensureListed(ctx context.Context) {
	a.mu.Lock()
	var todo []*sourceState
	for _, st := range a.sources {
		if !st.listed {
			todo = append(todo, st)
		}
	}
	a.mu.Unlock()
	var wg sync.WaitGroup
	for _, st := range todo {
		wg.Go(func() { a.relistOnce(ctx, st) })
	}
	wg.Wait()
}

// Documents returns the catalog entries of every source: cached entries as
// they are, and the missing ones built from a Level 1 read (at most
// Concurrency at a time). A document whose read fails is logged and left
// out until it is updated or re-listed. With a warm cache it does no I/O
// and returns the same shared slice, which callers must not modify.
func (a *Aggregator) Documents(ctx context.Context) []protocol.DPEDocumentSummary {
	a.mu.Lock()
	if cat := a.catalog; cat != nil {
		a.mu.Unlock()
		return cat
	}
	a.mu.Unlock()
	a.ensureListed(ctx)
	type job struct {
		st      *sourceState
		uri     string
		version uint64
	}
	var jobs []job
	a.mu.Lock()
	for _, st := range a.sources {
		for _, uri := range st.docs {
			if s, ok := st.summaries[uri]; !ok || (!s.ok && time.Since(s.at) > NegativeTTL) {
				jobs = append(jobs, job{st, uri, st.versions[uri]})
			}
		}
	}
	a.mu.Unlock()

	if len(jobs) == 0 {
		return a.collect(nil)
	}
	// The reads go on when this call returns early (see below), so they
	// do not end with its context.
	rctx := context.WithoutCancel(ctx)
	sem := make(chan struct{}, a.conc)
	var wg sync.WaitGroup
	fresh := make([]summary, len(jobs))
	for i, j := range jobs {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			ctx := rctx
			defer func() { <-sem }()
			// Another call may have cached it while this one waited.
			a.mu.Lock()
			cached, ok := j.st.summaries[j.uri]
			a.mu.Unlock()
			if ok && cached.ok {
				fresh[i] = cached
				return
			}
			fresh[i] = a.readSummary(ctx, j.st, j.uri)
			if ctx.Err() != nil {
				return // an interrupted read says nothing about the document
			}
			a.mu.Lock()
			if a.sources[j.st.name] == j.st && j.st.versions[j.uri] == j.version {
				if _, listed := j.st.docSet[j.uri]; listed {
					j.st.summaries[j.uri] = fresh[i]
					a.catalog = nil
				}
			}
			a.mu.Unlock()
		})
	}
	// A catalog does not stay blank while documents are read: after
	// firstWait the answer holds the entries known so far and, for the
	// others, entries built from the listing (Pending); the reads go on and
	// a Finder change is signalled when they are done.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(a.firstWait):
		go func() {
			<-done
			a.signal(FinderChanged)
		}()
		return a.collect(nil)
	case <-ctx.Done():
		return a.collect(nil)
	}
	// Entries read for this call are used even when an invalidation that
	// arrived meanwhile keeps them out of the cache.
	extra := make(map[*sourceState]map[string]summary)
	for i, j := range jobs {
		if extra[j.st] == nil {
			extra[j.st] = map[string]summary{}
		}
		extra[j.st][j.uri] = fresh[i]
	}
	return a.collect(extra)
}

// collect gathers the cached entries, sources by name and documents in
// list order; extra supplies entries missing from the cache.
func (a *Aggregator) collect(extra map[*sourceState]map[string]summary) []protocol.DPEDocumentSummary {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.catalog != nil {
		return a.catalog
	}
	complete := true
	names := slices.Sorted(maps.Keys(a.sources))
	n := 0
	for _, name := range names {
		n += len(a.sources[name].docs)
	}
	out := make([]protocol.DPEDocumentSummary, 0, n)
	for _, name := range names {
		st := a.sources[name]
		if !st.listed {
			complete = false // must be listed again on the next call
		}
		for _, uri := range st.docs {
			s, ok := st.summaries[uri]
			if ok && !s.ok {
				complete = false // retried after NegativeTTL
			}
			if !ok {
				complete = false
				s, ok = extra[st][uri]
			}
			switch {
			case ok && s.ok:
				out = append(out, s.doc)
			case !ok:
				out = append(out, provisional(st.name, uri, st.listedAs[uri]))
			}
		}
	}
	if complete {
		a.catalog = out
	}
	return out
}

// provisional is the catalog entry of a document whose Level 1 read has
// not arrived yet, from what its listing said: title, summary, modified
// time, and the _meta keys of the document server (doc_ref, file_type,
// unreadable).
func provisional(server, uri string, r Resource) protocol.DPEDocumentSummary {
	str := func(k string) string {
		v, _ := r.Meta[k].(string)
		return v
	}
	d := protocol.DPEDocumentSummary{
		DocRef: str("doc_ref"), URI: uri, FileType: str("file_type"), Title: r.Name,
		Summary: r.Description, Server: server, LastModified: r.LastModified,
		Unreadable: str("unreadable"), Pending: true,
	}
	if d.DocRef == "" {
		if u, err := dpe.Parse(uri); err == nil {
			d.DocRef = u.DocRef
		}
	}
	if d.Title == "" {
		d.Title = d.DocRef
	}
	return d
}

// readSummary reads the Level 1 document at uri and builds its entry.
// Concurrent reads of one URI share a single request.
func (a *Aggregator) readSummary(ctx context.Context, st *sourceState, uri string) summary {
	key := st.name + "\x00" + uri
	v, _, _ := a.flight.Do(key, func() (any, error) {
		callCtx, cancel := context.WithTimeout(ctx, a.timeout)
		defer cancel()
		contents, err := st.src.ReadResource(callCtx, uri)
		if err == nil {
			var doc protocol.DPEDocumentSummary
			doc, err = buildSummary(uri, st.name, contents)
			if err == nil {
				return summary{doc: doc, ok: true}, nil
			}
		}
		a.log.Warn("finder: document left out of the catalog", "server", st.name, "uri", uri, "err", err)
		return summary{ok: false, at: time.Now()}, nil
	})
	return v.(summary)
}

// BuildSummary turns the contents of a Level 1 read into the catalog entry
// of the document at uri, owned by server.
func buildSummary(uri, server string, contents []protocol.ResourceContents) (protocol.DPEDocumentSummary, error) {
	var text string
	for _, c := range contents {
		if c.Text != "" {
			text = c.Text
			break
		}
	}
	if text == "" {
		return protocol.DPEDocumentSummary{}, errors.New("level 1 read returned no text")
	}
	if len(text) > MaxSummarySize {
		return protocol.DPEDocumentSummary{}, fmt.Errorf("level 1 read is %d bytes, more than %d", len(text), MaxSummarySize)
	}
	var doc protocol.DPEDocument
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		return protocol.DPEDocumentSummary{}, fmt.Errorf("level 1 read is not DPE document JSON: %w", err)
	}
	if doc.DocRef == "" {
		return protocol.DPEDocumentSummary{}, errors.New("level 1 read has no doc_ref")
	}
	if doc.PageCount < 0 {
		return protocol.DPEDocumentSummary{}, fmt.Errorf("level 1 read has page_count %d", doc.PageCount)
	}
	s := doc.CatalogEntry(server)
	s.URI = uri
	return s, nil
}

// Owner returns the server that serves uri: for dpe:// URIs the server
// whose listing has that host, for other URIs the server that listed that
// exact URI (or, for window:// URIs, a window with the same host). Sources
// not listed yet are listed first.
func (a *Aggregator) Owner(ctx context.Context, uri string) (string, bool) {
	if name, ok := a.owner(uri); ok {
		return name, true
	}
	a.ensureListed(ctx)
	return a.owner(uri)
}

func (a *Aggregator) owner(uri string) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	names := slices.Sorted(maps.Keys(a.sources))
	if strings.HasPrefix(uri, "dpe://") {
		u, err := dpe.Parse(uri)
		if err != nil {
			return "", false
		}
		for _, n := range names {
			if _, ok := a.sources[n].hosts[u.Host]; ok {
				return n, true
			}
		}
		return "", false
	}
	for _, n := range names {
		st := a.sources[n]
		if _, ok := st.others[uri]; ok {
			return n, true
		}
		if slices.ContainsFunc(st.windows, func(w Resource) bool { return w.URI == uri }) {
			return n, true
		}
	}
	if strings.HasPrefix(uri, windowScheme) {
		host := windowHost(uri)
		for _, n := range names {
			if slices.ContainsFunc(a.sources[n].windows, func(w Resource) bool { return windowHost(w.URI) == host }) {
				return n, true
			}
		}
	}
	return "", false
}

func windowHost(uri string) string {
	rest := strings.TrimPrefix(uri, windowScheme)
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// Windows returns the listed window:// resources of every source.
func (a *Aggregator) Windows(ctx context.Context) []Window {
	a.ensureListed(ctx)
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []Window
	for _, n := range slices.Sorted(maps.Keys(a.sources)) {
		for _, w := range a.sources[n].windows {
			out = append(out, Window{Server: n, Resource: w})
		}
	}
	return out
}

// HasDocuments reports whether server name currently lists documents.
func (a *Aggregator) HasDocuments(name string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	st := a.sources[name]
	return st != nil && len(st.docs) > 0
}

// --- debounce ------------------------------------------------------------------

// debouncer merges the changes signalled within one window and delivers
// them once, window after the first of them.
type debouncer struct {
	window time.Duration
	fire   func(Change)

	mu      sync.Mutex
	pending Change
	timer   *time.Timer
	stopped bool
}

func newDebouncer(window time.Duration, fire func(Change)) *debouncer {
	return &debouncer{window: window, fire: fire}
}

func (d *debouncer) trigger(c Change) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped || d.fire == nil {
		return
	}
	if d.pending == 0 {
		d.timer = time.AfterFunc(d.window, d.flush)
	}
	d.pending |= c
}

func (d *debouncer) flush() {
	d.mu.Lock()
	c := d.pending
	d.pending = 0
	stopped := d.stopped
	d.mu.Unlock()
	if c != 0 && !stopped {
		d.fire(c)
	}
}

func (d *debouncer) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopped = true
	if d.timer != nil {
		d.timer.Stop()
	}
}
