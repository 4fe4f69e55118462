package extract

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	gmparser "github.com/yuin/goldmark/parser"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// newMarkdownParser returns a goldmark parser with the GitHub extensions
// (tables, strikethrough, autolinks, task lists). Building one costs more
// than parsing a small file, so a Parser keeps one; goldmark parsers are
// safe for concurrent use.
func newMarkdownParser() gmparser.Parser {
	return goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()
}

// frontMatter holds the keys of a YAML front matter block the server uses.
type frontMatter struct {
	title, summary string
	keywords       []string
}

// splitFrontMatter separates a leading "---" front matter block from the
// Markdown body and reads its title, summary/description and
// keywords/tags. Only simple "key: value" lines (and "- item" lists under a
// key) are understood; anything else in the block is ignored.
func splitFrontMatter(src []byte) (frontMatter, []byte) {
	var fm frontMatter
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	if !bytes.HasPrefix(src, []byte("---\n")) && !bytes.HasPrefix(src, []byte("---\r\n")) {
		return fm, src
	}
	rest := src[bytes.IndexByte(src, '\n')+1:]
	var lines []string
	body := []byte(nil)
	found := false
	for i := 0; i < 200 && len(rest) > 0; i++ {
		line, tail, _ := bytes.Cut(rest, []byte("\n"))
		l := strings.TrimRight(string(line), "\r")
		rest = tail
		if l == "---" || l == "..." {
			found = true
			body = rest
			break
		}
		lines = append(lines, l)
	}
	if !found {
		return fm, src
	}
	key := ""
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "- ") && key != "" {
			if key == "keywords" || key == "tags" {
				fm.keywords = append(fm.keywords, splitKeywords(strings.TrimSpace(l)[2:])...)
			}
			continue
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok || strings.HasPrefix(l, " ") {
			continue
		}
		key = strings.ToLower(strings.TrimSpace(k))
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		switch key {
		case "title":
			fm.title = clean(v)
		case "summary", "description":
			if fm.summary == "" {
				fm.summary = clean(v)
			}
		case "keywords", "tags":
			fm.keywords = append(fm.keywords, splitKeywords(strings.Trim(v, "[]"))...)
		}
	}
	return fm, body
}

// mdBlock is an element with, for headings, the level that may start a
// page.
type mdBlock struct {
	el    Element
	level int // heading level, 0 for other elements
	size  int // characters, for the page budget
}

// parseMarkdown splits a Markdown file into pages at its top-level
// sections: at every H1 when there are several, else at every H2 (the
// single H1 and what precedes the first H2 form the first page). A section
// longer than the page budget continues on further pages.
func parseMarkdown(p *parser, src []byte) (*Document, error) {
	fm, body := splitFrontMatter(src)
	rd := newGuardedReader(p.ctx, body)
	root := p.md.Parse(rd)
	if err := p.cancelled(); err != nil {
		return nil, err
	}
	w := &mdWalker{p: p, src: body, truncated: rd.exhausted}
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		if err := p.cancelled(); err != nil {
			return nil, err
		}
		w.block(n)
		if len(w.blocks) > p.opts.MaxPages*p.opts.MaxElements/4 {
			w.truncated = true
			break
		}
	}
	doc := &Document{Title: fm.title, Summary: fm.summary, Keywords: fm.keywords, Truncated: w.truncated}
	h1s, h2s := 0, 0
	for _, b := range w.blocks {
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
		for _, b := range w.blocks {
			if b.level == 1 {
				doc.Title, _ = b.el.Content["text"].(string)
				break
			}
		}
	}
	if doc.Summary == "" {
		for _, b := range w.blocks {
			if b.el.Category == dpe.Text {
				s, _ := b.el.Content["text"].(string)
				doc.Summary = firstSentences(s, SummaryChars)
				break
			}
		}
	}
	doc.Pages, doc.Truncated = paginate(p, w.blocks, split, doc.Truncated)
	return doc, nil
}

// peekMarkdown runs the Markdown parser over a prefix of the file.
func peekMarkdown(p *parser, prefix []byte) Meta {
	doc, err := parseMarkdown(p, prefix)
	if err != nil {
		return Meta{}
	}
	return Meta{Title: doc.Title, Summary: doc.Summary}
}

// paginate groups blocks into pages: a heading whose level is at most split
// starts a page, and a page whose text passes the budget is continued on
// the next one.
func paginate(p *parser, blocks []mdBlock, split int, truncated bool) ([]Page, bool) {
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
	for _, b := range blocks {
		startsSection := b.level > 0 && b.level <= split
		if startsSection {
			section, _ = b.el.Content["text"].(string)
		}
		switch {
		case cur == nil:
			title := ""
			if startsSection {
				title = section
			}
			if !newPage(title) {
				return pages, truncated
			}
		case startsSection && len(cur.Elements) > 0:
			if !newPage(section) {
				return pages, truncated
			}
		case len(cur.Elements) > 0 && (used+b.size > p.opts.PageChars || len(cur.Elements) >= p.opts.MaxElements):
			title := "(continued)"
			if section != "" {
				title = section + " (continued)"
			}
			if !newPage(title) {
				return pages, truncated
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

// mdWalker turns goldmark block nodes into elements.
type mdWalker struct {
	p         *parser
	src       []byte
	blocks    []mdBlock
	truncated bool
}

func (w *mdWalker) add(el Element, level, size int) {
	if !w.p.spend(size) {
		w.truncated = true
		return
	}
	w.blocks = append(w.blocks, mdBlock{el: el, level: level, size: size})
}

func (w *mdWalker) block(n ast.Node) {
	switch n := n.(type) {
	case *ast.Heading:
		t := w.inline(n, nil)
		w.add(Element{Category: dpe.Heading, Content: map[string]any{"level": n.Level, "text": t}}, n.Level, len(t))
	case *ast.Paragraph, *ast.TextBlock:
		var refs []Element
		t := w.inline(n, &refs)
		if t != "" && !(len(refs) == 1 && refs[0].Category == dpe.Image && strings.TrimSpace(t) == refs[0].Content["alt"]) {
			w.addText(t)
		}
		for _, r := range refs {
			w.add(r, 0, 40)
		}
	case *ast.List:
		items := w.listItems(n, 0)
		el := Element{Category: dpe.List, Content: map[string]any{"ordered": n.IsOrdered(), "items": items}}
		if n.IsOrdered() {
			el.Content["start"] = max(n.Start, 0)
		}
		size := 0
		for _, it := range items {
			size += len(it)
		}
		w.add(el, 0, size)
	case *ast.FencedCodeBlock:
		w.addCode(string(n.Language(w.src)), w.lines(n))
	case *ast.CodeBlock:
		w.addCode("", w.lines(n))
	case *ast.HTMLBlock:
		if code := w.lines(n); strings.TrimSpace(code) != "" {
			w.addCode("html", code)
		}
	case *ast.Blockquote:
		var parts []string
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t := w.inline(c, nil); t != "" {
				parts = append(parts, t)
			}
		}
		if len(parts) > 0 {
			w.addText(strings.Join(parts, "\n\n"))
		}
	case *ast.ThematicBreak:
		w.add(Element{Category: dpe.Separator, Content: map[string]any{}}, 0, 1)
	case *east.Table:
		w.table(n)
	default:
		// Unknown blocks (footnote lists, definition lists...): keep their text.
		if t := w.inline(n, nil); strings.TrimSpace(t) != "" {
			w.addText(t)
		}
	}
}

// addText adds a text element, split when it alone passes the page budget.
func (w *mdWalker) addText(t string) {
	for _, part := range chunkText(t, w.p.opts.PageChars) {
		w.add(Element{Category: dpe.Text, Content: map[string]any{"text": part}}, 0, len(part))
	}
}

// addCode adds a code element, split by lines when it passes the budget.
func (w *mdWalker) addCode(lang, code string) {
	lang = clean(collapse(lang))
	for _, part := range chunkText(code, w.p.opts.PageChars) {
		w.add(Element{Category: dpe.Code, Content: map[string]any{"language": lang, "code": part}}, 0, len(part))
	}
}

func (w *mdWalker) lines(n ast.Node) string {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(w.src))
	}
	return clean(strings.TrimRight(b.String(), "\n"))
}

// listItems flattens a list: nested items follow their parent, indented
// by two spaces per level.
func (w *mdWalker) listItems(list *ast.List, depth int) []string {
	var items []string
	for li := list.FirstChild(); li != nil; li = li.NextSibling() {
		var parts []string
		var nested []string
		for c := li.FirstChild(); c != nil; c = c.NextSibling() {
			if sub, ok := c.(*ast.List); ok {
				if depth < 8 {
					nested = append(nested, w.listItems(sub, depth+1)...)
				}
				continue
			}
			if t := w.inline(c, nil); t != "" {
				parts = append(parts, t)
			}
		}
		if cb := taskState(li); cb != "" {
			parts = append([]string{cb}, parts...)
		}
		items = append(items, strings.Repeat("  ", depth)+collapse(strings.Join(parts, " ")))
		items = append(items, nested...)
	}
	return items
}

// taskState returns "[x]" or "[ ]" for a GFM task list item.
func taskState(li ast.Node) string {
	var state string
	_ = ast.Walk(li, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if cb, ok := n.(*east.TaskCheckBox); ok && entering {
			if cb.IsChecked {
				state = "[x]"
			} else {
				state = "[ ]"
			}
			return ast.WalkStop, nil
		}
		if _, ok := n.(*ast.List); ok && n != li && entering {
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return state
}

func (w *mdWalker) table(t *east.Table) {
	var headers []string
	var rows [][]string
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			if len(cells) < w.p.opts.MaxColumns {
				cells = append(cells, truncate(w.inline(c, nil), w.p.opts.MaxCellChars))
			}
		}
		if _, ok := r.(*east.TableHeader); ok {
			headers = cells
			continue
		}
		if len(rows) >= w.p.opts.MaxRows {
			w.truncated = true
			break
		}
		rows = append(rows, cells)
	}
	for _, el := range tableElements(headers, rows, w.p.opts.TableRowsPerPage, 1, 0) {
		size := 0
		for _, r := range el.Content["rows"].([][]string) {
			for _, c := range r {
				size += len(c) + 3
			}
		}
		w.add(el, 0, size)
	}
}

// inline collects the plain text of n's inline content. Links and images
// found on the way are appended to refs when it is not nil.
func (w *mdWalker) inline(n ast.Node, refs *[]Element) string {
	var b strings.Builder
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				b.Write(c.Value(w.src))
				if c.HardLineBreak() {
					b.WriteByte('\n')
				} else if c.SoftLineBreak() {
					b.WriteByte(' ')
				}
			case *ast.String:
				b.Write(c.Value)
			case *ast.CodeSpan:
				walk(c)
			case *ast.Link:
				start := b.Len()
				walk(c)
				if refs != nil {
					label := collapse(b.String()[start:])
					*refs = append(*refs, Element{Category: dpe.Link, Content: map[string]any{
						"text": clean(label), "url": clean(string(c.Destination)),
					}})
				}
			case *ast.AutoLink:
				url := string(c.URL(w.src))
				b.WriteString(url)
				if refs != nil {
					*refs = append(*refs, Element{Category: dpe.Link, Content: map[string]any{
						"text": clean(url), "url": clean(url),
					}})
				}
			case *ast.Image:
				start := b.Len()
				walk(c)
				alt := collapse(b.String()[start:])
				if refs != nil {
					*refs = append(*refs, Element{Category: dpe.Image, Content: map[string]any{
						"url": clean(string(c.Destination)), "alt": clean(alt), "description": clean(string(c.Title)),
					}})
				}
			case *ast.RawHTML:
				// Inline HTML tags carry no text of their own.
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return clean(strings.TrimSpace(b.String()))
}

// chunkText splits s into pieces of at most limit bytes, at line breaks
// when it can and otherwise at rune boundaries.
func chunkText(s string, limit int) []string {
	if len(s) <= limit {
		return []string{s}
	}
	var out []string
	for len(s) > limit {
		cut := strings.LastIndexByte(s[:limit], '\n')
		if cut <= 0 {
			cut = limit
			for cut > 0 && !isRuneStart(s[cut]) {
				cut--
			}
			if cut == 0 {
				cut = limit
			}
		}
		out = append(out, strings.TrimRight(s[:cut], "\n"))
		s = strings.TrimLeft(s[cut:], "\n")
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// tableElements chunks a table into elements of at most perPage rows.
// firstRow is the one-based sheet row of the header (0 when the table has
// no header row) and firstCol the zero-based column of its first cell; they
// give each chunk's source_range in A1 notation.
func tableElements(headers []string, rows [][]string, perPage, firstRow, firstCol int) []Element {
	cols := len(headers)
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	if headers == nil {
		headers = []string{}
	}
	if len(rows) == 0 {
		return []Element{tableElement(headers, [][]string{}, cols, 0, 0, firstRow, firstCol)}
	}
	var out []Element
	for start := 0; start < len(rows); start += perPage {
		end := min(start+perPage, len(rows))
		out = append(out, tableElement(headers, rows[start:end], cols, start, len(rows), firstRow, firstCol))
	}
	return out
}

func tableElement(headers []string, rows [][]string, cols, start, total, firstRow, firstCol int) Element {
	el := Element{
		Category: dpe.Table,
		Content:  map[string]any{"headers": headers, "rows": rows},
		Detail:   map[string]any{"total_rows": len(rows), "total_columns": cols},
		Metadata: map[string]any{},
	}
	if firstRow > 0 && cols > 0 {
		top := firstRow + 1 + start // first data row of the chunk
		if start == 0 {
			top = firstRow // the first chunk includes the header row
		}
		bottom := firstRow + start + len(rows)
		if len(rows) == 0 {
			bottom = firstRow
		}
		el.Metadata["source_range"] = cellName(firstCol, top) + ":" + cellName(firstCol+cols-1, bottom)
		if start > 0 {
			el.Metadata["header_range"] = cellName(firstCol, firstRow) + ":" + cellName(firstCol+cols-1, firstRow)
		}
	}
	if total > len(rows) {
		el.Metadata["table_total_rows"] = total
		el.Metadata["first_row"] = start + 1
	}
	return el
}
