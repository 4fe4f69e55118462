package resindex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/sanitize"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Catalog is the document list of an index at one moment.
type Catalog struct {
	// Documents are the entries of every source, sources by name and
	// documents in list order; an entry whose Level 1 read has not
	// arrived is built from the listing and marked Pending.
	Documents []protocol.DPEDocumentSummary
	// Pending counts the provisional entries.
	Pending int
	// Listing is true while a source's first listing is under way: more
	// documents may come.
	Listing bool
	// Refused are the documents sources listed under hosts that other
	// sources own, left out of Documents.
	Refused []protocol.RefusedHost
}

// Catalog returns the documents known now and starts the Level 1 reads
// of those not read yet, which go on after it returns. Sources never
// listed are listed first: it waits until their listing is complete or,
// for a listing of many pages, until ListWait has passed and some pages
// are in. A document whose read failed is left out until it is updated,
// re-listed or NegativeTTL has passed. With a warm cache it does no I/O
// and returns the same shared slice, which callers must not modify.
func (ix *Index) Catalog(ctx context.Context) Catalog {
	ix.waitListing(ctx, time.Now().Add(ix.listWait), false)
	return ix.collect()
}

// Settle is Catalog for one answer: need says which provisional entries
// the answer depends on, and Settle reads them ahead of the others and
// asks again, until need names none or the wait is over: FirstWait, or
// FilterWait when filtered (the answer filters on what the reads or the
// rest of the listing bring), which also waits for the listings to end.
// The Catalog returned is the one need saw last.
func (ix *Index) Settle(ctx context.Context, filtered bool, need func([]protocol.DPEDocumentSummary) []protocol.DPEDocumentSummary) Catalog {
	wait := ix.firstWait
	if filtered {
		wait = ix.filterWait
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	cat := ix.Catalog(ctx)
	if filtered && cat.Listing {
		ix.waitListing(ctx, time.Now(), true)
		cat = ix.collect()
	}
	for {
		missing := need(cat.Documents)
		if len(missing) == 0 || ctx.Err() != nil {
			ix.answered(cat)
			return cat
		}
		ix.Await(ctx, missing)
		cat = ix.collect()
	}
}

// answered notes that cat was given out: when it holds provisional
// entries, a Finder change is signalled once the reads are all done (at
// once if they already are).
func (ix *Index) answered(cat Catalog) {
	if cat.Pending == 0 {
		return
	}
	ix.mu.Lock()
	idle := ix.reads.workers == 0
	ix.shown = !idle
	ix.mu.Unlock()
	if idle {
		ix.signal(FinderChanged)
	}
}

// Documents is Settle of a whole unfiltered catalog: it waits at most
// FirstWait for every read.
func (ix *Index) Documents(ctx context.Context) []protocol.DPEDocumentSummary {
	return ix.Settle(ctx, false, func(docs []protocol.DPEDocumentSummary) []protocol.DPEDocumentSummary { return docs }).Documents
}

// collect gathers the entries, sources by name and documents in list
// order, and queues the reads of those missing.
func (ix *Index) collect() Catalog {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.wanted = true
	refused := ix.refusedLocked()
	if ix.catalog != nil {
		return Catalog{Documents: ix.catalog, Refused: refused}
	}
	complete := true
	listing := false
	pending := 0
	names := slices.Sorted(maps.Keys(ix.sources))
	n := 0
	for _, name := range names {
		n += len(ix.sources[name].docs)
	}
	out := make([]protocol.DPEDocumentSummary, 0, n)
	for _, name := range names {
		st := ix.sources[name]
		if !st.listed {
			complete = false // must be listed again on the next call
			listing = true
		}
		for _, uri := range st.docs {
			s, ok := st.summaries[uri]
			switch {
			case ok && s.ok:
				d := s.doc
				// The listing's _meta.path (the path relative to the
				// server's root) wins over what the read said.
				if p := metaString(st.listedAs[uri], "path"); p != "" {
					d.Path = sanitize.Clip(p, MaxPathBytes)
				}
				out = append(out, d)
			case ok:
				complete = false
				if time.Since(s.at) > NegativeTTL {
					ix.wantLocked(readKey{st, uri}, false)
				}
			default:
				complete = false
				pending++
				ix.wantLocked(readKey{st, uri}, false)
				out = append(out, provisional(st.name, uri, st.listedAs[uri]))
			}
		}
	}
	if complete {
		ix.catalog = out
	}
	return Catalog{Documents: out, Pending: pending, Listing: listing, Refused: refused}
}

// provisional is the catalog entry of a document whose Level 1 read has
// not arrived yet, from what its listing said: title, summary, modified
// time, and the _meta keys of the document server (doc_ref, file_uri,
// file_type, path, unreadable).
func provisional(server, uri string, r mcp.Resource) protocol.DPEDocumentSummary {
	str := func(k string) string { return metaString(r, k) }
	d := protocol.DPEDocumentSummary{
		DocRef: str("doc_ref"), URI: uri, FileURI: str("file_uri"), FileType: str("file_type"), Title: r.Name, Path: str("path"),
		Summary: r.Description, Server: server, Unreadable: str("unreadable"), Pending: true,
	}
	if r.Annotations != nil {
		d.LastModified = r.Annotations.LastModified
	}
	if d.DocRef == "" {
		if u, err := dpe.Parse(uri); err == nil {
			d.DocRef = u.DocRef
		}
	}
	if d.Title == "" {
		d.Title = d.DocRef
	}
	clipNames(&d)
	return d
}

// Bounds of a catalog entry's texts: a server may list or read a title of
// any length, a catalog entry keeps this much (cut on a rune, marked …).
const (
	MaxTitleBytes   = 1 << 10
	MaxSummaryBytes = 4 << 10
	MaxPathBytes    = 4 << 10
)

// clipNames bounds the texts of d.
func clipNames(d *protocol.DPEDocumentSummary) {
	d.Title = sanitize.Clip(d.Title, MaxTitleBytes)
	d.Summary = sanitize.Clip(d.Summary, MaxSummaryBytes)
	d.Path = sanitize.Clip(d.Path, MaxPathBytes)
}

// metaString is a string of a listed resource's _meta (the document
// server puts doc_ref, file_type, path and unreadable there).
func metaString(r mcp.Resource, key string) string {
	if r.Meta == nil {
		return ""
	}
	v, _ := r.Meta.AdditionalFields[key].(string)
	return v
}

// readSummary reads the Level 1 document at uri and builds its entry.
// The read queue runs one read per document of a source incarnation at a
// time (readKey), so there is nothing to share here.
func (ix *Index) readSummary(ctx context.Context, st *sourceState, uri string) summary {
	callCtx, cancel := context.WithTimeout(ctx, ix.timeout)
	defer cancel()
	contents, err := st.src.ReadResource(callCtx, uri)
	if err == nil {
		var doc protocol.DPEDocumentSummary
		if doc, err = buildSummary(uri, st.name, contents); err == nil {
			return summary{doc: doc, ok: true}
		}
	}
	if ix.base.Err() != nil {
		ix.log.Debug("resource index: read ended by close", "server", st.name, "uri", uri, "err", err)
	} else {
		ix.leftOut.Warn("resource index: document left out of the catalog", "server", st.name, "uri", uri, "err", err)
	}
	return summary{ok: false, at: time.Now()}
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
	clipNames(&s)
	return s, nil
}
