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
				st := docxStyle{level: headingLevel(name), numID: numID}
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

// docxNumbering maps numId to whether level 0 of its list is ordered.
func docxNumbering(p *pkg) map[string]bool {
	out := map[string]bool{}
	t, err := p.tree("word/numbering.xml")
	if err != nil {
		return out
	}
	abstract := map[string]bool{}
	for _, a := range t.all("abstractNum") {
		ordered := false
		for _, l := range a.kids("lvl") {
			if l.attr("ilvl") == "0" {
				f := l.child("numFmt").attr("val")
				ordered = f != "" && f != "bullet" && f != "none"
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
	p       *parser
	pkg     *pkg
	styles  map[string]docxStyle
	ordered map[string]bool
	rels    map[string]rel
	pages   []Page
	cur     *Page
	list    *Element // the list being built from consecutive numbered paragraphs
	listNum string
	title   string // first Title / Heading 1 paragraph
	summary string
	cut     bool
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
	r.cur = nil
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
	if r.list != nil {
		r.add(*r.list)
		r.list, r.listNum = nil, ""
	}
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
	if ppr != nil {
		if ps := ppr.child("pStyle"); ps != nil {
			st := r.styles[ps.attr("val")]
			level = st.level
			if level == 0 {
				level = headingLevel(ps.attr("val"))
			}
			numID = st.numID
			if numID == "" && st.list != 0 {
				numID = "style:" + ps.attr("val")
				r.ordered[numID] = st.list == 2
			}
		}
		if np := ppr.child("numPr"); np != nil {
			numID = np.child("numId").attr("val")
			if numID == "0" {
				numID = ""
			}
		}
		if ppr.child("pageBreakBefore") != nil {
			r.breakPage()
		}
	}
	var segs []string // text between page breaks
	var b strings.Builder
	var refs []Element
	var walk func(n *xnode, link *rel)
	walk = func(n *xnode, link *rel) {
		for _, c := range n.children {
			switch c.name {
			case "t":
				b.WriteString(c.text())
			case "tab":
				b.WriteByte('\t')
			case "br", "cr":
				if c.attr("type") == "page" {
					segs = append(segs, b.String())
					b.Reset()
				} else {
					b.WriteByte('\n')
				}
			case "hyperlink":
				start := b.Len()
				var l *rel
				if rl, ok := r.rels[c.relID()]; ok {
					l = &rl
				}
				walk(c, l)
				if l != nil {
					label := collapse(b.String()[start:])
					refs = append(refs, Element{Category: dpe.Link, Content: map[string]any{"text": clean(label), "url": clean(l.target)}})
				} else if a := c.attr("anchor"); a != "" {
					label := collapse(b.String()[start:])
					refs = append(refs, Element{Category: dpe.Link, Content: map[string]any{"text": clean(label), "url": "#" + clean(a)}})
				}
			case "drawing", "pict":
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
				walk(c, link)
			}
		}
	}
	walk(pn, nil)
	segs = append(segs, b.String())
	for i, seg := range segs {
		if i > 0 {
			r.breakPage()
		}
		text := clean(strings.TrimSpace(seg))
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
			r.add(Element{Category: dpe.Heading, Content: map[string]any{"level": min(l, 6), "text": collapse(text)}})
			if r.title == "" && level <= 1 {
				r.title = collapse(text)
			}
		case numID != "":
			if r.list == nil || r.listNum != numID {
				r.endList()
				r.list = &Element{Category: dpe.List, Content: map[string]any{"ordered": r.ordered[numID], "items": []string{}}}
				if r.ordered[numID] {
					r.list.Content["start"] = 1
				}
				r.listNum = numID
			}
			r.list.Content["items"] = append(r.list.Content["items"].([]string), collapse(text))
		default:
			r.endList()
			r.add(Element{Category: dpe.Text, Content: map[string]any{"text": text}})
			if r.summary == "" {
				r.summary = firstSentences(text, SummaryChars)
			}
		}
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
