package mcpfacade

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

type documentArgs struct {
	URI        string `json:"uri"`
	PageOffset int    `json:"page_offset"`
	MaxPages   int    `json:"max_pages"`
}

// documentAnswer is finder_document's answer: the document as its
// computer sends it, the computer, and the cut of the page index.
type documentAnswer struct {
	Computer string               `json:"computer"`
	Document protocol.DPEDocument `json:"document"`
	// PagesTruncated says the index goes on past the pages shown; NextPageOffset
	// is the page_offset that shows the next ones.
	PagesTruncated bool `json:"pages_truncated"`
	NextPageOffset *int `json:"next_page_offset,omitempty"`
}

func (f *Facade) toolDocument(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a documentArgs
	if err := req.BindArguments(&a); err != nil {
		return badArgument("%v", err), nil
	}
	u, err := dpe.Parse(a.URI)
	if err != nil {
		return toolError(err), nil
	}
	if u.Level() != dpe.LevelDocument {
		return badArgument("uri %q is not a document's URI (dpe://HOST/DOC_REF): for a page use finder_page", a.URI), nil
	}
	limit := a.MaxPages
	if limit <= 0 {
		limit = defaultPages
	}
	limit = min(limit, maxPages)
	offset := max(a.PageOffset, 0)
	q := dpe.Query{Format: dpe.FormatJSON, Depth: "pages", Offset: &offset, Limit: &limit}
	ret, computer, err := f.read(ctx, u.WithQuery(q).String())
	if err != nil {
		return toolError(err), nil
	}
	out := documentAnswer{Computer: computer}
	d := &out.Document
	if err := decodeFirst(ret, d); err != nil {
		return toolError(err), nil
	}
	total := d.PageCount
	if d.PageTotal != nil {
		total = *d.PageTotal
	}
	if next := offset + len(d.Pages); len(d.Pages) > 0 && next < total {
		out.PagesTruncated = true
		out.NextPageOffset = &next
	}
	return jsonResult(out), nil
}

type pageArgs struct {
	URI        string   `json:"uri"`
	Page       *int     `json:"page"`
	Format     string   `json:"format"`
	Categories []string `json:"categories"`
	MaxChars   int      `json:"max_chars"`
}

func (f *Facade) toolPage(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a pageArgs
	if err := req.BindArguments(&a); err != nil {
		return badArgument("%v", err), nil
	}
	u, err := dpe.Parse(a.URI)
	if err != nil {
		return toolError(err), nil
	}
	switch {
	case u.Level() == dpe.LevelDocument && a.Page != nil:
		u = dpe.Page(u.Host, u.DocRef, *a.Page)
	case u.Level() == dpe.LevelDocument:
		return badArgument("uri %q is a document's: give page (from 0) too, or a page URI …/pages/N", a.URI), nil
	case u.Level() != dpe.LevelPage:
		return badArgument("uri %q is not a page's URI (dpe://HOST/DOC_REF/pages/N)", a.URI), nil
	}
	q := u.Query
	q.Format = formatOr(a.Format, dpe.FormatMarkdown)
	if q.Categories, err = categories(a.Categories); err != nil {
		return badArgument("%v", err), nil
	}
	return f.readText(ctx, u.WithQuery(q), a.MaxChars, "Read single elements with finder_element, or narrow with categories (e.g. table), or raise max_chars.")
}

type elementArgs struct {
	URI       string `json:"uri"`
	ElementID string `json:"element_id"`
	Format    string `json:"format"`
}

func (f *Facade) toolElement(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a elementArgs
	if err := req.BindArguments(&a); err != nil {
		return badArgument("%v", err), nil
	}
	u, err := dpe.Parse(a.URI)
	if err != nil {
		return toolError(err), nil
	}
	switch {
	case u.Level() == dpe.LevelDocument && a.ElementID != "":
		u = dpe.Element(u.Host, u.DocRef, a.ElementID)
	case u.Level() != dpe.LevelElement:
		return badArgument("uri %q is not an element's URI (dpe://HOST/DOC_REF/elements/ID), nor a document's with element_id", a.URI), nil
	}
	q := u.Query
	q.Format = formatOr(a.Format, dpe.FormatMarkdown)
	return f.readText(ctx, u.WithQuery(q), maxChars, "")
}

// readText reads u and answers with its text, cut at maxChars (0: the
// default) with a note that says how much is shown and what to do.
func (f *Facade) readText(ctx context.Context, u dpe.URI, limit int, more string) (*mcp.CallToolResult, error) {
	if limit <= 0 {
		limit = defaultChars
	}
	limit = min(limit, maxChars)
	ret, _, err := f.read(ctx, u.String())
	if err != nil {
		return toolError(err), nil
	}
	var b strings.Builder
	for _, c := range ret.Contents {
		if c.Text == "" && c.Blob != "" {
			fmt.Fprintf(&b, "[%s: binary content of type %s, not shown]\n", c.URI, c.MIMEType)
			continue
		}
		b.WriteString(c.Text)
	}
	text, cut := cutText(b.String(), limit)
	res := mcp.NewToolResultText(text)
	if cut {
		note := fmt.Sprintf("[truncated: %d of %d characters shown.", len(text), b.Len())
		if more != "" {
			note += " " + more
		}
		res.Content = append(res.Content, mcp.NewTextContent(note+"]"))
	}
	return res, nil
}

// decodeFirst decodes the first content of a read, which must be JSON.
func decodeFirst(ret *protocol.ReadResourceRet, v any) error {
	if len(ret.Contents) == 0 {
		return protocol.NewError(protocol.CodeInternalError, "the computer answered with no content")
	}
	if err := json.Unmarshal([]byte(ret.Contents[0].Text), v); err != nil {
		return protocol.Errorf(protocol.CodeInternalError, "the computer's answer is not a document: %v", err)
	}
	return nil
}

func formatOr(f, def string) string {
	if f == "" {
		return def
	}
	return f
}

// categories checks and converts category names.
func categories(names []string) ([]dpe.Category, error) {
	var out []dpe.Category
	for _, n := range names {
		c := dpe.Category(n)
		if !c.Valid() {
			return nil, fmt.Errorf("category %q: use one of %s", n, strings.Join(categoryNames(), ", "))
		}
		out = append(out, c)
	}
	return out, nil
}
