package resindex

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/desktop"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/sanitize"
)

// relistOnce lists st, updates its cache, subscribes and signals changes.
// A first listing publishes its pages as they come (the catalog shows
// them, marked as listing); a listing of a source listed before replaces
// the old one only when it is complete.
func (ix *Index) relistOnce(ctx context.Context, st *sourceState) {
	l := newListing()
	ix.mu.Lock()
	prevRefused, prevTruncated, prevRejected := st.refused, st.truncated, st.rejected
	ix.mu.Unlock()
	err := ix.listAll(ctx, st.src, func(page []mcp.Resource, last bool) bool {
		return ix.addPage(st, l, page, last)
	})
	if err != nil {
		ix.listFailed(st, err)
		return
	}
	ix.mu.Lock()
	st.listErr, st.backoff = nil, 0
	if ix.sources[st.name] != st {
		ix.mu.Unlock()
		return // replaced or removed meanwhile
	}
	c := listingChange(st, l)
	st.dropSummariesNotIn(l)
	st.listed, st.partial = true, false
	ix.catalog = nil
	st.publish(l)
	ix.logRefusalsLocked(st, prevRefused)
	ix.logListingCutsLocked(st, l, prevTruncated, prevRejected)
	ix.broadcastLocked()
	watch := l.watch()
	ix.mu.Unlock()

	ix.announce(ctx, st, c, watch)
}

// addPage adds one page of st's listing to l, up to ix.maxEntries entries
// (past them l is truncated and the page taken as the last); while st was
// never listed, a page that is not the last is published at once. It
// reports whether l is truncated, which stops the listing.
func (ix *Index) addPage(st *sourceState, l *listing, page []mcp.Resource, last bool) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	from := len(l.docs)
	for _, r := range page {
		if l.offered >= ix.maxEntries {
			l.truncated, last = true, true
			break
		}
		l.offered++
		ix.addLocked(l, st.name, r)
	}
	if !last && !st.listed && ix.sources[st.name] == st {
		ix.publishPartialLocked(st, l, from)
	}
	return l.truncated
}

// publishPartialLocked publishes the listing l of st while it is still
// coming and, when the catalog was asked for, wants the summaries of the
// documents from index from on. Call with ix.mu held.
func (ix *Index) publishPartialLocked(st *sourceState, l *listing, from int) {
	st.partial = true
	st.publish(l)
	ix.catalog = nil
	ix.broadcastLocked()
	if ix.wanted { // the catalog was asked for: read as they come
		for _, uri := range l.docs[from:] {
			if _, ok := st.summaries[uri]; !ok {
				ix.wantLocked(readKey{st, uri}, false)
			}
		}
	}
}

// listFailed records that listing st failed with err and, while st is
// still a live source, schedules a retry after a doubled backoff.
func (ix *Index) listFailed(st *sourceState, err error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	st.listErr = err
	st.backoff = min(max(2*st.backoff, ix.retryMin), ix.retryMax)
	if st.retry == nil && ix.sources[st.name] == st && !ix.closed {
		st.retry = time.AfterFunc(st.backoff, func() {
			ix.mu.Lock()
			defer ix.mu.Unlock()
			st.retry = nil
			if ix.sources[st.name] == st && !ix.closed {
				ix.startListingLocked(st, true)
			}
		})
	}
	if ix.closed {
		ix.log.Debug("resource index: listing ended by close", "server", st.name, "err", err)
		return
	}
	ix.log.Warn("resource index: resources/list failed", "server", st.name, "err", err, "retry_in", st.backoff)
}

// listingChange says what the complete listing l changes against the one
// st has: for a first listing, whether it has any documents or windows.
func listingChange(st *sourceState, l *listing) Change {
	var c Change
	if !st.listed {
		if len(l.docs) > 0 {
			c |= FinderChanged
		}
		if len(l.windows) > 0 {
			c |= DesktopChanged
		}
		return c
	}
	if !maps.Equal(st.docSet, l.docSet) {
		c |= FinderChanged
	}
	if !sameWindows(st.windows, l.windows) {
		c |= DesktopChanged
	}
	return c
}

// dropSummariesNotIn forgets the summaries of documents listing l lacks.
func (st *sourceState) dropSummariesNotIn(l *listing) {
	for uri := range st.summaries {
		if _, ok := l.docSet[uri]; !ok {
			delete(st.summaries, uri)
		}
	}
}

// logListingCutsLocked warns of the entries listing l rejected and of its
// truncation, each unless the previous listing already had the same.
// Call with ix.mu held.
func (ix *Index) logListingCutsLocked(st *sourceState, l *listing, prevTruncated bool, prevRejected rejections) {
	if l.rejected.n > 0 && l.rejected != prevRejected {
		ix.log.Warn("resource index: listed entries rejected: they break the rules of their URI scheme or carry control characters",
			"server", st.name, "entries", l.rejected.n, "first", strconv.Quote(sanitize.Clip(l.rejected.uri, 200)), "why", l.rejected.why)
	}
	if l.truncated && !prevTruncated {
		ix.log.Warn("resource index: listing cut short: more entries than the index takes per server; the rest are left out",
			"server", st.name, "max_entries_per_server", ix.maxEntries)
	}
}

// announce signals change c of st's listing and subscribes to the URIs
// in watch when st's source takes subscriptions.
func (ix *Index) announce(ctx context.Context, st *sourceState, c Change, watch []string) {
	if c == 0 {
		ix.log.Debug("resource index: resource list changed but the dpe:// and window:// sets did not", "server", st.name)
	}
	ix.signal(c)
	if sub, ok := st.src.(Subscriber); ok {
		if err := sub.Subscribe(ctx, watch); err != nil {
			ix.log.Warn("resource index: subscribe failed", "server", st.name, "uris", len(watch), "err", err)
		}
	}
}

// maxPages bounds cursor following against a server that never ends.
const maxPages = 10_000

// listAll follows the cursors of resources/list and hands each page to
// add, last telling the final one; add returns true to stop there.
func (ix *Index) listAll(ctx context.Context, src Source, add func(page []mcp.Resource, last bool) bool) error {
	cursor := ""
	seen := map[string]bool{}
	for page := 0; ; page++ {
		if page >= maxPages {
			return fmt.Errorf("resources/list: more than %d pages", maxPages)
		}
		callCtx, cancel := context.WithTimeout(ctx, ix.timeout)
		res, next, err := src.ListResources(callCtx, cursor)
		cancel()
		if err != nil {
			return fmt.Errorf("resources/list (cursor %q): %w", cursor, err)
		}
		if next != "" && seen[next] {
			return fmt.Errorf("resources/list: cursor %q repeats", next)
		}
		if add(res, next == "") || next == "" {
			return nil
		}
		seen[next] = true
		cursor = next
	}
}

// publish makes listing l the source's listing. Later pages added to a
// published listing are seen at once, so only ever add to it with ix.mu
// held.
func (st *sourceState) publish(l *listing) {
	st.docs, st.docSet, st.refused, st.windows, st.others = l.docs, l.docSet, l.refused, l.windows, l.others
	st.listedAs, st.truncated, st.rejected = l.listedAs, l.truncated, l.rejected
}

// rejections counts the entries of a listing that break the rules, with
// the first of them and why.
type rejections struct {
	n        int
	uri, why string
}

type listing struct {
	listedAs map[string]mcp.Resource
	docs     []string
	docSet   map[string]struct{}
	refused  map[hostKey]*refusal
	rejected rejections
	windows  []mcp.Resource
	winSet   map[string]struct{}
	others   map[string]struct{}
	// offered counts the entries the server listed; past maxEntries the
	// listing is truncated.
	offered   int
	truncated bool
}

func (l listing) watch() []string {
	out := slices.Clone(l.docs)
	for _, w := range l.windows {
		out = append(out, w.URI)
	}
	return out
}

func newListing() *listing {
	return &listing{listedAs: map[string]mcp.Resource{}, docSet: map[string]struct{}{}, refused: map[hostKey]*refusal{},
		winSet: map[string]struct{}{}, others: map[string]struct{}{}}
}

// reject counts uri as breaking the rules, for why.
func (l *listing) reject(uri, why string) {
	if l.rejected.n == 0 {
		l.rejected.uri, l.rejected.why = uri, why
	}
	l.rejected.n++
}

// MaxURIBytes bounds a listed URI the index takes.
const MaxURIBytes = 4096

// badURI says why no listed URI may be taken as it is, whatever its
// scheme, or "": too long, not UTF-8, or with control characters (C0,
// DEL, C1), which no URI has and a terminal would act on.
func badURI(uri string) string {
	switch {
	case len(uri) > MaxURIBytes:
		return fmt.Sprintf("longer than %d bytes", MaxURIBytes)
	case !utf8.ValidString(uri):
		return "not UTF-8"
	case strings.ContainsFunc(uri, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) }):
		return "control characters"
	}
	return ""
}

// refuse counts r as refused under k, owned by owner.
func (l *listing) refuse(k hostKey, owner string) {
	if l.refused[k] == nil {
		l.refused[k] = &refusal{owner: owner}
	}
	l.refused[k].entries++
}

// addLocked classifies one resource server listed: a Level 1 dpe://
// document, a window, or another URI (routed by the read bridge). An
// entry that breaks the rules (badURI, the dpe:// rules that answer 4204,
// the window:// ones) is rejected; one under a host another server owns
// is refused. Call with ix.mu held.
func (ix *Index) addLocked(l *listing, server string, r mcp.Resource) {
	if why := badURI(r.URI); why != "" {
		l.reject(r.URI, why)
		return
	}
	switch {
	case strings.HasPrefix(r.URI, "dpe://"):
		u, err := dpe.Parse(r.URI)
		if err != nil {
			l.reject(r.URI, err.Error())
			return
		}
		k := hostKey{dpeKind, u.Host}
		if owner, ok := ix.claimLocked(k, server); !ok {
			l.refuse(k, owner)
			return
		}
		if u.Level() != dpe.LevelDocument {
			l.others[r.URI] = struct{}{}
			return
		}
		if _, dup := l.docSet[r.URI]; !dup {
			l.docSet[r.URI] = struct{}{}
			l.docs = append(l.docs, r.URI)
			l.listedAs[r.URI] = r
		}
	case strings.HasPrefix(r.URI, windowScheme):
		if _, _, _, err := desktop.Identify(r.URI); err != nil {
			l.reject(r.URI, err.Error())
			return
		}
		k := hostKey{windowKind, hostOfWindow(r.URI)}
		if owner, ok := ix.claimLocked(k, server); !ok {
			l.refuse(k, owner)
			return
		}
		if _, dup := l.winSet[r.URI]; !dup {
			l.winSet[r.URI] = struct{}{}
			l.windows = append(l.windows, r)
		}
	default:
		l.others[r.URI] = struct{}{}
	}
}

func sameWindows(a, b []mcp.Resource) bool {
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
