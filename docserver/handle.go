package docserver

import (
	"context"
	"errors"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
)

// handle is one version of a document as the server holds it: its Level 1
// facts and its pages. Most formats are parsed whole (doc); a PDF is read
// page by page as readers ask (pdf), so that page 300 of a manual never
// waits for the other 396, and its whole text is extracted only when
// something needs all of it (WholeDocument).
type handle struct {
	info *docInfo
	doc  *extract.Document // a fully parsed document, or nil
	pdf  *lazyPDF          // a PDF read page by page, or nil
	size int64             // doc's estimated bytes (it does not change)
}

// parsedHandle holds a fully parsed document.
func parsedHandle(doc *extract.Document) *handle {
	return &handle{info: infoOf(doc), doc: doc, size: doc.EstimatedBytes()}
}

// pageCount is the number of pages served.
func (h *handle) pageCount() int { return h.info.Pages }

// errPageRange is returned for a page index outside the document.
var errPageRange = errors.New("page out of range")

// page returns page i.
func (h *handle) page(ctx context.Context, i int) (extract.Page, error) {
	if i < 0 || i >= h.pageCount() {
		return extract.Page{}, errPageRange
	}
	if h.pdf != nil {
		return h.pdf.page(ctx, i)
	}
	return h.doc.Pages[i], nil
}

// pages returns pages [from, to), asking for all of them at once.
func (h *handle) pages(ctx context.Context, from, to int) ([]extract.Page, error) {
	from, to = max(from, 0), min(to, h.pageCount())
	if from >= to {
		return nil, nil
	}
	if h.pdf != nil {
		return h.pdf.pages(ctx, from, to)
	}
	return h.doc.Pages[from:to], nil
}

// summaries describes pages [from, to) for a page index: a PDF from what
// it knows without reading a page (lazyPDF.summaries).
func (h *handle) summaries(from, to int) []pageSummary {
	from, to = max(from, 0), min(to, h.pageCount())
	if from >= to {
		return nil
	}
	if h.pdf != nil {
		return h.pdf.summaries(from, to)
	}
	out := make([]pageSummary, 0, to-from)
	for _, pg := range h.doc.Pages[from:to] {
		out = append(out, pageSummary{title: pg.Title, elements: len(pg.Elements)})
	}
	return out
}

// bookmarkCount is the number of the document's own outline entries that
// point to a page (a PDF's bookmarks; 0 for other formats).
func (h *handle) bookmarkCount() int {
	if h.pdf != nil {
		return h.pdf.bookmarkCount()
	}
	return 0
}

// whole returns the document with every page (see Server.WholeDocument).
func (h *handle) whole(ctx context.Context) (*extract.Document, error) {
	if h.pdf != nil {
		return h.pdf.whole(ctx)
	}
	return h.doc, nil
}

// estimatedBytes is the memory the handle holds now.
func (h *handle) estimatedBytes() int64 {
	if h.pdf != nil {
		return h.pdf.estimatedBytes()
	}
	return max(h.size, 64)
}

// close stops the handle's background work (its cache dropped it).
func (h *handle) close() {
	if h.pdf != nil {
		h.pdf.close()
	}
}

// WholeDocument returns a document with every page extracted: the text
// that summaries and full-text indexing need, page by page (render an
// element's text with dpe.RenderElementText). It is the one way to get
// all of a document: a PDF's pages are otherwise read only as readers
// ask for them. The extraction runs in the background, page after page,
// behind any page a reader is waiting for, within ParseTimeout of engine
// time and the output budget (a document cut short says Truncated); its
// result stays cached with the document until the file changes. A caller
// whose ctx ends stops waiting; the extraction goes on for the next.
func (s *Server) WholeDocument(ctx context.Context, ref string) (*extract.Document, error) {
	_, h, err := s.load(ctx, ref)
	if err != nil {
		return nil, err
	}
	return h.whole(ctx)
}
