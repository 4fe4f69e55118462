package extract

import (
	"encoding/json"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// HTML files (and raw HTML blocks inside Markdown) are read with
// golang.org/x/net/html, the WHATWG parsing algorithm browsers use, into
// the same elements as Markdown: headings, paragraphs with their inline
// emphasis, code and links, nested lists, tables, code blocks, quotes,
// images and rules. <script>, <style>, <template> and comments are skipped,
// so no tag and no script text reaches a reader. A page is paginated like
// Markdown, at its top-level headings.

// parseHTML reads an .html/.htm file.
func parseHTML(p *parser, src []byte) (*Document, error) {
	root, err := html.Parse(newCtxReader(p.ctx, decodeText(src)))
	if err := p.cancelled(); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	hw := &htmlWalker{p: p}
	title := ""
	if t := findElement(root, atom.Title); t != nil {
		title = collapse(textContent(t))
	}
	if title == "" {
		title = goDocTitle(root)
	}
	body := findElement(root, atom.Body)
	if body == nil {
		body = root
	}
	hw.blocks(body)
	if err := p.cancelled(); err != nil {
		return nil, err
	}
	hw.flush()
	doc := &Document{Title: clean(title)}
	return paginateBlocks(p, hw.out, doc, hw.truncated), nil
}

// peekHTML parses the prefix of an HTML file.
func peekHTML(p *parser, prefix []byte) Meta {
	doc, err := parseHTML(p, prefix)
	if err != nil {
		return Meta{}
	}
	return Meta{Title: doc.Title, Summary: doc.Summary}
}

// goDocTitle reads the title of Go's documentation pages, which carry it
// in a leading JSON comment: <!--{"Title": "The Go Memory Model"}-->.
func goDocTitle(root *html.Node) string {
	var title string
	var walk func(n *html.Node) bool
	walk = func(n *html.Node) bool {
		if n.Type == html.CommentNode {
			var meta struct{ Title string }
			if json.Unmarshal([]byte(n.Data), &meta) == nil {
				title = meta.Title
			}
			return true
		}
		if n.Type == html.ElementNode && n.DataAtom != atom.Html && n.DataAtom != atom.Head && n.DataAtom != atom.Body {
			return true // content started: no metadata comment
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if walk(c) {
				return true
			}
		}
		return false
	}
	walk(root)
	return title
}

// htmlFragmentElements reads a raw HTML block of a Markdown file.
func htmlFragmentElements(p *parser, src string) []mdBlock {
	ctx := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	nodes, err := html.ParseFragment(newCtxReader(p.ctx, src), ctx)
	if err != nil {
		return nil
	}
	hw := &htmlWalker{p: p}
	for _, n := range nodes {
		hw.node(n)
	}
	hw.flush()
	return hw.out
}

// htmlWalker turns HTML nodes into blocks. Inline content between block
// elements accumulates in cur and becomes a text element at the next block
// boundary.
type htmlWalker struct {
	p         *parser
	out       []mdBlock
	cur       inline
	quote     int
	indent    int
	truncated bool
	visits    int  // nodes walked (see stopped)
	halted    bool // the context ended: walk no further
}

// add appends an element of size text bytes, within the output budget as
// Markdown's mdWalker.add.
func (hw *htmlWalker) add(el Element, level, size int) {
	if len(hw.out) > hw.p.opts.MaxPages*hw.p.opts.MaxElements/4 || !hw.p.spend(size) {
		hw.truncated = true
		return
	}
	hw.out = append(hw.out, mdBlock{el: placed(el, hw.quote, hw.indent), level: level, size: size})
}

// flush ends the pending inline run.
func (hw *htmlWalker) flush() {
	plain, md := hw.cur.result()
	refs := hw.cur.refs
	hw.cur = inline{}
	if plain == "" {
		for _, r := range refs {
			if r.Category == dpe.Image {
				delete(r.Content, "within")
				hw.add(r, 0, 40)
			}
		}
		return
	}
	els, kept := textElements(plain, md, hw.p.opts.PageChars)
	for _, el := range els {
		hw.add(el, 0, len(el.Content["text"].(string)))
	}
	if !kept {
		standalone(refs)
	}
	for _, r := range refs {
		hw.add(r, 0, 0)
	}
}

func (hw *htmlWalker) blocks(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		hw.node(c)
	}
}

// skipped elements carry no visible text.
func skipped(a atom.Atom) bool {
	switch a {
	case atom.Script, atom.Style, atom.Template, atom.Noscript, atom.Head, atom.Title, atom.Meta, atom.Link,
		atom.Iframe, atom.Object, atom.Svg, atom.Math, atom.Button, atom.Input, atom.Select, atom.Textarea:
		return true
	}
	return false
}

// node adds the elements of HTML node n, by its tag.
func (hw *htmlWalker) node(n *html.Node) {
	if hw.stopped() {
		return
	}
	switch n.Type {
	case html.TextNode:
		hw.textNode(&hw.cur, n.Data)
		return
	case html.ElementNode:
	case html.DocumentNode:
		hw.blocks(n)
		return
	default:
		return // comments, doctypes
	}
	if skipped(n.DataAtom) {
		return
	}
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		hw.flush()
		hw.heading(n)
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Main, atom.Header, atom.Footer, atom.Nav,
		atom.Aside, atom.Figure, atom.Figcaption, atom.Center, atom.Details, atom.Summary, atom.Form,
		atom.Fieldset, atom.Address, atom.Dl, atom.Dt, atom.Dd, atom.Caption:
		hw.flush()
		hw.blocks(n)
		hw.flush()
	case atom.Ul, atom.Ol:
		hw.flush()
		l := &htmlList{}
		hw.list(n, 0, l)
		hw.addList(l)
	case atom.Pre:
		hw.flush()
		hw.pre(n)
	case atom.Blockquote:
		hw.flush()
		hw.quote++
		hw.blocks(n)
		hw.flush()
		hw.quote--
	case atom.Hr:
		hw.flush()
		hw.add(Element{Category: dpe.Separator, Content: map[string]any{}}, 0, 1)
	case atom.Table:
		hw.flush()
		hw.table(n)
	case atom.Li:
		// A stray <li> outside a list: its content as a paragraph.
		hw.flush()
		hw.blocks(n)
		hw.flush()
	default:
		hw.inlineNode(&hw.cur, n)
	}
}

// heading adds an <h1>…<h6> with its level, text, markdown and anchor.
func (hw *htmlWalker) heading(n *html.Node) {
	level := int(n.Data[1] - '0')
	var in inline
	hw.inlines(&in, n)
	plain, md := in.result()
	if plain == "" {
		return
	}
	el := Element{Category: dpe.Heading, Content: map[string]any{"level": level, "text": collapse(plain)}}
	if md != "" {
		el.Content["markdown"] = collapse(md)
	}
	if id := attr(n, "id"); id != "" {
		el.Content["anchor"] = clean(id)
	}
	hw.add(el, level, len(plain))
}

// pre adds a <pre> as code blocks, in the language its <code>'s
// "language-" class names.
func (hw *htmlWalker) pre(n *html.Node) {
	lang := ""
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom == atom.Code {
			for _, cls := range strings.Fields(attr(c, "class")) {
				if l, ok := strings.CutPrefix(cls, "language-"); ok {
					lang = l
				}
			}
		}
	}
	code := strings.TrimPrefix(textContent(n), "\n") // the parser drops it too
	code = clean(strings.TrimRight(code, "\n"))
	if strings.TrimSpace(code) == "" {
		return
	}
	for _, part := range chunkText(code, hw.p.opts.PageChars) {
		hw.add(Element{Category: dpe.Code, Content: map[string]any{"language": clean(lang), "code": part}}, 0, len(part))
	}
}

// textNode adds HTML text with its white space collapsed as a browser
// shows it.
func (hw *htmlWalker) textNode(in *inline, s string) {
	words := strings.Fields(s)
	p := in.plain.String()
	atStart := p == "" || strings.HasSuffix(p, " ") || strings.HasSuffix(p, "\n")
	if len(words) == 0 {
		if !atStart && s != "" {
			in.raw(" ", " ")
		}
		return
	}
	if isSpace(s[0]) && !atStart {
		in.raw(" ", " ")
	}
	in.text(strings.Join(words, " "))
	if isSpace(s[len(s)-1]) {
		in.raw(" ", " ")
	}
}

func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == '\f' }

// inlines adds the inline content of n's children.
func (hw *htmlWalker) inlines(in *inline, n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			hw.textNode(in, c.Data)
		case html.ElementNode:
			if !skipped(c.DataAtom) {
				hw.inlineNode(in, c)
			}
		}
	}
}

// inlineNode adds one inline element: emphasis, code, links, images,
// breaks; unknown elements contribute their content.
func (hw *htmlWalker) inlineNode(in *inline, n *html.Node) {
	switch n.DataAtom {
	case atom.Em, atom.I, atom.Cite, atom.Var, atom.Dfn:
		in.wrap("*", func() { hw.inlines(in, n) })
	case atom.Strong, atom.B:
		in.wrap("**", func() { hw.inlines(in, n) })
	case atom.Del, atom.S, atom.Strike:
		in.wrap("~~", func() { hw.inlines(in, n) })
	case atom.Code, atom.Tt, atom.Kbd, atom.Samp:
		in.code(collapse(textContent(n)))
	case atom.A:
		href := attr(n, "href")
		if href == "" {
			hw.inlines(in, n)
			return
		}
		in.link(href, attr(n, "title"), func() { hw.inlines(in, n) })
	case atom.Img:
		if src := attr(n, "src"); src != "" {
			in.image(src, attr(n, "alt"), attr(n, "title"))
		}
	case atom.Sup, atom.Sub:
		// 2<sup>n</sup> is 2^n, not 2n; x<sub>i</sub> is x_i.
		if n.DataAtom == atom.Sup {
			in.raw("^", "^")
		} else {
			in.raw("_", "\\_")
		}
		hw.inlines(in, n)
	case atom.Br:
		in.hardBreak()
	default:
		if isBlock(n.DataAtom) {
			// A block inside inline content (a <div> in a <span>): a break.
			in.hardBreak()
		}
		hw.inlines(in, n)
	}
}

// hasBlock reports whether n has a block element among its children.
func hasBlock(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && isBlock(c.DataAtom) {
			return true
		}
	}
	return false
}

func isBlock(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Ul, atom.Ol, atom.Li, atom.Table, atom.Pre, atom.Blockquote,
		atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Hr:
		return true
	}
	return false
}

// htmlList collects the items of a (nested) HTML list.
type htmlList struct {
	items, mds, markers []string
	levels              []int
	refs                []Element
}

// list reads the <li> of a <ul>/<ol> at a nesting level; nested lists
// follow their parent item one level deeper.
func (hw *htmlWalker) list(n *html.Node, level int, l *htmlList) {
	ordered := n.DataAtom == atom.Ol
	num := 1
	if s, err := strconv.Atoi(attr(n, "start")); err == nil && ordered {
		num = s
	}
	for li := n.FirstChild; li != nil; li = li.NextSibling {
		if li.Type != html.ElementNode || li.DataAtom != atom.Li {
			continue
		}
		m := "-"
		if ordered {
			m = strconv.Itoa(num) + "."
			num++
		}
		var in inline
		var nested []*html.Node
		done := false // the item's text is added; further content is blocks
		item := func() {
			plain, md := in.result()
			if md == "" {
				md = dpe.EscapeInline(plain)
			}
			l.items = append(l.items, collapse(plain))
			l.mds = append(l.mds, strings.ReplaceAll(md, "\\\n", " "))
			l.markers = append(l.markers, m)
			l.levels = append(l.levels, level)
			l.refs = append(l.refs, in.refs...)
			done = true
		}
		for c := li.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.DataAtom == atom.Ul || c.DataAtom == atom.Ol) {
				nested = append(nested, c)
				continue
			}
			if c.Type == html.ElementNode && !done && (c.DataAtom == atom.P || c.DataAtom == atom.Div) && !hasBlock(c) {
				if in.plain.Len() > 0 {
					in.raw(" ", " ")
				}
				hw.inlines(&in, c)
				continue
			}
			if c.Type == html.ElementNode && (isBlock(c.DataAtom) || done) {
				// Code, a table, a quote, a second paragraph: the list so
				// far is added, the block follows indented into the item,
				// and the list resumes after it.
				if !done {
					item()
				}
				hw.addList(l)
				*l = htmlList{}
				hw.indent += level + 1
				hw.node(c)
				hw.flush()
				hw.indent -= level + 1
				continue
			}
			if done {
				continue // stray text between blocks of an item
			}
			if c.Type == html.TextNode {
				hw.textNode(&in, c.Data)
			} else if c.Type == html.ElementNode && !skipped(c.DataAtom) {
				hw.inlineNode(&in, c)
			}
		}
		if !done {
			item()
		}
		for _, sub := range nested {
			if level < 8 {
				hw.list(sub, level+1, l)
			}
		}
	}
}

func (hw *htmlWalker) addList(l *htmlList) {
	if len(l.items) == 0 {
		return
	}
	c := map[string]any{"ordered": false, "items": l.items, "markers": l.markers}
	if m := l.markers[0]; m != "-" {
		n, _ := strconv.Atoi(strings.TrimSuffix(m, "."))
		c["ordered"], c["start"] = true, n
	}
	flat := true
	for _, v := range l.levels {
		flat = flat && v == 0
	}
	if !flat {
		c["levels"] = l.levels
	}
	for i, md := range l.mds {
		if md != dpe.EscapeInline(l.items[i]) {
			c["items_markdown"] = l.mds
			break
		}
	}
	size := 0
	for _, it := range l.items {
		size += len(it)
	}
	hw.add(Element{Category: dpe.List, Content: c}, 0, size)
	for _, r := range l.refs {
		hw.add(r, 0, 0)
	}
}

// table reads a <table>: the header is its <thead> row or a first row of
// <th> cells.
func (hw *htmlWalker) table(t *html.Node) {
	var rows, mds [][]string
	header := -1
	rich := false
	var walk func(n *html.Node, inHead bool)
	walk = func(n *html.Node, inHead bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Thead:
				walk(c, true)
			case atom.Tbody, atom.Tfoot:
				walk(c, false)
			case atom.Tr:
				var cells, cmd []string
				allTH := true
				for td := c.FirstChild; td != nil; td = td.NextSibling {
					if td.Type != html.ElementNode || (td.DataAtom != atom.Td && td.DataAtom != atom.Th) {
						continue
					}
					allTH = allTH && td.DataAtom == atom.Th
					var in inline
					hw.inlines(&in, td)
					plain, md := in.result()
					if md != "" {
						rich = true
					} else {
						md = dpe.EscapeSpan(collapse(plain))
					}
					if len(cells) < hw.p.opts.MaxColumns {
						cells = append(cells, truncate(plain, hw.p.opts.MaxCellChars))
						cmd = append(cmd, strings.ReplaceAll(md, "\\\n", " "))
					}
				}
				if header < 0 && len(rows) == 0 && (inHead || allTH) {
					header = 0
				}
				if len(rows) <= hw.p.opts.MaxRows {
					rows = append(rows, cells)
					mds = append(mds, cmd)
				} else {
					hw.truncated = true
				}
			}
		}
	}
	walk(t, false)
	if len(rows) == 0 {
		return
	}
	headers, hmd := []string{}, []string{}
	body, bmd := rows, mds
	if header == 0 {
		headers, hmd, body, bmd = rows[0], mds[0], rows[1:], mds[1:]
	}
	per := hw.p.opts.TableRowsPerPage
	for i, el := range tableElements(headers, body, per, 0, 0) {
		if rich {
			el.Content["headers_markdown"] = hmd
			lo := min(i*per, len(bmd))
			el.Content["rows_markdown"] = bmd[lo:min(lo+per, len(bmd))]
		}
		hw.add(el, 0, 40*len(el.Content["rows"].([][]string)))
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// textContent is the text of n and its descendants (no script or style).
func textContent(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			return
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style) {
			return
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Br {
			b.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func findElement(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findElement(c, a); f != nil {
			return f
		}
	}
	return nil
}

// inlineHTML handles a raw inline HTML tag of a Markdown paragraph: <br>
// is a line break, <img> an image; other tags are dropped (their text is
// separate Markdown text and stays).
func inlineHTML(in *inline, tag string) {
	t := strings.ToLower(strings.TrimSpace(tag))
	switch {
	case strings.HasPrefix(t, "<br"):
		in.hardBreak()
	case strings.HasPrefix(t, "<img"):
		z := html.NewTokenizer(strings.NewReader(tag))
		if z.Next() == html.StartTagToken || z.Token().Type == html.SelfClosingTagToken {
			tok := z.Token()
			n := &html.Node{Attr: tok.Attr}
			if src := attr(n, "src"); src != "" {
				in.image(src, attr(n, "alt"), attr(n, "title"))
			}
		}
	}
}
