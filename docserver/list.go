package docserver

import (
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
	"github.com/smcp-browse/smcp-browse/dpe"
)

// metaItem is the peeked title and summary of one file version.
type metaItem struct {
	key  cacheKey
	meta extract.Meta
	err  error
}

// metaCache remembers peeks (and peek failures) per path until the file
// changes.
type metaCache struct {
	mu sync.Mutex
	m  map[string]metaItem
}

func newMetaCache() *metaCache { return &metaCache{m: map[string]metaItem{}} }

func (c *metaCache) get(k cacheKey) (metaItem, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it, ok := c.m[k.rel]
	return it, ok && it.key == k
}

func (c *metaCache) put(it metaItem) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[it.key.rel] = it
}

func (c *metaCache) forget(rel string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, rel)
}

// metaOf returns the title and summary of a document for listing: from the
// parsed document when it is cached, else from a peek (cached per file
// version). A file whose peek fails (a corrupt package) is reported once
// and left out of listings until it changes.
func (s *Server) metaOf(ctx context.Context, e *entry) (extract.Meta, error) {
	k := keyOf(e.fileInfo)
	if doc, ok := s.docs.peek(k); ok {
		return extract.Meta{Title: doc.Title, Summary: doc.Summary}, nil
	}
	if it, ok := s.metas.get(k); ok {
		return it.meta, it.err
	}
	m, err := s.peek(ctx, e)
	if err != nil {
		if ctx.Err() != nil {
			return extract.Meta{}, ctx.Err()
		}
		s.log.Warn("skip unreadable document", "path", e.rel, "err", err)
	}
	s.metas.put(metaItem{key: k, meta: m, err: err})
	return m, err
}

func (s *Server) peek(ctx context.Context, e *entry) (extract.Meta, error) {
	f, err := s.root.Open(e.rel)
	if err != nil {
		return extract.Meta{}, fmt.Errorf("open: %w", err)
	}
	defer f.Close()
	return s.parser.Peek(ctx, e.rel, f, e.size)
}

// resource is the resources/list entry of a document.
func (s *Server) resource(e *entry, m extract.Meta) mcp.Resource {
	return mcp.Resource{
		URI:         dpe.Document(s.host, e.docRef).String(),
		Name:        m.Title,
		Description: m.Summary,
		MIMEType:    "application/json",
		Annotated: mcp.Annotated{Annotations: &mcp.Annotations{
			LastModified: e.mtime.UTC().Format(time.RFC3339),
		}},
		Meta: &mcp.Meta{AdditionalFields: map[string]any{
			"doc_ref":   e.docRef,
			"file_type": e.fileType,
			"path":      e.rel,
		}},
	}
}

// afterListResources answers resources/list. The server registers no
// static resources, so mcp-go's own handler produces an empty page; this
// hook replaces it with a page of the index. Pages are ordered by path and
// the cursor is the (base64) path of the last entry of the previous page,
// so paging stays correct while files come and go.
func (s *Server) afterListResources(ctx context.Context, _ any, req *mcp.ListResourcesRequest, result *mcp.ListResourcesResult) {
	after := ""
	if c := string(req.Params.Cursor); c != "" {
		if b, err := base64.StdEncoding.DecodeString(c); err == nil {
			after = string(b)
		}
	}
	entries := s.index.snapshot()
	i := 0
	if after != "" {
		i = sort.Search(len(entries), func(i int) bool { return entries[i].rel > after })
	}
	res := make([]mcp.Resource, 0, min(s.opts.ListPageSize, len(entries)-i))
	last := ""
	for ; i < len(entries) && len(res) < s.opts.ListPageSize; i++ {
		e := entries[i]
		m, err := s.metaOf(ctx, e)
		last = e.rel
		if err != nil {
			continue
		}
		res = append(res, s.resource(e, m))
	}
	result.Resources = res
	result.NextCursor = ""
	if i < len(entries) {
		result.NextCursor = mcp.Cursor(base64.StdEncoding.EncodeToString([]byte(last)))
	}
}
