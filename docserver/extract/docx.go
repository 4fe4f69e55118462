package extract

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// DOCX is read with archive/zip and encoding/xml over the OOXML parts (no
// maintained pure-Go DOCX reader covers headings, lists, tables and breaks
// without pulling in a writer-oriented object model): word/document.xml
// gives the body; word/styles.xml maps paragraph styles to heading levels;
// word/numbering.xml tells ordered from bulleted lists; the document's
// relationships give hyperlink targets. Pages break at explicit page breaks
// (w:br w:type="page", w:pageBreakBefore) and at section breaks (w:sectPr
// inside a paragraph).

// docxStyle is what a paragraph style contributes: a heading level (0:
// none, -1: the Title style) and list numbering.
type docxStyle struct {
	level int
	numID string // numbering defined on the style (e.g. "List Bullet")
	list  int    // 1 bulleted, 2 numbered by the style's name, 0 neither
	code  bool   // a code style ("Source Code", "HTML Preformatted", ...)
}

// docxStyles reads word/styles.xml. The part is large (hundreds of KiB
// of latent styles in documents made from Word's default template), so it
// is streamed rather than built into a tree: only each w:style's id, name
// and numbering are kept.
func docxStyles(p *pkg) map[string]docxStyle {
	out := map[string]docxStyle{}
	data, err := p.read("word/styles.xml")
	if err != nil {
		return out
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	var id, name, numID string
	inStyle := false
	attr := func(se xml.StartElement, local string) string {
		for _, a := range se.Attr {
			if a.Name.Local == local {
				return a.Value
			}
		}
		return ""
	}
	for {
		tok, err := dec.RawToken()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "style":
				inStyle, id, name, numID = true, attr(t, "styleId"), "", ""
			case "name":
				if inStyle {
					name = strings.ToLower(attr(t, "val"))
				}
			case "numId":
				if inStyle {
					numID = attr(t, "val")
				}
			}
		case xml.EndElement:
			if t.Name.Local == "style" && inStyle {
				st := docxStyle{level: headingLevel(name), numID: numID, code: codeStyle(name) || codeStyle(id)}
				switch {
				case strings.HasPrefix(name, "list bullet"):
					st.list = 1
				case strings.HasPrefix(name, "list number"):
					st.list = 2
				}
				out[id] = st
				inStyle = false
			}
		}
	}
	return out
}

// codeStyle reports whether a paragraph or character style name is one
// that word processors and converters use for code: pandoc's "Source
// Code" and "Verbatim Char", Word's "HTML Preformatted" and "Macro Text",
// LibreOffice's "Preformatted Text", and any style named "Code...".
func codeStyle(name string) bool {
	n := strings.ToLower(strings.ReplaceAll(name, " ", ""))
	return strings.Contains(n, "code") || strings.Contains(n, "preformatted") || strings.Contains(n, "verbatim") ||
		n == "macrotext" || n == "plaintext"
}

// monospaceFonts are the fonts whose runs make a paragraph code.
var monospaceFonts = map[string]bool{
	"courier": true, "courier new": true, "consolas": true, "menlo": true, "monaco": true, "lucida console": true,
	"source code pro": true, "dejavu sans mono": true, "liberation mono": true, "cascadia code": true,
	"cascadia mono": true, "fira code": true, "fira mono": true, "jetbrains mono": true, "roboto mono": true,
}

// monospaceParagraph reports whether every run with text in a paragraph
// is set in a monospace font or a code character style.
func monospaceParagraph(pn *xnode) bool {
	runs := 0
	for _, run := range pn.all("r") {
		if run.first("t") == nil {
			continue
		}
		runs++
		rpr := run.child("rPr")
		if rpr == nil {
			return false
		}
		mono := false
		if f := rpr.child("rFonts"); f != nil {
			mono = monospaceFonts[strings.ToLower(f.attr("ascii"))] || monospaceFonts[strings.ToLower(f.attr("hAnsi"))]
		}
		if rs := rpr.child("rStyle"); rs != nil && codeStyle(rs.attr("val")) {
			mono = true
		}
		if !mono {
			return false
		}
	}
	return runs > 0
}

// headingLevel reads "heading 2" / "Heading2" / "title" style names.
func headingLevel(name string) int {
	n := strings.ToLower(strings.ReplaceAll(name, " ", ""))
	switch {
	case n == "title":
		return -1
	case strings.HasPrefix(n, "heading"):
		if l, err := strconv.Atoi(strings.TrimPrefix(n, "heading")); err == nil && l >= 1 && l <= 9 {
			return l
		}
	}
	return 0
}

// docxNumbering maps numId to whether each level (w:ilvl 0-8) of its list
// is ordered.
func docxNumbering(p *pkg) map[string][]bool {
	out := map[string][]bool{}
	t, err := p.tree("word/numbering.xml")
	if err != nil {
		return out
	}
	abstract := map[string][]bool{}
	for _, a := range t.all("abstractNum") {
		ordered := make([]bool, 9)
		for _, l := range a.kids("lvl") {
			if n, err := strconv.Atoi(l.attr("ilvl")); err == nil && n >= 0 && n < len(ordered) {
				f := l.child("numFmt").attr("val")
				ordered[n] = f != "" && f != "bullet" && f != "none"
			}
		}
		abstract[a.attr("abstractNumId")] = ordered
	}
	for _, n := range t.all("num") {
		out[n.attr("numId")] = abstract[n.child("abstractNumId").attr("val")]
	}
	return out
}

// docxReader walks a document body into pages.
type docxReader struct {
	p        *parser
	pkg      *pkg
	styles   map[string]docxStyle
	ordered  map[string][]bool // numId → ordered, per level
	rels     map[string]rel
	pages    []Page
	cur      *Page
	list     *Element // the list being built from consecutive numbered paragraphs
	listNum  string
	counts   [9]int    // item numbers per level of the list being built
	code     *Element  // the code block being built from consecutive code paragraphs
	listRefs []Element // links of the list's items, added after it
	title    string    // first Title / Heading 1 paragraph
	summary  string
	cut      bool
}

func (r *docxReader) page() *Page {
	if r.cur == nil {
		r.newPage()
	}
	return r.cur
}

// breakPage ends the current page; the next element opens a new one, so
// a break at the end of the document leaves no empty page.
func (r *docxReader) breakPage() {
	r.endList()
	r.endCode()
	r.cur = nil
}

// endCode adds the pending code block.
func (r *docxReader) endCode() {
	if r.code != nil {
		c := *r.code
		r.code = nil
		c.Content["code"] = strings.TrimRight(c.Content["code"].(string), "\n")
		r.add(c)
	}
}

func (r *docxReader) newPage() {
	if len(r.pages) >= r.p.opts.MaxPages {
		r.cut = true
		r.cur = &Page{} // keep reading into a discarded page
		return
	}
	r.pages = append(r.pages, Page{})
	r.cur = &r.pages[len(r.pages)-1]
}

func (r *docxReader) add(e Element) {
	r.endCode() // anything else ends a code block
	pg := r.page()
	if len(pg.Elements) >= r.p.opts.MaxElements || !r.p.spend(contentBytes(e.Content)) {
		r.cut = true
		return
	}
	pg.Elements = append(pg.Elements, e)
	if pg.Title == "" && e.Category == dpe.Heading {
		pg.Title, _ = e.Content["text"].(string)
	}
}

func (r *docxReader) endList() {
	if r.list == nil {
		return
	}
	el := *r.list
	refs := r.listRefs
	r.list, r.listNum, r.listRefs = nil, "", nil
	c := el.Content
	flat, plainMD := true, true
	for i, lv := range c["levels"].([]int) {
		flat = flat && lv == 0
		plainMD = plainMD && c["items_markdown"].([]string)[i] == dpe.EscapeInline(c["items"].([]string)[i])
	}
	if flat {
		// One level: the spec's ordered/start say it all.
		delete(c, "levels")
		delete(c, "markers")
	}
	if plainMD {
		delete(c, "items_markdown")
	}
	r.add(el)
	for _, ref := range refs {
		r.add(ref)
	}
}

// addItem adds a numbered or bulleted paragraph to the list being built
// (opening one for a new numbering): its text, Markdown, level and marker,
// numbered per level.
func (r *docxReader) addItem(numID string, ilvl int, text, md string) {
	ordered := r.ordered[numID]
	isOrdered := func(l int) bool { return l < len(ordered) && ordered[l] }
	if r.list == nil || r.listNum != numID {
		r.endList()
		r.list = &Element{Category: dpe.List, Content: map[string]any{
			"ordered": isOrdered(0), "items": []string{}, "levels": []int{}, "markers": []string{}, "items_markdown": []string{},
		}}
		if isOrdered(0) {
			r.list.Content["start"] = 1
		}
		r.listNum = numID
		r.counts = [9]int{}
	}
	r.counts[ilvl]++
	for l := ilvl + 1; l < len(r.counts); l++ {
		r.counts[l] = 0
	}
	marker := "-"
	if isOrdered(ilvl) {
		marker = strconv.Itoa(r.counts[ilvl]) + "."
	}
	if md == "" {
		md = dpe.EscapeInline(text)
	}
	c := r.list.Content
	c["items"] = append(c["items"].([]string), collapse(text))
	c["levels"] = append(c["levels"].([]int), ilvl)
	c["markers"] = append(c["markers"].([]string), marker)
	c["items_markdown"] = append(c["items_markdown"].([]string), collapse(md))
}

// runFormat is the character formatting of a run that Markdown can show.
type runFormat struct {
	bold, italic, strike, code bool
}

// delims are the emphasis delimiters of f, innermost first.
func (f runFormat) delims() []string {
	var d []string
	if f.italic {
		d = append(d, "*")
	}
	if f.bold {
		d = append(d, "**")
	}
	if f.strike {
		d = append(d, "~~")
	}
	return d
}

// runFormat reads a run's w:rPr: bold, italic, strike-through, and code (a
// code character style or a monospace font).
func (r *docxReader) runFormat(run *xnode) runFormat {
	var f runFormat
	rpr := run.child("rPr")
	if rpr == nil {
		return f
	}
	on := func(name string) bool {
		n := rpr.child(name)
		if n == nil {
			return false
		}
		switch strings.ToLower(n.attr("val")) {
		case "0", "false", "off", "none":
			return false
		}
		return true
	}
	f.bold, f.italic = on("b"), on("i")
	f.strike = on("strike") || on("dstrike")
	if rs := rpr.child("rStyle"); rs != nil && codeStyle(rs.attr("val")) {
		f.code = true
	}
	if fn := rpr.child("rFonts"); fn != nil && (monospaceFonts[strings.ToLower(fn.attr("ascii"))] || monospaceFonts[strings.ToLower(fn.attr("hAnsi"))]) {
		f.code = true
	}
	return f
}

// parseDOCX reads a .docx file.
func parseDOCX(p *parser, src []byte) (*Document, error) {
	return readDOCX(p, bytes.NewReader(src), int64(len(src)), false)
}

// peekDOCX reads the core properties and, when they have no title, the
// document body up to its first heading.
func peekDOCX(p *parser, ra io.ReaderAt, size int64) (Meta, error) {
	doc, err := readDOCX(p, ra, size, true)
	if err != nil {
		return Meta{}, err
	}
	return Meta{Title: doc.Title, Summary: doc.Summary}, nil
}

func readDOCX(p *parser, ra io.ReaderAt, size int64, peek bool) (*Document, error) {
	pk, err := openPackage(p, ra, size)
	if err != nil {
		return nil, err
	}
	if !pk.has("word/document.xml") {
		return nil, errors.New("not a DOCX package: word/document.xml is missing")
	}
	core := pk.core()
	doc := &Document{Title: core.title, Summary: core.summary(), Keywords: splitKeywords(core.keywords)}
	if peek && doc.Title != "" && doc.Summary != "" {
		return doc, nil
	}
	body, err := pk.tree("word/document.xml")
	if err != nil {
		return nil, err
	}
	r := &docxReader{p: p, pkg: pk, styles: docxStyles(pk), ordered: docxNumbering(pk), rels: pk.rels("word/document.xml")}
	if b := body.first("body"); b != nil {
		r.blocks(b, peek)
	}
	r.endList()
	r.endCode()
	if doc.Title == "" {
		doc.Title = r.title
	}
	if doc.Summary == "" {
		doc.Summary = r.summary
	}
	doc.Pages, doc.Truncated = r.pages, r.cut
	return doc, nil
}

// blocks reads the block-level content of a body (or a content control).
func (r *docxReader) blocks(body *xnode, peek bool) {
	for _, c := range body.children {
		if r.cancelledOrDone(peek) {
			return
		}
		switch c.name {
		case "p":
			r.paragraph(c)
		case "tbl":
			r.endList()
			r.table(c)
		case "sdt":
			r.blocks(c.child("sdtContent"), peek)
		}
	}
}

func (r *docxReader) cancelledOrDone(peek bool) bool {
	if peek && r.title != "" && r.summary != "" {
		return true
	}
	return r.p.cancelled() != nil
}

// paragraph reads one w:p: its text split at page breaks, its style,
// numbering, links and images.
func (r *docxReader) paragraph(pn *xnode) {
	ppr := pn.child("pPr")
	pp := r.paraProps(ppr)
	if ppr != nil && ppr.child("pageBreakBefore") != nil {
		r.breakPage()
	}
	rc := &runCollector{r: r}
	rc.walk(pn, runFormat{})
	rc.endSegment()
	code := pp.code || (pp.level == 0 && pp.numID == "" && monospaceParagraph(pn))
	for i, sg := range rc.segs {
		if i > 0 {
			r.breakPage()
		}
		if code {
			r.addCodeLine(sg.raw)
			continue
		}
		text := strings.TrimSpace(sg.plain)
		switch {
		case text == "":
		case pp.level != 0:
			r.addHeading(pp.level, text, sg.md)
		case pp.numID != "":
			r.addItem(pp.numID, pp.ilvl, text, sg.md)
		default:
			r.addText(text, sg.md)
		}
	}
	refs := rc.refs
	if pp.numID != "" && !code {
		// Links of list items are shown within the list.
		r.listRefs = append(r.listRefs, refs...)
		refs = nil
	}
	r.endListIfRefs(refs)
	for _, e := range refs {
		r.add(e)
	}
	if ppr != nil && ppr.child("sectPr") != nil {
		r.breakPage()
	}
}

// paraProps is what a paragraph's properties (w:pPr) say of it.
type paraProps struct {
	level int    // heading level; 0 for none
	numID string // its list's numbering; "" outside lists
	ilvl  int    // its level in the list
	code  bool   // a code style
}

// paraProps reads a paragraph's style and numbering (ppr may be nil).
func (r *docxReader) paraProps(ppr *xnode) paraProps {
	var pp paraProps
	if ppr == nil {
		return pp
	}
	if ps := ppr.child("pStyle"); ps != nil {
		name := ps.attr("val")
		st := r.styles[name]
		pp.code = st.code || codeStyle(name)
		pp.level = st.level
		if pp.level == 0 {
			pp.level = headingLevel(name)
		}
		pp.numID = st.numID
		if pp.numID == "" && st.list != 0 {
			pp.numID = "style:" + name
			r.ordered[pp.numID] = []bool{st.list == 2}
		}
	}
	if np := ppr.child("numPr"); np != nil {
		pp.numID = np.child("numId").attr("val")
		if pp.numID == "0" {
			pp.numID = ""
		}
		if n, err := strconv.Atoi(np.child("ilvl").attr("val")); err == nil && n >= 0 && n < 9 {
			pp.ilvl = n
		}
	}
	return pp
}

// addCodeLine adds a line of a code paragraph: it keeps its indentation
// and line breaks, and consecutive ones (one per line, as LibreOffice
// writes them) make one block, blank lines included.
func (r *docxReader) addCodeLine(raw string) {
	r.endList()
	line := strings.TrimRight(raw, " \n")
	if r.code == nil {
		if strings.TrimSpace(line) == "" {
			return
		}
		r.code = &Element{Category: dpe.Code, Content: map[string]any{"language": "", "code": line}}
		return
	}
	r.code.Content["code"] = r.code.Content["code"].(string) + "\n" + line
}

// addHeading adds a heading (a negative level is a title: 1); the first
// of level 1 is the document's title.
func (r *docxReader) addHeading(level int, text, md string) {
	r.endList()
	h := Element{Category: dpe.Heading, Content: map[string]any{"level": min(max(level, 1), 6), "text": collapse(text)}}
	if md != "" {
		h.Content["markdown"] = collapse(md)
	}
	r.add(h)
	if r.title == "" && level <= 1 {
		r.title = collapse(text)
	}
}

// addText adds a paragraph of text; the first is the document's summary.
func (r *docxReader) addText(text, md string) {
	r.endList()
	el := Element{Category: dpe.Text, Content: map[string]any{"text": text}}
	if md != "" {
		el.Content["markdown"] = md
	}
	r.add(el)
	if r.summary == "" {
		r.summary = firstSentences(text, SummaryChars)
	}
}

// docxSegment is the text of a paragraph between page breaks: as written
// (for code), plain and as Markdown.
type docxSegment struct{ raw, plain, md string }

// runCollector gathers a paragraph's runs into segments, with the links
// and images met on the way. Runs with the same formatting are written
// together, so that two bold runs make one **strong** span.
type runCollector struct {
	r          *docxReader
	segs       []docxSegment
	refs       []Element
	in         inline
	pending    strings.Builder
	pendingFmt runFormat
}

// write adds text of format f.
func (rc *runCollector) write(f runFormat, text string) {
	if f != rc.pendingFmt {
		rc.flush()
		rc.pendingFmt = f
	}
	rc.pending.WriteString(text)
}

// flush writes the pending text of one format.
func (rc *runCollector) flush() {
	if rc.pending.Len() == 0 {
		return
	}
	text := rc.pending.String()
	rc.pending.Reset()
	if rc.pendingFmt.code {
		rc.in.code(text)
		return
	}
	write := func() { rc.in.text(text) }
	for _, d := range rc.pendingFmt.delims() {
		inner := write
		write = func() { rc.in.wrap(d, inner) }
	}
	write()
}

// endSegment ends the current segment (at a page break and at the end).
func (rc *runCollector) endSegment() {
	rc.flush()
	raw := clean(rc.in.plain.String())
	plain, md := rc.in.result()
	rc.segs = append(rc.segs, docxSegment{raw, plain, md})
	rc.refs = append(rc.refs, rc.in.refs...)
	rc.in = inline{}
}

// walk reads the runs under n, of format f unless a run sets its own.
func (rc *runCollector) walk(n *xnode, f runFormat) {
	for _, c := range n.children {
		switch c.name {
		case "r":
			rc.walk(c, rc.r.runFormat(c))
		case "t":
			rc.write(f, c.text())
		case "tab":
			rc.write(f, "\t")
		case "br", "cr":
			if c.attr("type") == "page" {
				rc.endSegment()
			} else {
				rc.flush()
				rc.in.hardBreak()
			}
		case "hyperlink":
			rc.hyperlink(c, f)
		case "drawing", "pict":
			rc.flush()
			rc.refs = append(rc.refs, drawingImage(c))
		case "pPr", "rPr", "instrText", "delText":
			// properties, field codes and deleted text carry no visible text
		default:
			rc.walk(c, f)
		}
	}
}

// hyperlink reads a w:hyperlink: a link to its relationship's target or
// its bookmark; text without either stays plain.
func (rc *runCollector) hyperlink(c *xnode, f runFormat) {
	rc.flush()
	url := ""
	if rl, ok := rc.r.rels[c.relID()]; ok {
		url = rl.target
	} else if a := c.attr("anchor"); a != "" {
		url = "#" + a
	}
	if url == "" {
		rc.walk(c, f)
		return
	}
	rc.in.link(clean(url), "", func() {
		rc.walk(c, f)
		rc.flush()
	})
}

// drawingImage is the image element of a w:drawing or w:pict, described
// by its alternative text, title or name.
func drawingImage(c *xnode) Element {
	alt := ""
	if dp := c.first("docPr"); dp != nil {
		alt = dp.attr("descr")
		if alt == "" {
			alt = dp.attr("title")
		}
		if alt == "" {
			alt = dp.attr("name")
		}
	}
	return Element{Category: dpe.Image, Content: map[string]any{"url": "", "alt": clean(alt), "description": clean(alt)}}
}

// endListIfRefs closes a pending list before link or image elements so
// they do not land inside it.
func (r *docxReader) endListIfRefs(refs []Element) {
	if len(refs) > 0 {
		r.endList()
	}
}

// table reads a w:tbl; the first row is the header.
func (r *docxReader) table(t *xnode) {
	var rows [][]string
	for _, tr := range t.kids("tr") {
		var cells []string
		for _, tc := range tr.kids("tc") {
			var parts []string
			for _, p := range tc.all("p") {
				var b strings.Builder
				for _, x := range p.all("t") {
					b.WriteString(x.text())
				}
				if s := strings.TrimSpace(b.String()); s != "" {
					parts = append(parts, s)
				}
			}
			if len(cells) < r.p.opts.MaxColumns {
				cells = append(cells, truncate(clean(strings.Join(parts, "\n")), r.p.opts.MaxCellChars))
			}
		}
		if len(rows) > r.p.opts.MaxRows {
			r.cut = true
			break
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		return
	}
	for _, el := range tableElements(rows[0], rows[1:], r.p.opts.TableRowsPerPage, 0, 0) {
		r.add(el)
	}
}
