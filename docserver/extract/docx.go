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
	level := 0
	numID := ""
	ilvl := 0
	code := false
	if ppr != nil {
		if ps := ppr.child("pStyle"); ps != nil {
			st := r.styles[ps.attr("val")]
			code = st.code || codeStyle(ps.attr("val"))
			level = st.level
			if level == 0 {
				level = headingLevel(ps.attr("val"))
			}
			numID = st.numID
			if numID == "" && st.list != 0 {
				numID = "style:" + ps.attr("val")
				r.ordered[numID] = []bool{st.list == 2}
			}
		}
		if np := ppr.child("numPr"); np != nil {
			numID = np.child("numId").attr("val")
			if numID == "0" {
				numID = ""
			}
			if n, err := strconv.Atoi(np.child("ilvl").attr("val")); err == nil && n >= 0 && n < 9 {
				ilvl = n
			}
		}
		if ppr.child("pageBreakBefore") != nil {
			r.breakPage()
		}
	}
	type seg struct{ raw, plain, md string }
	var segs []seg // text between page breaks
	var in inline
	var refs []Element
	// Runs with the same formatting are written together, so that two bold
	// runs make one **strong** span.
	var pending strings.Builder
	pendingFmt := runFormat{}
	flushRun := func() {
		if pending.Len() == 0 {
			return
		}
		text := pending.String()
		pending.Reset()
		switch {
		case pendingFmt.code:
			in.code(text)
		default:
			write := func() { in.text(text) }
			for _, d := range pendingFmt.delims() {
				inner := write
				write = func() { in.wrap(d, inner) }
			}
			write()
		}
	}
	endSeg := func() {
		flushRun()
		raw := clean(in.plain.String())
		plain, md := in.result()
		segs = append(segs, seg{raw, plain, md})
		refs = append(refs, in.refs...)
		in = inline{}
	}
	var walk func(n *xnode, f runFormat)
	walk = func(n *xnode, f runFormat) {
		for _, c := range n.children {
			switch c.name {
			case "r":
				walk(c, r.runFormat(c))
			case "t":
				if f != pendingFmt {
					flushRun()
					pendingFmt = f
				}
				pending.WriteString(c.text())
			case "tab":
				if f != pendingFmt {
					flushRun()
					pendingFmt = f
				}
				pending.WriteByte('\t')
			case "br", "cr":
				if c.attr("type") == "page" {
					endSeg()
				} else {
					flushRun()
					in.hardBreak()
				}
			case "hyperlink":
				flushRun()
				url := ""
				if rl, ok := r.rels[c.relID()]; ok {
					url = rl.target
				} else if a := c.attr("anchor"); a != "" {
					url = "#" + a
				}
				if url == "" {
					walk(c, f)
					continue
				}
				in.link(clean(url), "", func() {
					walk(c, f)
					flushRun()
				})
			case "drawing", "pict":
				flushRun()
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
				refs = append(refs, Element{Category: dpe.Image, Content: map[string]any{"url": "", "alt": clean(alt), "description": clean(alt)}})
			case "pPr", "rPr", "instrText", "delText":
				// properties, field codes and deleted text carry no visible text
			default:
				walk(c, f)
			}
		}
	}
	walk(pn, runFormat{})
	endSeg()
	code = code || (level == 0 && numID == "" && monospaceParagraph(pn))
	for i, sg := range segs {
		if i > 0 {
			r.breakPage()
		}
		if code {
			// A code paragraph keeps its indentation and line breaks;
			// consecutive ones (one per line, as LibreOffice writes them)
			// make one block, blank lines included.
			r.endList()
			line := strings.TrimRight(sg.raw, " \n")
			if r.code == nil {
				if strings.TrimSpace(line) == "" {
					continue
				}
				r.code = &Element{Category: dpe.Code, Content: map[string]any{"language": "", "code": line}}
			} else {
				r.code.Content["code"] = r.code.Content["code"].(string) + "\n" + line
			}
			continue
		}
		text := strings.TrimSpace(sg.plain)
		if text == "" {
			continue
		}
		switch {
		case level != 0:
			r.endList()
			l := level
			if l < 0 {
				l = 1
			}
			h := Element{Category: dpe.Heading, Content: map[string]any{"level": min(l, 6), "text": collapse(text)}}
			if sg.md != "" {
				h.Content["markdown"] = collapse(sg.md)
			}
			r.add(h)
			if r.title == "" && level <= 1 {
				r.title = collapse(text)
			}
		case numID != "":
			r.addItem(numID, ilvl, text, sg.md)
		default:
			r.endList()
			el := Element{Category: dpe.Text, Content: map[string]any{"text": text}}
			if sg.md != "" {
				el.Content["markdown"] = sg.md
			}
			r.add(el)
			if r.summary == "" {
				r.summary = firstSentences(text, SummaryChars)
			}
		}
	}
	if numID != "" && !code {
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
