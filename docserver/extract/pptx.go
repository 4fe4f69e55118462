package extract

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// PPTX is read, like DOCX, with archive/zip and encoding/xml: the slide
// order comes from ppt/presentation.xml (p:sldIdLst) through its
// relationships; each slide gives one page whose title is its title
// placeholder, with text bodies (several paragraphs become a list), tables
// (a:tbl), pictures, charts (through the slide's relationships) and the
// speaker notes as an annotation.

const (
	relSlide      = "/slide"
	relNotesSlide = "/notesSlide"
	relChart      = "/chart"
)

// slideParts returns the slide parts in presentation order.
func slideParts(pk *pkg) ([]string, error) {
	pres, err := pk.tree("ppt/presentation.xml")
	if err != nil {
		return nil, err
	}
	rels := pk.rels("ppt/presentation.xml")
	var out []string
	if lst := pres.first("sldIdLst"); lst != nil {
		for _, s := range lst.kids("sldId") {
			if r, ok := rels[s.relID()]; ok && strings.HasSuffix(r.typ, relSlide) {
				out = append(out, r.target)
			}
		}
	}
	return out, nil
}

func parsePPTX(p *parser, src []byte) (*Document, error) {
	return readPPTX(p, bytes.NewReader(src), int64(len(src)), false)
}

// peekPPTX reads the core properties and, when they lack a title or
// summary, the first slide.
func peekPPTX(p *parser, ra io.ReaderAt, size int64) (Meta, error) {
	doc, err := readPPTX(p, ra, size, true)
	if err != nil {
		return Meta{}, err
	}
	return Meta{Title: doc.Title, Summary: doc.Summary}, nil
}

func readPPTX(p *parser, ra io.ReaderAt, size int64, peek bool) (*Document, error) {
	pk, err := openPackage(p, ra, size)
	if err != nil {
		return nil, err
	}
	if !pk.has("ppt/presentation.xml") {
		return nil, errors.New("not a PPTX package: ppt/presentation.xml is missing")
	}
	core := pk.core()
	doc := &Document{Title: core.title, Summary: core.summary(), Keywords: splitKeywords(core.keywords)}
	slides, err := slideParts(pk)
	if err != nil {
		return nil, err
	}
	if peek && doc.Title != "" && doc.Summary != "" {
		return doc, nil
	}
	for i, part := range slides {
		if err := p.cancelled(); err != nil {
			return nil, err
		}
		if len(doc.Pages) >= p.opts.MaxPages {
			doc.Truncated = true
			break
		}
		pg, firstText := readSlide(p, pk, part, i)
		if pk.spent {
			doc.Truncated = true // the package's decompression budget ran out
			break
		}
		if doc.Title == "" && i == 0 && !strings.HasPrefix(pg.Title, "Slide ") {
			doc.Title = pg.Title
		}
		if doc.Summary == "" && firstText != "" {
			doc.Summary = firstSentences(firstText, SummaryChars)
		}
		doc.Pages = append(doc.Pages, pg)
		if peek {
			break
		}
	}
	if doc.Summary == "" && !peek {
		doc.Summary = strconv.Itoa(len(slides)) + " slides"
	}
	return doc, nil
}

// readSlide reads one slide into a page; firstText is its first body text
// (for the document summary).
func readSlide(p *parser, pk *pkg, part string, index int) (Page, string) {
	sr := &slideReader{p: p, pk: pk, pg: Page{Title: "Slide " + strconv.Itoa(index+1)}}
	t, err := pk.tree(part)
	if err != nil {
		sr.pg.Elements = append(sr.pg.Elements, Element{Category: dpe.Text, Content: map[string]any{"text": "(this slide could not be read)"}})
		return sr.pg, ""
	}
	sr.rels = pk.rels(part)
	if tree := t.first("spTree"); tree != nil {
		sr.walk(tree)
	}
	if sr.title != "" {
		sr.pg.Title = sr.title
	}
	sr.notes()
	return sr.pg, sr.firstText
}

// slideReader builds the page of one slide.
type slideReader struct {
	p         *parser
	pk        *pkg
	rels      map[string]rel
	pg        Page
	title     string // the title placeholder's text
	firstText string // the first body text
}

// add adds an element within the page's bounds and the output budget.
func (sr *slideReader) add(e Element) {
	if len(sr.pg.Elements) < sr.p.opts.MaxElements && sr.p.spend(contentBytes(e.Content)) {
		sr.pg.Elements = append(sr.pg.Elements, e)
	}
}

// walk reads the shapes of a shape tree (or group) in order.
func (sr *slideReader) walk(n *xnode) {
	for _, c := range n.children {
		switch c.name {
		case "sp":
			sr.shape(c)
		case "graphicFrame":
			if tbl := c.first("tbl"); tbl != nil {
				sr.table(tbl)
			} else if ch := c.first("chart"); ch != nil {
				sr.chart(ch)
			}
		case "pic":
			alt := ""
			if nv := c.first("cNvPr"); nv != nil {
				alt = nv.attr("descr")
				if alt == "" {
					alt = nv.attr("name")
				}
			}
			sr.add(Element{Category: dpe.Image, Content: map[string]any{"url": "", "alt": clean(alt), "description": clean(alt)}})
		case "grpSp":
			sr.walk(c)
		}
	}
}

// shape reads a shape's text: the slide's title (its title placeholder),
// a text (one paragraph) or a list (several).
func (sr *slideReader) shape(c *xnode) {
	phType := ""
	if ph := c.first("ph"); ph != nil {
		phType = ph.attr("type")
	}
	body := c.child("txBody")
	if body == nil {
		return
	}
	paras := nonBlank(dmlParagraphs(body))
	switch {
	case len(paras) == 0:
	case phType == "title" || phType == "ctrTitle":
		if sr.title == "" {
			sr.title = collapse(strings.Join(paras, " "))
			sr.add(Element{Category: dpe.Heading, Content: map[string]any{"level": 1, "text": sr.title}})
		}
	case len(paras) == 1:
		sr.add(Element{Category: dpe.Text, Content: map[string]any{"text": paras[0]}})
		if sr.firstText == "" {
			sr.firstText = paras[0]
		}
	default:
		sr.add(Element{Category: dpe.List, Content: map[string]any{"ordered": false, "items": paras}})
		if sr.firstText == "" {
			sr.firstText = strings.Join(paras, "; ")
		}
	}
}

// table reads an a:tbl; its first row is the header.
func (sr *slideReader) table(tbl *xnode) {
	opts := sr.p.opts
	var rows [][]string
	for _, tr := range tbl.kids("tr") {
		var cells []string
		for _, tc := range tr.kids("tc") {
			text := ""
			if body := tc.child("txBody"); body != nil {
				text = strings.TrimSpace(strings.Join(dmlParagraphs(body), "\n"))
			}
			if len(cells) < opts.MaxColumns {
				cells = append(cells, truncate(text, opts.MaxCellChars))
			}
		}
		if len(rows) <= opts.MaxRows {
			rows = append(rows, cells)
		}
	}
	if len(rows) > 0 {
		for _, el := range tableElements(rows[0], rows[1:], opts.TableRowsPerPage, 0, 0) {
			sr.add(el)
		}
	}
}

// chart reads the chart a graphic frame refers to.
func (sr *slideReader) chart(ch *xnode) {
	if r, ok := sr.rels[ch.relID()]; ok && strings.HasSuffix(r.typ, relChart) {
		if el, ok := sr.pk.chartInfo(r.target); ok {
			sr.add(el)
		}
	}
}

// notes adds the slide's speaker notes (the body placeholders of its
// notes slide) as an annotation.
func (sr *slideReader) notes() {
	for _, r := range sr.rels {
		if !strings.HasSuffix(r.typ, relNotesSlide) {
			continue
		}
		nt, err := sr.pk.tree(r.target)
		if err != nil {
			return
		}
		var notes []string
		for _, sp := range nt.all("sp") {
			if ph := sp.first("ph"); ph != nil && ph.attr("type") != "body" {
				continue
			}
			if body := sp.child("txBody"); body != nil {
				notes = append(notes, nonBlank(dmlParagraphs(body))...)
			}
		}
		if len(notes) > 0 {
			sr.add(Element{Category: dpe.Annotation, Content: map[string]any{"text": strings.Join(notes, "\n"), "author": ""},
				Metadata: map[string]any{"kind": "speaker notes"}})
		}
		return
	}
}

// nonBlank returns the paragraphs that are not blank, trimmed.
func nonBlank(paras []string) []string {
	var out []string
	for _, s := range paras {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
