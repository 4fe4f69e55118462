package docserver

import (
	"context"
	"encoding/base64"
	"path"
	"sort"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
	"github.com/smcp-browse/smcp-browse/dpe"
)

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
		// What a catalog entry needs besides title and summary, so that
		// a client can show the document before its Level 1 read.
		Meta: &mcp.Meta{AdditionalFields: map[string]any{
			"doc_ref":   e.docRef,
			"file_type": e.fileType,
			"path":      e.rel,
			"file_uri":  s.fileURI(e.rel),
		}},
	}
}

// unreadableReason is the one-line reason shown for a document that
// cannot be read.
func unreadableReason(err error) string {
	return truncateRunes(firstLine(err.Error()), 300)
}

// truncateRunes cuts s to at most n runes, marking the cut with "…".
func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// unreadableResource is the resources/list entry of a document that
// cannot be read: its file name as title, the reason as description and
// in _meta.unreadable.
func (s *Server) unreadableResource(e *entry, err error) mcp.Resource {
	reason := unreadableReason(err)
	r := s.resource(e, extract.Meta{Title: path.Base(e.rel), Summary: "Unreadable: " + reason})
	r.Meta.AdditionalFields["unreadable"] = reason
	return r
}

// pendingResource is the entry of a document whose peek has not finished
// yet: its file name as title and _meta.pending. When the peek finishes,
// notifications/resources/updated tells the client to read it again.
func (s *Server) pendingResource(e *entry) mcp.Resource {
	r := s.resource(e, extract.Meta{Title: path.Base(e.rel)})
	r.Meta.AdditionalFields["pending"] = true
	return r
}

// afterListResources answers resources/list. The server registers no
// static resources, so mcp-go's own handler produces an empty page; this
// hook replaces it with a page of the index. Pages are ordered by path and
// the cursor is the (base64) path of the last entry of the previous page,
// so paging stays correct while files come and go.
//
// Every document of the page is listed: the peeks it needs run on the
// peek workers, and the page waits for them at most ListWait. A document
// whose peek failed is listed as unreadable with the reason; one whose
// peek is still running is listed as pending and announced with
// notifications/resources/updated when its peek ends.
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
	page := entries[i:min(len(entries), i+s.opts.ListPageSize)]
	calls := make([]*peekCall, len(page))
	for j, e := range page {
		if _, ok := s.docs.peek(keyOf(e.fileInfo)); !ok {
			calls[j] = s.startPeek(e, false)
		}
	}
	wait, cancel := context.WithTimeout(ctx, s.opts.ListWait)
	defer cancel()
	for _, c := range calls {
		if c == nil {
			continue
		}
		select {
		case <-c.done:
		case <-wait.Done():
		}
		if wait.Err() != nil {
			break
		}
	}
	res := make([]mcp.Resource, 0, len(page))
	for j, e := range page {
		if c := calls[j]; c != nil && s.peeks.announceIfRunning(c) {
			res = append(res, s.pendingResource(e))
			continue
		}
		m, err := s.metaOf(ctx, e) // known by now: does not block
		switch {
		case err == nil:
			res = append(res, s.resource(e, m))
		case isContextErr(err) && ctx.Err() != nil:
			res = append(res, s.pendingResource(e))
		default:
			res = append(res, s.unreadableResource(e, err))
		}
	}
	result.Resources = res
	s.text.markListed()
	result.NextCursor = ""
	if i+len(page) < len(entries) {
		result.NextCursor = mcp.Cursor(base64.StdEncoding.EncodeToString([]byte(page[len(page)-1].rel)))
	}
}

// isDone reports whether ch is closed.
func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
