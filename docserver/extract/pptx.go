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
	pg := Page{Title: "Slide " + strconv.Itoa(index+1)}
	t, err := pk.tree(part)
	if err != nil {
		pg.Elements = append(pg.Elements, Element{Category: dpe.Text, Content: map[string]any{"text": "(this slide could not be read)"}})
		return pg, ""
	}
	rels := pk.rels(part)
	firstText := ""
	var title string
	add := func(e Element) {
		if len(pg.Elements) < p.opts.MaxElements && p.spend(contentBytes(e.Content)) {
			pg.Elements = append(pg.Elements, e)
		}
	}
	var walk func(n *xnode)
	walk = func(n *xnode) {
		for _, c := range n.children {
			switch c.name {
			case "sp":
				ph := c.first("ph")
				phType := ""
				if ph != nil {
					phType = ph.attr("type")
				}
				body := c.child("txBody")
				if body == nil {
					continue
				}
				var paras []string
				for _, s := range dmlParagraphs(body) {
					if s = strings.TrimSpace(s); s != "" {
						paras = append(paras, s)
					}
				}
				if len(paras) == 0 {
					continue
				}
				switch {
				case phType == "title" || phType == "ctrTitle":
					if title == "" {
						title = collapse(strings.Join(paras, " "))
						add(Element{Category: dpe.Heading, Content: map[string]any{"level": 1, "text": title}})
					}
				case len(paras) == 1:
					add(Element{Category: dpe.Text, Content: map[string]any{"text": paras[0]}})
					if firstText == "" {
						firstText = paras[0]
					}
				default:
					add(Element{Category: dpe.List, Content: map[string]any{"ordered": false, "items": paras}})
					if firstText == "" {
						firstText = strings.Join(paras, "; ")
					}
				}
			case "graphicFrame":
				if tbl := c.first("tbl"); tbl != nil {
					var rows [][]string
					for _, tr := range tbl.kids("tr") {
						var cells []string
						for _, tc := range tr.kids("tc") {
							text := ""
							if body := tc.child("txBody"); body != nil {
								text = strings.TrimSpace(strings.Join(dmlParagraphs(body), "\n"))
							}
							if len(cells) < p.opts.MaxColumns {
								cells = append(cells, truncate(text, p.opts.MaxCellChars))
							}
						}
						if len(rows) <= p.opts.MaxRows {
							rows = append(rows, cells)
						}
					}
					if len(rows) > 0 {
						for _, el := range tableElements(rows[0], rows[1:], p.opts.TableRowsPerPage, 0, 0) {
							add(el)
						}
					}
					continue
				}
				if ch := c.first("chart"); ch != nil {
					if r, ok := rels[ch.relID()]; ok && strings.HasSuffix(r.typ, relChart) {
						if el, ok := pk.chartInfo(r.target); ok {
							add(el)
						}
					}
				}
			case "pic":
				alt := ""
				if nv := c.first("cNvPr"); nv != nil {
					alt = nv.attr("descr")
					if alt == "" {
						alt = nv.attr("name")
					}
				}
				add(Element{Category: dpe.Image, Content: map[string]any{"url": "", "alt": clean(alt), "description": clean(alt)}})
			case "grpSp":
				walk(c)
			}
		}
	}
	if tree := t.first("spTree"); tree != nil {
		walk(tree)
	}
	if title != "" {
		pg.Title = title
	}
	for _, r := range rels {
		if !strings.HasSuffix(r.typ, relNotesSlide) {
			continue
		}
		nt, err := pk.tree(r.target)
		if err != nil {
			break
		}
		var notes []string
		for _, sp := range nt.all("sp") {
			if ph := sp.first("ph"); ph != nil && ph.attr("type") != "body" {
				continue
			}
			if body := sp.child("txBody"); body != nil {
				for _, s := range dmlParagraphs(body) {
					if s = strings.TrimSpace(s); s != "" {
						notes = append(notes, s)
					}
				}
			}
		}
		if len(notes) > 0 {
			add(Element{Category: dpe.Annotation, Content: map[string]any{"text": strings.Join(notes, "\n"), "author": ""},
				Metadata: map[string]any{"kind": "speaker notes"}})
		}
		break
	}
	return pg, firstText
}
