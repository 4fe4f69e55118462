package extract

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ledongthuc/pdf"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// PDF is read with github.com/ledongthuc/pdf (pure Go): one page per PDF
// page. The positioned glyphs of a page are joined into lines (same
// baseline) and lines into paragraphs (same font size, small vertical
// gap). A line set in a font clearly larger than the document's body size
// (the most common glyph size) is a heading; the distinct heading sizes,
// largest first, give levels 1, 2 and 3.

// maxGlyphsPerPage bounds the glyphs read from one page.
const maxGlyphsPerPage = 500_000

// pdfLine is one line of text at one font size.
type pdfLine struct {
	text string
	size float64
	y    float64
}

func parsePDF(p *parser, src []byte) (*Document, error) {
	return readPDF(p, bytes.NewReader(src), int64(len(src)), 0)
}

// peekPDF reads the document information dictionary and the first page.
func peekPDF(p *parser, ra io.ReaderAt, size int64) (Meta, error) {
	doc, err := readPDF(p, ra, size, 1)
	if err != nil {
		return Meta{}, err
	}
	return Meta{Title: doc.Title, Summary: doc.Summary}, nil
}

// readPDF reads at most maxPages pages (0: all within MaxPages).
func readPDF(p *parser, ra io.ReaderAt, size int64, maxPages int) (*Document, error) {
	r, err := pdf.NewReader(ra, size)
	if err != nil {
		return nil, fmt.Errorf("open pdf: %w", err)
	}
	doc := &Document{}
	info := r.Trailer().Key("Info")
	doc.Title = clean(collapse(info.Key("Title").Text()))
	if s := clean(info.Key("Subject").Text()); s != "" {
		doc.Summary = firstSentences(s, SummaryChars)
	}
	doc.Keywords = splitKeywords(info.Key("Keywords").Text())
	n := r.NumPage()
	if n > p.opts.MaxPages {
		n, doc.Truncated = p.opts.MaxPages, true
	}
	if maxPages > 0 {
		n = min(n, maxPages)
	}
	lines := make([][]pdfLine, n)
	sizes := map[float64]int{}
	for i := 0; i < n; i++ {
		if err := p.cancelled(); err != nil {
			return nil, err
		}
		ls, err := pdfPageLines(r.Page(i + 1))
		if err != nil {
			ls = []pdfLine{{text: "(the text of this page could not be extracted)", size: 0}}
		}
		lines[i] = ls
		for _, l := range ls {
			sizes[l.size] += len(l.text)
		}
	}
	body := modeSize(sizes)
	levels := headingLevels(sizes, body)
	for i, ls := range lines {
		pg := Page{}
		for _, par := range pdfParagraphs(ls) {
			if lvl, ok := levels[par.size]; ok && len(par.text) <= 200 {
				t := collapse(par.text)
				pg.Elements = append(pg.Elements, Element{Category: dpe.Heading, Content: map[string]any{"level": lvl, "text": t}})
				if pg.Title == "" {
					pg.Title = t
				}
				if doc.Title == "" && i == 0 {
					doc.Title = t
				}
				continue
			}
			pg.Elements = append(pg.Elements, Element{Category: dpe.Text, Content: map[string]any{"text": par.text}})
			if doc.Summary == "" {
				doc.Summary = firstSentences(par.text, SummaryChars)
			}
			if len(pg.Elements) >= p.opts.MaxElements {
				doc.Truncated = true
				break
			}
		}
		if pg.Title == "" {
			pg.Title = "Page " + strconv.Itoa(i+1)
		}
		doc.Pages = append(doc.Pages, pg)
	}
	return doc, nil
}

// pdfPageLines extracts the lines of one page; a page the reader chokes on
// is an error, not a crash.
func pdfPageLines(pg pdf.Page) (lines []pdfLine, err error) {
	defer func() {
		if r := recover(); r != nil {
			lines, err = nil, fmt.Errorf("page content: %v", r)
		}
	}()
	if pg.V.IsNull() {
		return nil, nil
	}
	glyphs := pg.Content().Text
	if len(glyphs) > maxGlyphsPerPage {
		glyphs = glyphs[:maxGlyphsPerPage]
	}
	var b strings.Builder
	var cur pdfLine
	var lastX, lastEnd float64
	started := false
	flush := func() {
		if t := strings.TrimSpace(b.String()); t != "" {
			cur.text = clean(t)
			lines = append(lines, cur)
		}
		b.Reset()
	}
	for _, g := range glyphs {
		sz := math.Round(g.FontSize*2) / 2
		tol := math.Max(sz, 1) * 0.4
		if !started || math.Abs(g.Y-cur.y) > tol || g.X < lastX-tol*4 {
			if started {
				flush()
			}
			cur = pdfLine{size: sz, y: g.Y}
			started = true
		} else if g.X-lastEnd > math.Max(sz, 1)*0.2 && !strings.HasSuffix(b.String(), " ") && g.S != " " {
			b.WriteByte(' ')
		}
		if sz > cur.size {
			cur.size = sz
		}
		b.WriteString(g.S)
		lastX, lastEnd = g.X, g.X+g.W
	}
	if started {
		flush()
	}
	return lines, nil
}

// pdfParagraphs joins consecutive lines of one size whose vertical gap is
// at most 1.8 times that size.
func pdfParagraphs(lines []pdfLine) []pdfLine {
	var out []pdfLine
	for _, l := range lines {
		if n := len(out); n > 0 {
			last := &out[n-1]
			gap := last.y - l.y
			if l.size == last.size && gap > 0 && gap <= 1.8*math.Max(l.size, 1) {
				last.text += " " + l.text
				last.y = l.y
				continue
			}
		}
		out = append(out, l)
	}
	return out
}

// modeSize is the font size with the most text.
func modeSize(sizes map[float64]int) float64 {
	best, n := 0.0, -1
	for s, c := range sizes {
		if c > n || (c == n && s < best) {
			best, n = s, c
		}
	}
	return best
}

// headingLevels gives the sizes at least 1.2 times the body size heading
// levels 1-3, largest first.
func headingLevels(sizes map[float64]int, body float64) map[float64]int {
	var hs []float64
	for s := range sizes {
		if body > 0 && s >= body*1.2 {
			hs = append(hs, s)
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(hs)))
	out := map[float64]int{}
	for i, s := range hs {
		out[s] = min(i+1, 3)
	}
	return out
}
