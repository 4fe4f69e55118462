package docserver

import (
	"context"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
)

// maxCompletions is the MCP bound on completion values per response.
const maxCompletions = 100

// completer answers completion/complete for the template arguments
// doc_ref, page_index (needs doc_ref in the context arguments) and
// element_id (needs doc_ref; page_index narrows it to one page). Values
// match by prefix, in index order; total counts all matches and hasMore
// tells when more than 100 matched. An unknown doc_ref gives no values.
type completer struct{ s *Server }

// CompleteResourceArgument implements server.ResourceCompletionProvider.
func (c *completer) CompleteResourceArgument(ctx context.Context, _ string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	var matches []string
	switch arg.Name {
	case "doc_ref":
		for _, e := range c.s.index.snapshot() {
			if strings.HasPrefix(e.docRef, arg.Value) {
				matches = append(matches, e.docRef)
			}
		}
	case "page_index":
		h, ok := c.document(ctx, cc)
		if !ok {
			break
		}
		for i := range h.pageCount() {
			if v := strconv.Itoa(i); strings.HasPrefix(v, arg.Value) {
				matches = append(matches, v)
			}
		}
	case "element_id":
		h, ok := c.document(ctx, cc)
		if !ok {
			break
		}
		var pages []extract.Page
		if v, ok := cc.Arguments["page_index"]; ok {
			// One page: only it is read.
			if n, err := strconv.Atoi(v); err == nil && n >= 0 {
				pages, _ = h.pages(ctx, n, n+1)
			}
		} else if doc, err := h.whole(ctx); err == nil {
			pages = doc.Pages
		}
		for _, p := range pages {
			for _, e := range p.Elements {
				if strings.HasPrefix(e.ID, arg.Value) {
					matches = append(matches, e.ID)
				}
			}
		}
	}
	out := &mcp.Completion{Values: matches, Total: len(matches)}
	if len(matches) > maxCompletions {
		out.Values, out.HasMore = matches[:maxCompletions], true
	}
	if out.Values == nil {
		out.Values = []string{}
	}
	return out, nil
}

// document loads the document named by the context argument doc_ref; ok
// is false when there is none or it cannot be read.
func (c *completer) document(ctx context.Context, cc mcp.CompleteContext) (*handle, bool) {
	ref := cc.Arguments["doc_ref"]
	if ref == "" {
		return nil, false
	}
	_, h, err := c.s.load(ctx, ref)
	return h, err == nil
}
