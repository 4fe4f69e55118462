package resindex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Documents returns the catalog entries of every source: cached entries as
// they are, and the missing ones built from a Level 1 read (at most
// Concurrency at a time). A document whose read fails is logged and left
// out until it is updated or re-listed. With a warm cache it does no I/O
// and returns the same shared slice, which callers must not modify.
func (ix *Index) Documents(ctx context.Context) []protocol.DPEDocumentSummary {
	ix.mu.Lock()
	if cat := ix.catalog; cat != nil {
		ix.mu.Unlock()
		return cat
	}
	ix.mu.Unlock()
	ix.ensureListed(ctx)
	type job struct {
		st      *sourceState
		uri     string
		version uint64
	}
	var jobs []job
	ix.mu.Lock()
	for _, st := range ix.sources {
		for _, uri := range st.docs {
			if s, ok := st.summaries[uri]; !ok || (!s.ok && time.Since(s.at) > NegativeTTL) {
				jobs = append(jobs, job{st, uri, st.versions[uri]})
			}
		}
	}
	ix.mu.Unlock()

	if len(jobs) == 0 {
		return ix.collect(nil)
	}
	// The reads go on when this call returns early (see below), so they
	// do not end with its context.
	rctx := context.WithoutCancel(ctx)
	sem := make(chan struct{}, ix.conc)
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
			ix.mu.Lock()
			cached, ok := j.st.summaries[j.uri]
			ix.mu.Unlock()
			if ok && cached.ok {
				fresh[i] = cached
				return
			}
			fresh[i] = ix.readSummary(ctx, j.st, j.uri)
			if ctx.Err() != nil {
				return // an interrupted read says nothing about the document
			}
			ix.mu.Lock()
			if ix.sources[j.st.name] == j.st && j.st.versions[j.uri] == j.version {
				if _, listed := j.st.docSet[j.uri]; listed {
					j.st.summaries[j.uri] = fresh[i]
					ix.catalog = nil
				}
			}
			ix.mu.Unlock()
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
	case <-time.After(ix.firstWait):
		go func() {
			<-done
			ix.signal(FinderChanged)
		}()
		return ix.collect(nil)
	case <-ctx.Done():
		return ix.collect(nil)
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
	return ix.collect(extra)
}

// collect gathers the cached entries, sources by name and documents in
// list order; extra supplies entries missing from the cache.
func (ix *Index) collect(extra map[*sourceState]map[string]summary) []protocol.DPEDocumentSummary {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.catalog != nil {
		return ix.catalog
	}
	complete := true
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
				d := s.doc
				if p := st.paths[uri]; p != "" {
					d.Path = p
				}
				out = append(out, d)
			case !ok:
				out = append(out, provisional(st.name, uri, st.listedAs[uri]))
			}
		}
	}
	if complete {
		ix.catalog = out
	}
	return out
}

// provisional is the catalog entry of a document whose Level 1 read has
// not arrived yet, from what its listing said: title, summary, modified
// time, and the _meta keys of the document server (doc_ref, file_type,
// unreadable).
func provisional(server, uri string, r mcp.Resource) protocol.DPEDocumentSummary {
	str := func(k string) string { return metaString(r, k) }
	d := protocol.DPEDocumentSummary{
		DocRef: str("doc_ref"), URI: uri, FileType: str("file_type"), Title: r.Name, Path: str("path"),
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
	return d
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
// Concurrent reads of one URI share a single request.
func (ix *Index) readSummary(ctx context.Context, st *sourceState, uri string) summary {
	key := st.name + "\x00" + uri
	v, _, _ := ix.flight.Do(key, func() (any, error) {
		callCtx, cancel := context.WithTimeout(ctx, ix.timeout)
		defer cancel()
		contents, err := st.src.ReadResource(callCtx, uri)
		if err == nil {
			var doc protocol.DPEDocumentSummary
			doc, err = buildSummary(uri, st.name, contents)
			if err == nil {
				if doc.Path == "" {
					ix.mu.Lock()
					doc.Path = metaString(st.listedAs[uri], "path")
					ix.mu.Unlock()
				}
				return summary{doc: doc, ok: true}, nil
			}
		}
		ix.log.Warn("resource index: document left out of the catalog", "server", st.name, "uri", uri, "err", err)
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
