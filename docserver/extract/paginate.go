package extract

import (
	"strings"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// Pagination of a stream of blocks (Markdown's, and HTML's, which is read
// into the same blocks): pages at top-level sections, long sections
// continued where a reader would turn the page.

// mdBlock is an element with, for headings, the level that may start a
// page.
type mdBlock struct {
	el    Element
	level int // heading level, 0 for other elements
	size  int // characters, for the page budget
	// bare is the text of a Markdown heading or paragraph without its
	// images (badges, logos): the title and summary are taken from it,
	// and a paragraph of badges alone (bare "") gives neither.
	bare    string
	hasBare bool
}

// blockText is the text a block gives the document's title or summary.
func (b mdBlock) blockText() string {
	if b.hasBare {
		return b.bare
	}
	s, _ := b.el.Content["text"].(string)
	return s
}

// paginateBlocks fills in doc's title (the first H1) and summary (the
// first text) when it has none, and splits the blocks into pages at their
// top-level sections: at every H1 when there are several, else at every H2.
func paginateBlocks(p *parser, blocks []mdBlock, doc *Document, truncated bool) *Document {
	h1s, h2s := 0, 0
	for _, b := range blocks {
		switch b.level {
		case 1:
			h1s++
		case 2:
			h2s++
		}
	}
	split := 1
	if h1s <= 1 && h2s > 0 {
		split = 2
	}
	if doc.Title == "" {
		for _, b := range blocks {
			if b.level == 1 {
				if doc.Title = b.blockText(); doc.Title == "" {
					doc.Title, _ = b.el.Content["text"].(string) // a heading of images alone
				}
				break
			}
		}
	}
	if doc.Summary == "" {
		// The first text that says something: paragraphs of badges or
		// images alone are skipped, and a Markdown paragraph is preferred
		// to the text of raw HTML (a logo's alt text and the badges next
		// to it, which Markdown does not parse inside HTML).
		for _, markdownOnly := range []bool{true, false} {
			for _, b := range blocks {
				if b.el.Category == dpe.Text && (b.hasBare || !markdownOnly) {
					if s := b.blockText(); strings.TrimSpace(s) != "" {
						doc.Summary = firstSentences(s, SummaryChars)
						break
					}
				}
			}
			if doc.Summary != "" {
				break
			}
		}
	}
	doc.Pages, doc.Truncated = paginate(p, blocks, split, truncated)
	return doc
}

// paginate groups blocks into pages: a heading whose level is at most split
// starts a page, and a page whose text passes the budget is continued on
// the next one. Where a section is continued, the break falls where a
// reader would put it:
//
//   - before a sub-heading, when the page is at least half full and the
//     sub-section would not fit on it, rather than inside the sub-section;
//   - not at all when the rest of the section is small (it fits with a
//     quarter of the budget over): no page of a few stray elements;
//   - not between a paragraph and the code block, table or list it
//     introduces: the paragraph moves to the next page with it.
func paginate(p *parser, blocks []mdBlock, split int, truncated bool) ([]Page, bool) {
	budget := p.opts.PageChars
	startsSection := func(b mdBlock) bool { return b.level > 0 && b.level <= split }
	// rest[i]: the size of blocks i.. up to the end of i's section;
	// sub[i]: up to the next heading of any level.
	rest, sub := make([]int, len(blocks)+1), make([]int, len(blocks)+1)
	for i := len(blocks) - 1; i >= 0; i-- {
		rest[i], sub[i] = blocks[i].size, blocks[i].size
		if i+1 < len(blocks) && !startsSection(blocks[i+1]) {
			rest[i] += rest[i+1]
		}
		if i+1 < len(blocks) && blocks[i+1].level == 0 {
			sub[i] += sub[i+1]
		}
	}
	var pages []Page
	var cur *Page
	section := ""
	used := 0
	newPage := func(title string) bool {
		if len(pages) >= p.opts.MaxPages {
			truncated = true
			return false
		}
		pages = append(pages, Page{Title: title})
		cur = &pages[len(pages)-1]
		used = 0
		return true
	}
	for i, b := range blocks {
		if startsSection(b) {
			section, _ = b.el.Content["text"].(string)
		}
		full := cur != nil && len(cur.Elements) >= p.opts.MaxElements
		over := used+b.size > budget && used+rest[i] > budget+budget/4
		subHeading := b.level > split && used >= budget/2 && used+sub[i] > budget
		switch {
		case cur == nil:
			title := ""
			if startsSection(b) {
				title = section
			}
			if !newPage(title) {
				return pages, truncated
			}
		case startsSection(b) && len(cur.Elements) > 0:
			if !newPage(section) {
				return pages, truncated
			}
		case len(cur.Elements) > 0 && (full || !shownWithin(b.el) && (over || subHeading)):
			title := "(continued)"
			if section != "" {
				title = section + " (continued)"
			}
			intro := introduction(cur.Elements, b.el)
			if full {
				intro = nil
			}
			cur.Elements = cur.Elements[:len(cur.Elements)-len(intro)]
			if !newPage(title) {
				return pages, truncated
			}
			cur.Elements = append(cur.Elements, intro...)
			for _, e := range intro {
				used += len(elementText(e))
			}
		}
		if cur.Title == "" && b.level > 0 {
			cur.Title, _ = b.el.Content["text"].(string)
		}
		cur.Elements = append(cur.Elements, b.el)
		used += b.size
	}
	return pages, truncated
}

// introduction is the tail of a page's elements that introduces next
// and moves to the next page with it: a heading left last on the page, or
// the paragraph (with the links and images shown within it) before a code
// block, table or list; never all the page holds.
func introduction(els []Element, next Element) []Element {
	i := len(els) - 1
	for i > 0 && shownWithin(els[i]) {
		i--
	}
	switch {
	case i <= 0:
		return nil
	case els[i].Category == dpe.Heading:
		return els[i:]
	case els[i].Category == dpe.Text && (next.Category == dpe.Code || next.Category == dpe.Table || next.Category == dpe.List):
		if els[i-1].Category == dpe.Heading && i > 1 {
			return els[i-1:] // the paragraph's heading too
		}
		return els[i:]
	}
	return nil
}

// elementText is the text of a text element, for the page budget.
func elementText(e Element) string {
	s, _ := e.Content["text"].(string)
	return s
}

// shownWithin reports whether an element is shown inside the element
// before it (a link or image of a paragraph): it stays on that element's
// page, so that the page's rendering does not repeat it.
func shownWithin(e Element) bool {
	_, ok := e.Content["within"]
	return ok
}
