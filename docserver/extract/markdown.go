package extract

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	gmparser "github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/util"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// newMarkdownParser returns a goldmark parser with the GitHub extensions
// (tables, strikethrough, autolinks, task lists), footnotes and heading
// attributes ("## Intro {#intro}"). Building one costs more
// than parsing a small file, so a Parser keeps one; goldmark parsers are
// safe for concurrent use.
func newMarkdownParser() gmparser.Parser {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM, extension.Footnote),
		goldmark.WithParserOptions(gmparser.WithHeadingAttribute(),
			gmparser.WithInlineParsers(util.Prioritized(inlineGuard{}, 0))), // before all others
	).Parser()
}

// parseMarkdown splits a Markdown file into pages at its top-level
// sections: at every H1 when there are several, else at every H2 (the
// single H1 and what precedes the first H2 form the first page). A section
// longer than the page budget continues on further pages.
func parseMarkdown(p *parser, src []byte) (*Document, error) {
	fm, body := splitFrontMatter(src)
	rd := newGuardedReader(p.ctx, body)
	pc := gmparser.NewContext()
	pc.Set(inlineGuardKey, rd)
	root := p.md.Parse(rd, gmparser.WithContext(pc))
	if err := p.cancelled(); err != nil {
		return nil, err
	}
	w := &mdWalker{p: p, src: body, truncated: rd.exhausted || rd.inlineCut}
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
	w.flushList()
	doc := &Document{Title: fm.title, Summary: fm.summary, Keywords: fm.keywords}
	return paginateBlocks(p, w.blocks, doc, w.truncated), nil
}

// peekMarkdown runs the Markdown parser over a prefix of the file.
func peekMarkdown(p *parser, prefix []byte) Meta {
	doc, err := parseMarkdown(p, prefix)
	if err != nil {
		return Meta{}
	}
	return Meta{Title: doc.Title, Summary: doc.Summary}
}

// mdWalker turns goldmark block nodes into elements. quote is the
// blockquote depth and indent the list-item depth of the blocks being
// walked; both are written into the elements so that dpe renders them back
// in place.
type mdWalker struct {
	p         *parser
	src       []byte
	blocks    []mdBlock
	truncated bool
	quote     int
	indent    int
	list      *Element  // list items collected and not yet added
	listRefs  []Element // links and images of the pending list's items
	bare      *string   // the bare text of the block being added (nil: none)
}

func (w *mdWalker) add(el Element, level, size int) {
	if !w.p.spend(size) {
		w.truncated = true
		return
	}
	w.flushList()
	b := mdBlock{el: placed(el, w.quote, w.indent), level: level, size: size}
	if w.bare != nil {
		b.bare, b.hasBare = *w.bare, true
	}
	w.blocks = append(w.blocks, b)
}

// bareText is the text of a heading or paragraph without its images and
// raw HTML tags: "[![npm](badge.svg)](https://npmjs.org) A tiny parser"
// gives "A tiny parser".
func (w *mdWalker) bareText(n ast.Node) string {
	var b strings.Builder
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Image, *ast.RawHTML:
			case *ast.Text:
				b.WriteString(unescapeMarkdown(string(c.Value(w.src))))
				if c.SoftLineBreak() || c.HardLineBreak() {
					b.WriteByte(' ')
				}
			case *ast.String:
				b.Write(c.Value)
			case *ast.AutoLink:
				b.Write(c.Label(w.src))
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return clean(collapse(unresolvedImages.ReplaceAllString(b.String(), " ")))
}

// unresolvedImages matches reference-style images (badges) whose link
// definitions were not read, as a peek at a README's first bytes leaves
// them: "[![NPM Version][npm-image]][npm-url]", "![logo][logo-url]".
var unresolvedImages = regexp.MustCompile(`\[!\[[^\]]*\]\[[^\]]*\]\]\[[^\]]*\]|!\[[^\]]*\]\[[^\]]*\]`)

// block adds the elements of block node n, by its kind.
func (w *mdWalker) block(n ast.Node) {
	switch n := n.(type) {
	case *ast.Heading:
		w.heading(n)
	case *ast.Paragraph, *ast.TextBlock:
		w.paragraph(n)
	case *ast.List:
		w.listItems(n, 0)
		w.flushList()
	case *ast.FencedCodeBlock:
		w.addCode(string(n.Language(w.src)), w.lines(n))
	case *ast.CodeBlock:
		w.addCode("", w.lines(n))
	case *ast.HTMLBlock:
		w.htmlBlock(n)
	case *ast.Blockquote:
		w.blockquote(n)
	case *ast.ThematicBreak:
		w.add(Element{Category: dpe.Separator, Content: map[string]any{}}, 0, 1)
	case *east.Table:
		w.table(n)
	case *east.FootnoteList:
		w.footnotes(n)
	default:
		// Unknown blocks (definition lists...): keep their text.
		if plain, md := w.inline(n, nil); strings.TrimSpace(plain) != "" {
			w.addText(plain, md)
		}
	}
}

// heading adds a heading element with its level, text, markdown and
// anchor.
func (w *mdWalker) heading(n *ast.Heading) {
	plain, md := w.inline(n, nil)
	el := Element{Category: dpe.Heading, Content: map[string]any{"level": n.Level, "text": collapse(plain)}}
	if md != "" {
		el.Content["markdown"] = collapse(md)
	}
	if id, ok := n.AttributeString("id"); ok {
		if b, ok := id.([]byte); ok && len(b) > 0 {
			el.Content["anchor"] = clean(string(b))
		}
	}
	bare := w.bareText(n)
	w.bare = &bare
	w.add(el, n.Level, len(plain))
	w.bare = nil
}

// paragraph adds a paragraph's text and the elements it refers to (an
// image that is the whole paragraph stands for it alone).
func (w *mdWalker) paragraph(n ast.Node) {
	var refs []Element
	plain, md := w.inline(n, &refs)
	if len(refs) == 1 && refs[0].Category == dpe.Image && strings.TrimSpace(plain) == refs[0].Content["alt"] {
		delete(refs[0].Content, "within") // the image is the whole paragraph
		w.add(refs[0], 0, 40)
		return
	}
	bare := w.bareText(n)
	w.bare = &bare
	kept := plain == "" || w.addText(plain, md)
	w.bare = nil
	if !kept {
		standalone(refs)
	}
	for _, r := range refs {
		w.add(r, 0, 0)
	}
}

// blockquote adds the blocks of a quote, one quote level deeper.
func (w *mdWalker) blockquote(n *ast.Blockquote) {
	// dpe writes the quote marks before the list indentation, which
	// is right for a list inside a quote; a quote inside a list item
	// is written at the left margin instead (still a quote, outside
	// the item), because "> " after the indentation would make the
	// quoted lines an indented code block.
	w.flushList()
	indent := w.indent
	if w.quote == 0 {
		w.indent = 0
	}
	w.quote++
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		w.block(c)
	}
	w.flushList()
	w.quote--
	w.indent = indent
}

// footnotes adds a separator and then each footnote as a text led by
// its number in brackets.
func (w *mdWalker) footnotes(n *east.FootnoteList) {
	w.add(Element{Category: dpe.Separator, Content: map[string]any{}}, 0, 1)
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		fn, ok := c.(*east.Footnote)
		if !ok {
			continue
		}
		var in inline
		in.raw("["+strconv.Itoa(fn.Index)+"] ", "\\["+strconv.Itoa(fn.Index)+"\\] ")
		for p := fn.FirstChild(); p != nil; p = p.NextSibling() {
			w.inlineInto(&in, p)
			in.raw(" ", " ")
		}
		plain, md := in.result()
		w.addText(plain, md)
	}
}

// htmlBlock reads a raw HTML block: comments are hidden, anything else is
// read as HTML (its text, links, images, lists and tables), never shown as
// tags.
func (w *mdWalker) htmlBlock(n *ast.HTMLBlock) {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(w.src))
	}
	if n.HasClosure() {
		b.Write(n.ClosureLine.Value(w.src))
	}
	src := b.String()
	if strings.TrimSpace(src) == "" {
		return
	}
	for _, el := range htmlFragmentElements(w.p, src) {
		w.add(el.el, el.level, el.size)
	}
}

// addText adds a text element, split when it alone passes the page budget.
// It reports whether the Markdown form was kept: a split text is plain, so
// the links and images of its paragraph must be shown on their own.
func (w *mdWalker) addText(plain, md string) bool {
	els, kept := textElements(plain, md, w.p.opts.PageChars)
	for _, el := range els {
		w.add(el, 0, len(el.Content["text"].(string)))
	}
	return kept
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

// listItems adds the items of list (at nesting level) to the pending list
// element: each item's plain text, Markdown, level and marker. Blocks of
// an item other than its first paragraph and its sub-lists (code, quotes,
// tables, further paragraphs) end the pending list and are added as
// elements indented into the item; the list resumes after them.
func (w *mdWalker) listItems(list *ast.List, level int) {
	num := list.Start
	for li := list.FirstChild(); li != nil; li = li.NextSibling() {
		m := "-"
		if list.IsOrdered() {
			m = strconv.Itoa(num) + string(list.Marker)
			num++
		}
		first := true
		var in inline
		if cb := taskState(li); cb != "" {
			in.raw(cb+" ", cb+" ")
		}
		for c := li.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.List:
				if first {
					w.addItem(&in, level, m, list.IsOrdered(), list.Start)
					first = false
				}
				if level < 8 {
					w.listItems(c, level+1)
				}
				continue
			case *ast.Paragraph, *ast.TextBlock:
				if first {
					w.inlineInto(&in, c)
					w.addItem(&in, level, m, list.IsOrdered(), list.Start)
					first = false
					continue
				}
			}
			if first {
				w.addItem(&in, level, m, list.IsOrdered(), list.Start)
				first = false
			}
			w.flushList()
			w.indent += level + 1
			w.block(c)
			w.flushList()
			w.indent -= level + 1
		}
		if first {
			w.addItem(&in, level, m, list.IsOrdered(), list.Start)
		}
	}
}

// addItem appends an item to the pending list element, opening one when
// there is none.
func (w *mdWalker) addItem(in *inline, level int, marker string, ordered bool, start int) {
	plain, md := in.result()
	if md == "" {
		md = dpe.EscapeInline(plain)
	}
	// The items are charged to the output budget as they come (flushList
	// adds the list without going through add): its four lists' entries,
	// the links and images shown within the item, and the list element.
	cost := int64(len(plain)+len(md)+len(marker)+4*16) + int64(len(in.refs))*elementCost
	if w.list == nil {
		cost += elementCost
	}
	if !w.p.charge(cost) {
		w.truncated = true
		return
	}
	if w.list == nil {
		w.list = &Element{Category: dpe.List, Content: map[string]any{
			"ordered": ordered && level == 0, "items": []string{}, "levels": []int{},
			"markers": []string{}, "items_markdown": []string{},
		}}
		if ordered && level == 0 {
			n, _ := strconv.Atoi(strings.TrimRight(marker, ".)"))
			w.list.Content["start"] = max(n, 0)
		}
		w.list.Content["quote"], w.list.Content["indent"] = w.quote, w.indent
	}
	c := w.list.Content
	c["items"] = append(c["items"].([]string), collapse(plain))
	c["levels"] = append(c["levels"].([]int), level)
	c["markers"] = append(c["markers"].([]string), marker)
	c["items_markdown"] = append(c["items_markdown"].([]string), md)
	for _, r := range in.refs {
		r.Content["within"] = withinPrevious
	}
	w.listRefs = append(w.listRefs, in.refs...)
}

// flushList adds the pending list element, then the links and images of
// its items.
func (w *mdWalker) flushList() {
	if w.list == nil {
		return
	}
	el := *w.list
	w.list = nil
	c := el.Content
	q, ind := c["quote"].(int), c["indent"].(int)
	delete(c, "quote")
	delete(c, "indent")
	flat := true
	for _, l := range c["levels"].([]int) {
		flat = flat && l == 0
	}
	if flat {
		delete(c, "levels")
	}
	plainMD := true
	for i, md := range c["items_markdown"].([]string) {
		plainMD = plainMD && md == dpe.EscapeInline(c["items"].([]string)[i])
	}
	if plainMD {
		delete(c, "items_markdown")
	}
	size := 0
	for _, it := range c["items"].([]string) {
		size += len(it)
	}
	refs := w.listRefs
	w.listRefs = nil
	w.blocks = append(w.blocks, mdBlock{el: placed(el, q, ind), size: size})
	for _, r := range refs {
		w.blocks = append(w.blocks, mdBlock{el: placed(r, q, ind)})
	}
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
	var headers, hmd []string
	var rows, rmd [][]string
	rich := false
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells, mds []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			if len(cells) < w.p.opts.MaxColumns {
				plain, md := w.inline(c, nil)
				if md != "" {
					rich = true
				} else {
					md = dpe.EscapeSpan(collapse(plain))
				}
				cells = append(cells, truncate(plain, w.p.opts.MaxCellChars))
				mds = append(mds, md)
			}
		}
		if _, ok := r.(*east.TableHeader); ok {
			headers, hmd = cells, mds
			continue
		}
		if len(rows) >= w.p.opts.MaxRows {
			w.truncated = true
			break
		}
		rows = append(rows, cells)
		rmd = append(rmd, mds)
	}
	var align []string
	for _, a := range t.Alignments {
		switch a {
		case east.AlignLeft:
			align = append(align, "left")
		case east.AlignRight:
			align = append(align, "right")
		case east.AlignCenter:
			align = append(align, "center")
		default:
			align = append(align, "")
		}
	}
	aligned := strings.Join(align, "") != ""
	per := w.p.opts.TableRowsPerPage
	for i, el := range tableElements(headers, rows, per, 1, 0) {
		if aligned {
			el.Content["align"] = align
		}
		if rich {
			el.Content["headers_markdown"] = hmd
			lo := min(i*per, len(rmd))
			el.Content["rows_markdown"] = rmd[lo:min(lo+per, len(rmd))]
		}
		size := 0
		for _, r := range el.Content["rows"].([][]string) {
			for _, c := range r {
				size += len(c) + 3
			}
		}
		w.add(el, 0, size)
	}
}

// inline returns the plain text and Markdown of n's inline content (see
// inlineInto); links and images found on the way are appended to refs when
// it is not nil.
func (w *mdWalker) inline(n ast.Node, refs *[]Element) (plain, md string) {
	var in inline
	w.inlineInto(&in, n)
	if refs != nil {
		*refs = append(*refs, in.refs...)
	}
	return in.result()
}

// inlineInto adds n's inline content to in: plain text with escapes and
// entities resolved, and Markdown with emphasis, strikethrough, code
// spans, links, autolinks and images kept; raw HTML tags are dropped
// (their text stays), <br> is a line break and <img> an image.
func (w *mdWalker) inlineInto(in *inline, n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			raw := string(c.Value(w.src))
			if c.HardLineBreak() {
				raw = strings.TrimSuffix(raw, "\\")
			}
			in.raw(unescapeMarkdown(raw), raw)
			switch {
			case c.HardLineBreak():
				in.hardBreak()
			case c.SoftLineBreak():
				in.raw(" ", " ")
			}
		case *ast.String:
			in.text(string(c.Value))
		case *ast.CodeSpan:
			var b strings.Builder
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				switch t := t.(type) {
				case *ast.Text:
					b.Write(t.Value(w.src))
				case *ast.String:
					b.Write(t.Value)
				}
			}
			in.code(b.String())
		case *ast.Emphasis:
			delim := "*"
			if c.Level >= 2 {
				delim = "**"
			}
			in.wrap(delim, func() { w.inlineInto(in, c) })
		case *east.Strikethrough:
			in.wrap("~~", func() { w.inlineInto(in, c) })
		case *ast.Link:
			in.link(string(c.Destination), string(c.Title), func() { w.inlineInto(in, c) })
		case *ast.AutoLink:
			in.autolink(string(c.Label(w.src)), string(c.URL(w.src)))
		case *ast.Image:
			var alt inline
			w.inlineInto(&alt, c)
			a, _ := alt.result()
			in.image(string(c.Destination), a, string(c.Title))
		case *ast.RawHTML:
			var b strings.Builder
			for i := 0; i < c.Segments.Len(); i++ {
				seg := c.Segments.At(i)
				b.Write(seg.Value(w.src))
			}
			inlineHTML(in, b.String())
		case *east.FootnoteLink:
			n := strconv.Itoa(c.Index)
			in.raw("["+n+"]", "\\["+n+"\\]")
		case *east.TaskCheckBox, *east.FootnoteBacklink:
			// the checkbox is written by listItems; backlinks are noise
		default:
			w.inlineInto(in, c)
		}
	}
}

// unescapeMarkdown resolves backslash escapes and entity references of
// raw Markdown text.
func unescapeMarkdown(s string) string {
	if !strings.ContainsAny(s, "\\&") {
		return s
	}
	b := util.UnescapePunctuations([]byte(s))
	b = util.ResolveNumericReferences(b)
	b = util.ResolveEntityNames(b)
	return string(b)
}
