// Package resindex is the Computer's index of the resources its MCP servers
// list: it routes a read of any listed URI to the server that owns it
// (Owner), keeps the window:// resources of the Desktop (Windows) and the
// Finder catalog cache of dpe:// documents (Documents), subscribes to the
// listed URIs and turns resource notifications into debounced Finder and
// Desktop change events. It knows no sockets; the Finder organizer lives
// in package finder, the Desktop organizer in package desktop.
package resindex

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/debounce"
	"github.com/smcp-browse/smcp-browse/internal/opt"
	"github.com/smcp-browse/smcp-browse/internal/ratelog"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Index defaults.
const (
	DefaultConcurrency = 8
	DefaultDebounce    = 75 * time.Millisecond
	DefaultTimeout     = 15 * time.Second
	// DefaultFirstWait is how long an unfiltered answer waits for the
	// Level 1 reads of the entries it shows before showing them as built
	// from the listing (Pending).
	DefaultFirstWait = 150 * time.Millisecond
	// DefaultFilterWait is how long an answer that filters or sorts on
	// what the Level 1 reads bring (keywords, page counts, titles) waits
	// for the reads it depends on.
	DefaultFilterWait = 5 * time.Second
	// DefaultListWait is how long an answer waits for a first listing that
	// has more than one page before using the pages listed so far.
	DefaultListWait = 50 * time.Millisecond
	// NegativeTTL is how long a document whose Level 1 read failed stays
	// out of the catalog before it is read again.
	NegativeTTL = 30 * time.Second
	// MaxSummarySize bounds the Level 1 text read for a catalog entry.
	MaxSummarySize = 1 << 20
	// DefaultRelistGap is the shortest time between the starts of two
	// listings of one server: list_changed notifications in between are
	// coalesced into one listing after it.
	DefaultRelistGap = 250 * time.Millisecond
	// DefaultRetryMin and DefaultRetryMax bound the back-off between the
	// tries of a failed listing.
	DefaultRetryMin = time.Second
	DefaultRetryMax = 30 * time.Second
	// DefaultDesktopWait bounds how long Windows waits for first listings.
	DefaultDesktopWait = 2 * time.Second
	// DefaultMaxEntries bounds what the index takes of one server's
	// listing (documents, windows and other URIs together).
	DefaultMaxEntries = 50_000
)

// windowScheme is the URI prefix of Desktop windows.
const windowScheme = "window://"

// Source is one Finder-capable MCP server as the index sees it.
type Source interface {
	// ListResources returns one page of resources/list and the cursor of
	// the next page ("" after the last).
	ListResources(ctx context.Context, cursor string) ([]mcp.Resource, string, error)
	// ReadResource performs resources/read.
	ReadResource(ctx context.Context, uri string) ([]protocol.ResourceContents, error)
}

// Subscriber is implemented by sources that must be told which URIs to
// watch for notifications/resources/updated. The index calls it after
// every listing with the source's current dpe:// and window:// URIs.
type Subscriber interface {
	Subscribe(ctx context.Context, uris []string) error
}

// Change tells which views changed; it is a bit set.
type Change uint8

// The views the index watches.
const (
	FinderChanged  Change = 1 << iota // emit server:update_finder
	DesktopChanged                    // emit server:update_desktop
)

// Has reports whether c includes x.
func (c Change) Has(x Change) bool { return c&x != 0 }

// Options configure an Index. Zero values take defaults.
type Options struct {
	Logger      *slog.Logger
	Concurrency int           // concurrent Level 1 reads (default 8)
	Debounce    time.Duration // window that merges a burst of changes (default 75 ms)
	Timeout     time.Duration // per list or read call (default 15 s)
	FirstWait   time.Duration // see DefaultFirstWait
	FilterWait  time.Duration // see DefaultFilterWait
	ListWait    time.Duration // see DefaultListWait
	// RelistGap is the shortest time between the starts of two listings
	// of one server (default DefaultRelistGap).
	RelistGap time.Duration
	// RetryMin and RetryMax bound the back-off between the tries of a
	// failed listing (defaults DefaultRetryMin and DefaultRetryMax).
	RetryMin, RetryMax time.Duration
	// MaxEntries bounds what the index takes of one server's listing
	// (default DefaultMaxEntries); the rest is left out, with a warning.
	MaxEntries int
	// Hosts gives dpe:// and window:// hosts to servers (host → server
	// name): no other server's entries under them are taken, whoever
	// lists first (see "Host ownership").
	Hosts map[string]string
	// OnChange is called once per debounce window with the views that
	// changed. It runs on its own goroutine and may block.
	OnChange func(Change)
}

// Window is a listed window:// resource, as the server listed it (with
// its annotations and _meta), and the server that listed it.
type Window struct {
	Server string
	mcp.Resource
}

// Index collects the dpe:// documents of MCP servers, caches their
// catalog entries by URI and turns resource notifications into debounced
// Finder and Desktop change events. The cached listing is the source of
// truth until the server says its list changed, so a warm Documents call
// touches no server at all.
type Index struct {
	log        *slog.Logger
	conc       int
	timeout    time.Duration
	firstWait  time.Duration
	filterWait time.Duration
	listWait   time.Duration
	maxEntries int
	relistGap  time.Duration
	retryMin   time.Duration
	retryMax   time.Duration
	deb        *debounce.Bits[Change]
	// base outlives requests: listings and Level 1 reads go on after the
	// answer that started them; Close ends them.
	base   context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	sources map[string]*sourceState
	closed  bool
	// catalog is the last collected document list, valid while nothing
	// changed since (any cache mutation resets it to nil).
	catalog []protocol.DPEDocumentSummary
	// changed is closed (and replaced) whenever a listing publishes pages
	// or ends, or a Level 1 read ends: waiters look again.
	changed chan struct{}
	// wanted is set once someone asked for the catalog: documents are
	// then read as soon as they are listed.
	wanted bool
	// shown is set when an answer held provisional entries: a Finder
	// change is signalled when the reads are all done.
	shown bool
	reads readQueue
	// claims are the configured owners of hosts (Options.Hosts), owners
	// the first listers of the others; owners outlive their sources.
	claims map[string]string
	owners map[string]string
	// leftOut logs the documents whose Level 1 read failed: one line at
	// a time, the rest counted (a server that dies fails every read), and
	// the count on Close.
	leftOut *ratelog.Logger
}

type sourceState struct {
	name string
	src  Source

	// listed: a complete listing succeeded. Until then, partial says
	// that the first listing published some of its pages.
	listed    bool
	partial   bool
	docs      []string                // Level 1 dpe:// URIs in list order
	docSet    map[string]struct{}     // same, as a set
	listedAs  map[string]mcp.Resource // the listing's entry of each document
	refused   map[hostKey]*refusal    // entries under hosts others own
	truncated bool                    // the listing had more than maxEntries
	rejected  rejections              // entries that break the rules
	windows   []mcp.Resource
	others    map[string]struct{} // every other listed URI (read bridge routing)
	summaries map[string]summary
	versions  map[string]uint64 // bumped when an entry is invalidated

	listing  bool          // a listing is under way (or about to start)
	dirty    bool          // and another must follow it
	lastList time.Time     // when the last listing started
	listDone chan struct{} // closed when the listing under way ends
	listErr  error         // why the last listing failed (nil after a success)
	retry    *time.Timer   // the next try after a failed listing
	backoff  time.Duration // the wait before that try
}

type summary struct {
	doc protocol.DPEDocumentSummary
	ok  bool      // false: the Level 1 read failed (negative cache)
	at  time.Time // when a failed read happened
}

// New returns an empty index.
func New(opts Options) *Index {
	opt.Default(&opts.Concurrency, DefaultConcurrency)
	opt.Default(&opts.Timeout, DefaultTimeout)
	opt.Default(&opts.FirstWait, DefaultFirstWait)
	opt.Default(&opts.FilterWait, DefaultFilterWait)
	opt.Default(&opts.ListWait, DefaultListWait)
	opt.Default(&opts.MaxEntries, DefaultMaxEntries)
	opt.Default(&opts.RelistGap, DefaultRelistGap)
	opt.Default(&opts.RetryMin, DefaultRetryMin)
	opt.Default(&opts.RetryMax, DefaultRetryMax)
	opt.Default(&opts.Debounce, DefaultDebounce)
	ix := &Index{
		log:        opt.Logger(opts.Logger),
		conc:       opts.Concurrency,
		timeout:    opts.Timeout,
		firstWait:  opts.FirstWait,
		filterWait: opts.FilterWait,
		listWait:   opts.ListWait,
		maxEntries: opts.MaxEntries,
		relistGap:  opts.RelistGap,
		retryMin:   opts.RetryMin,
		retryMax:   opts.RetryMax,
		sources:    map[string]*sourceState{},
		changed:    make(chan struct{}),
		reads:      newReadQueue(),
		claims:     maps.Clone(opts.Hosts),
		owners:     map[string]string{},
	}
	ix.base, ix.cancel = context.WithCancel(context.Background())
	ix.leftOut = &ratelog.Logger{Log: ix.log}
	ix.deb = debounce.New(opts.Debounce, opts.OnChange)
	return ix
}

// Close stops pending change notifications, listings and reads.
func (ix *Index) Close() {
	ix.mu.Lock()
	ix.closed = true
	ix.broadcastLocked()
	ix.mu.Unlock()
	ix.cancel()
	ix.deb.Stop()
	ix.leftOut.Flush("resource index: more documents left out of the catalog (their reads failed; not logged one by one)")
}

// broadcastLocked wakes everyone waiting on ix.changed. Call with ix.mu
// held.
func (ix *Index) broadcastLocked() {
	close(ix.changed)
	ix.changed = make(chan struct{})
}

// AddSource registers (or replaces) the source of server name, lists it
// and subscribes to its URIs. When it lists documents or windows a change
// is signalled. It returns when the listing is complete or, for a listing
// of many pages, once some are in and ListWait has passed (or when ctx
// ends): the listing goes on in the background. A failed listing is
// logged and retried on the next read.
func (ix *Index) AddSource(ctx context.Context, name string, src Source) {
	ix.mu.Lock()
	old := ix.sources[name]
	st := &sourceState{name: name, src: src, summaries: map[string]summary{}, versions: map[string]uint64{}}
	ix.sources[name] = st
	ix.catalog = nil
	var c Change
	if old != nil {
		c = old.changeIfRemoved()
	}
	if !ix.closed {
		ix.startListingLocked(st, false)
	}
	ix.broadcastLocked()
	ix.mu.Unlock()
	ix.signal(c)
	ix.waitListing(ctx, time.Now().Add(ix.listWait), false)
}

// RemoveSource forgets server name (it went down); its documents and
// windows leave the views, which is signalled when there were any.
func (ix *Index) RemoveSource(name string) {
	ix.mu.Lock()
	st := ix.sources[name]
	delete(ix.sources, name)
	ix.catalog = nil
	ix.broadcastLocked()
	var c Change
	if st != nil {
		c = st.changeIfRemoved()
	}
	ix.mu.Unlock()
	ix.signal(c)
}

// changeIfRemoved is the change that dropping st causes. Call with ix.mu
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
func (ix *Index) Sources() []string {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return slices.Sorted(maps.Keys(ix.sources))
}

// ResourceListChanged handles notifications/resources/list_changed from
// server name: it re-lists the server in the background and signals a
// change only when its set of dpe:// (or window://) URIs differs from the
// cached one. Bursts coalesce: at most one listing in flight and one to
// follow it, and listings of one server start RelistGap apart at least.
func (ix *Index) ResourceListChanged(name string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if st := ix.sources[name]; st != nil && !ix.closed {
		ix.startListingLocked(st, true)
	}
}

// startListingLocked starts listing st in the background unless a
// listing is under way; then, with again, one more follows it (the list
// changed meanwhile). A re-listing of a source listed before starts
// RelistGap after the previous listing at the earliest; what is asked
// until it starts, it covers. Call with ix.mu held.
func (ix *Index) startListingLocked(st *sourceState, again bool) {
	if st.listing {
		st.dirty = st.dirty || again
		return
	}
	st.listing = true
	done := make(chan struct{})
	st.listDone = done
	go func() {
		for {
			ix.mu.Lock()
			wait := ix.relistGap - time.Since(st.lastList)
			listed := st.listed
			ix.mu.Unlock()
			if wait > 0 && listed {
				t := time.NewTimer(wait)
				select {
				case <-t.C:
				case <-ix.base.Done():
					t.Stop()
				}
			}
			ix.mu.Lock()
			st.dirty, st.lastList = false, time.Now()
			ix.mu.Unlock()
			ctx, cancel := context.WithTimeout(ix.base, ix.timeout*4)
			ix.relistOnce(ctx, st)
			cancel()
			ix.mu.Lock()
			if !st.dirty || ix.sources[st.name] != st || ix.closed {
				st.listing, st.dirty = false, false
				close(done)
				ix.broadcastLocked()
				ix.mu.Unlock()
				return
			}
			ix.mu.Unlock()
		}
	}()
}

// ResourceUpdated handles notifications/resources/updated from server
// name: a dpe:// URI of one of its documents (or of a page or element of
// one) invalidates that document's cached entry and signals a Finder
// change (no set comparison); a window:// URI signals a Desktop change;
// any other URI, or one of a server not registered, is ignored.
func (ix *Index) ResourceUpdated(name, uri string) {
	ix.mu.Lock()
	st := ix.sources[name]
	var c Change
	switch {
	case st == nil:
	case strings.HasPrefix(uri, "dpe://"):
		for _, key := range invalidationKeys(uri) {
			if _, listed := st.docSet[key]; listed {
				delete(st.summaries, key)
				st.versions[key]++
				ix.catalog = nil
				c = FinderChanged
			}
		}
	case strings.HasPrefix(uri, windowScheme):
		c = DesktopChanged
	}
	ix.mu.Unlock()
	ix.signal(c)
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

func (ix *Index) signal(c Change) {
	if c == 0 {
		return
	}
	ix.mu.Lock()
	closed := ix.closed
	ix.mu.Unlock()
	if !closed {
		ix.deb.Trigger(c)
	}
}

// waitListing starts the listing of every source never listed
// successfully (unless one is under way) and waits until none of them is
// listing; when full is false, it stops waiting at soft if each has
// published a page by then (or as soon as it has, after soft). ctx ends
// the wait, not the listings.
func (ix *Index) waitListing(ctx context.Context, soft time.Time, full bool) {
	timer := time.NewTimer(time.Until(soft))
	defer timer.Stop()
	late := false
	tried := map[*sourceState]bool{}
	for {
		ix.mu.Lock()
		ready := true
		for _, st := range ix.unlistedLocked(tried) {
			if full || !late || !st.partial {
				ready = false
			}
		}
		ch := ix.changed
		ix.mu.Unlock()
		if ready {
			return
		}
		select {
		case <-ch:
		case <-timer.C:
			late = true
		case <-ctx.Done():
			return
		}
	}
}

// Owner returns the server that serves uri: for dpe:// URIs the owner of
// its host (see "Host ownership"), for other URIs the server that listed
// that exact URI (or, for window:// URIs, the owner of its host when it
// lists windows there). While sources are listed for the first time it
// waits until one lists the URI (or its host) or they are all listed.
func (ix *Index) Owner(ctx context.Context, uri string) (string, bool) {
	if !strings.HasPrefix(uri, "dpe://") {
		return ix.route(ctx, target{uri: uri})
	}
	u, err := dpe.Parse(uri)
	if err != nil {
		return "", false
	}
	return ix.HostOwner(ctx, u)
}

// HostOwner is Owner of a dpe:// URI the caller has parsed already: the
// owner of its host.
func (ix *Index) HostOwner(ctx context.Context, u dpe.URI) (string, bool) {
	return ix.route(ctx, target{host: u.Host, dpe: true})
}

// target is what a read is routed by: the host of a dpe:// URI, or any
// other URI as listed.
type target struct {
	uri  string
	host string
	dpe  bool
}

// route looks t up, waiting while sources are in their first listing.
func (ix *Index) route(ctx context.Context, t target) (string, bool) {
	tried := map[*sourceState]bool{}
	for {
		name, ok, ch := ix.owner(t, tried)
		if ok || ch == nil {
			return name, ok
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return "", false
		}
	}
}

// owner looks t up; when it is not found and some source is still in its
// first listing (started here if needed), it also returns the channel to
// wait on before looking again.
func (ix *Index) owner(t target, tried map[*sourceState]bool) (string, bool, <-chan struct{}) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if name, ok := ix.ownerLocked(t); ok {
		return name, true, nil
	}
	if len(ix.unlistedLocked(tried)) == 0 {
		return "", false, nil
	}
	return "", false, ix.changed
}

// unlistedLocked returns the sources in their first listing, starting
// that listing for those never listed that tried does not hold yet and
// adding them to tried. A source whose listing failed is not waited for:
// it is tried again in the background, with back-off (or when it says its
// list changed), and reported by Unlisted meanwhile. Call with ix.mu held.
func (ix *Index) unlistedLocked(tried map[*sourceState]bool) []*sourceState {
	var out []*sourceState
	for _, st := range ix.sources {
		if st.listed || ix.closed || st.listErr != nil {
			continue
		}
		if !st.listing {
			if tried[st] {
				continue // failed during this wait
			}
			ix.startListingLocked(st, false)
		}
		tried[st] = true
		out = append(out, st)
	}
	return out
}

func (ix *Index) ownerLocked(t target) (string, bool) {
	if t.dpe {
		return ix.liveOwnerLocked(hostKey{dpeKind, t.host})
	}
	uri := t.uri
	names := slices.Sorted(maps.Keys(ix.sources))
	for _, n := range names {
		st := ix.sources[n]
		if _, ok := st.others[uri]; ok {
			return n, true
		}
		if slices.ContainsFunc(st.windows, func(w mcp.Resource) bool { return w.URI == uri }) {
			return n, true
		}
	}
	if strings.HasPrefix(uri, windowScheme) {
		// Another window of a host: its owner's, if it lists windows there.
		host := hostOfWindow(uri)
		o, ok := ix.liveOwnerLocked(hostKey{windowKind, host})
		if ok && slices.ContainsFunc(ix.sources[o].windows, func(w mcp.Resource) bool { return hostOfWindow(w.URI) == host }) {
			return o, true
		}
	}
	return "", false
}

// hostOfWindow is the host of a window:// URI.
func hostOfWindow(uri string) string {
	rest := strings.TrimPrefix(uri, windowScheme)
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// Windows returns the listed window:// resources of every source, once
// the sources are listed, or DefaultDesktopWait has passed (a source
// listing for longer is left out; a Desktop change is signalled when its
// windows come).
func (ix *Index) Windows(ctx context.Context) []Window {
	wctx, cancel := context.WithTimeout(ctx, DefaultDesktopWait)
	ix.waitListing(wctx, time.Now(), true)
	cancel()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var out []Window
	for _, n := range slices.Sorted(maps.Keys(ix.sources)) {
		for _, w := range ix.sources[n].windows {
			out = append(out, Window{Server: n, Resource: w})
		}
	}
	return out
}

// Unlisted returns the sources whose resources have not been listed yet
// and why: the error of the last failed listing, or nil while the first
// one is under way. Their documents are missing from Documents.
func (ix *Index) Unlisted() map[string]error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var out map[string]error
	for name, st := range ix.sources {
		if !st.listed {
			if out == nil {
				out = map[string]error{}
			}
			out[name] = st.listErr
		}
	}
	return out
}
