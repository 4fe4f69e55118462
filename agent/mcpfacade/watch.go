package mcpfacade

import (
	"context"
	"fmt"
	"maps"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// stamp is what tells that a catalog entry changed.
type stamp struct {
	modified string
	pages    int
	pending  bool
	title    string
}

func stampOf(d protocol.DPEDocumentSummary) stamp {
	return stamp{modified: d.LastModified, pages: d.PageCount, pending: d.Pending, title: d.Title}
}

// watchPage is the size of the catalog pages the façade reads to stamp a
// computer's catalog.
const watchPage = 500

// stampCatalog reads computer's whole catalog (at most WatchLimit
// entries) and returns the stamp of each entry by URI. It learns the
// hosts the entries name.
func (f *Facade) stampCatalog(ctx context.Context, computer string) (map[string]stamp, error) {
	office, err := f.attached(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]stamp{}
	for offset := 0; offset < f.opts.WatchLimit; {
		cctx, cancel := f.call(ctx)
		ret, err := office.GetFinder(cctx, computer, protocol.FinderQuery{Offset: offset, Limit: min(watchPage, f.opts.WatchLimit-offset)})
		cancel()
		if err != nil {
			return nil, fmt.Errorf("catalog of %s: %w", computer, err)
		}
		for _, d := range ret.Documents {
			out[d.URI] = stampOf(d)
			if h, err := hostOf(d); err == nil {
				f.learnHost(h, computer)
			}
		}
		offset += len(ret.Documents)
		if len(ret.Documents) == 0 || offset >= ret.TotalCount {
			break
		}
	}
	return out, nil
}

// stampAll takes the stamps of every computer, quietly: it is the state
// later changes are told against.
func (f *Facade) stampAll() {
	ctx := context.Background()
	computers, err := f.listComputers(ctx)
	if err != nil {
		f.log.Debug("stamp catalogs", "err", err)
		return
	}
	for _, c := range computers {
		s, err := f.stampCatalog(ctx, c)
		if err != nil {
			f.log.Debug("stamp catalog", "computer", c, "err", err)
			continue
		}
		f.mu.Lock()
		f.stamps[c] = s
		f.mu.Unlock()
	}
}

// refresh is the debounced answer to notify:update_finder: it stamps the
// catalogs of the computers that changed and tells the hosts what did —
// list_changed when documents came or went, updated for each document
// whose entry changed.
func (f *Facade) refresh(computers map[string]struct{}) {
	ctx := context.Background()
	listChanged := false
	f.mu.Lock()
	only := f.only
	f.mu.Unlock()
	for c := range computers {
		if only != "" && c != only {
			continue
		}
		now, err := f.stampCatalog(ctx, c)
		if err != nil {
			f.log.Warn("catalog changed but cannot be read", "computer", c, "err", err)
			continue
		}
		f.mu.Lock()
		before, known := f.stamps[c]
		f.stamps[c] = now
		f.mu.Unlock()
		added, removed, changed := diff(before, now)
		if !known || added+removed > 0 {
			listChanged = true
		}
		for _, uri := range changed {
			if u, err := dpe.Parse(uri); err == nil {
				for _, err := range f.subs.NotifyUpdated(f.mcp, u.Host, u.DocRef) {
					f.log.Debug("resource updated notification not sent", "uri", uri, "err", err)
				}
			}
		}
	}
	if listChanged {
		f.mcp.SendNotificationToAllClients(mcp.MethodNotificationResourcesListChanged, nil)
	}
}

// diff compares two stamps of a catalog: how many entries came and went,
// and the URIs of those present in both whose stamp changed.
func diff(before, now map[string]stamp) (added, removed int, changed []string) {
	for uri, s := range now {
		old, ok := before[uri]
		switch {
		case !ok:
			added++
		case old != s:
			changed = append(changed, uri)
		}
	}
	for uri := range maps.Keys(before) {
		if _, ok := now[uri]; !ok {
			removed++
		}
	}
	return added, removed, changed
}
