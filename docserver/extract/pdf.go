package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/klippa-app/go-pdfium"
	pdferrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/responses"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// PDF is read with PDFium, the engine of Chrome's viewer, compiled to
// WebAssembly and run by wazero (pure Go, no cgo): see pdfengine.go for
// the process's pool, its bounds and its on-disk compilation cache. One
// page per PDF page. PDFium hands out the page's text as runs ("rects":
// text on one line in one font) with their position and font size; runs
// on one baseline are joined into lines and lines into paragraphs (same
// font size, small vertical gap). A line set in a font clearly larger than
// the document's body size (the most common size) is a heading; the
// distinct heading sizes, largest first, give levels 1, 2 and 3.
//
// Every document is read on its own, fresh PDFium instance; when the
// context ends first, the instance is killed (wazero interrupts the
// running WebAssembly), so a hostile file cannot keep a core busy.

// maxRunsPerPage bounds the text runs read from one page.
const maxRunsPerPage = 200_000

// pdfLine is one line of text at one font size.
type pdfLine struct {
	text string
	size float64
	y    float64
}

func parsePDF(p *parser, src []byte) (*Document, error) {
	return readPDF(p, src, 0)
}

// peekPDF reads the document information dictionary and the first page.
func peekPDF(p *parser, ra io.ReaderAt, size int64) (Meta, error) {
	if size > 1<<31 {
		return Meta{}, errors.New("pdf too large")
	}
	buf := make([]byte, size)
	if _, err := ra.ReadAt(buf, 0); err != nil && !errors.Is(err, io.EOF) {
		return Meta{}, err
	}
	doc, err := readPDF(p, buf, 1)
	if err != nil {
		return Meta{}, err
	}
	return Meta{Title: doc.Title, Summary: doc.Summary}, nil
}

// readPDF reads at most maxPages pages (0: all within MaxPages).
func readPDF(p *parser, src []byte, maxPages int) (*Document, error) {
	doc := &Document{}
	var lines [][]pdfLine
	err := withPDF(p.ctx, src, func(inst pdfium.Pdfium, d references.FPDF_DOCUMENT) error {
		meta := func(tag string) string {
			r, err := inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: d, Tag: tag})
			if err != nil {
				return ""
			}
			return r.Value
		}
		doc.Title = clean(collapse(meta("Title")))
		if s := clean(meta("Subject")); s != "" {
			doc.Summary = firstSentences(s, SummaryChars)
		}
		doc.Keywords = splitKeywords(meta("Keywords"))
		pc, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: d})
		if err != nil {
			return fmt.Errorf("page count: %w", err)
		}
		n := pc.PageCount
		if n > p.opts.MaxPages {
			n, doc.Truncated = p.opts.MaxPages, true
		}
		if maxPages > 0 {
			n = min(n, maxPages)
		}
		lines = make([][]pdfLine, 0, n)
		for i := range n {
			if err := p.cancelled(); err != nil {
				return err
			}
			r, err := inst.GetPageTextStructured(&requests.GetPageTextStructured{
				Page:                   requests.Page{ByIndex: &requests.PageByIndex{Document: d, Index: i}},
				Mode:                   requests.GetPageTextStructuredModeRects,
				CollectFontInformation: true,
			})
			if err != nil {
				if p.cancelled() != nil {
					return p.cancelled()
				}
				lines = append(lines, []pdfLine{{text: "(the text of this page could not be extracted)"}})
				continue
			}
			lines = append(lines, pdfPageLines(r.Rects))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sizes := map[float64]int{}
	for _, ls := range lines {
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
			if len(pg.Elements) >= p.opts.MaxElements || !p.spend(len(par.text)) {
				doc.Truncated = true
				break
			}
			pg.Elements = append(pg.Elements, Element{Category: dpe.Text, Content: map[string]any{"text": par.text}})
			if doc.Summary == "" {
				doc.Summary = firstSentences(par.text, SummaryChars)
			}
		}
		if pg.Title == "" {
			pg.Title = "Page " + strconv.Itoa(i+1)
		}
		doc.Pages = append(doc.Pages, pg)
	}
	return doc, nil
}

// withPDF opens src on a fresh PDFium instance of the process's pool and
// calls fn with the document. When ctx ends before fn returns, the
// instance is killed: the WebAssembly it runs is interrupted and fn's
// PDFium call fails; withPDF then returns ctx's error.
func withPDF(ctx context.Context, src []byte, fn func(pdfium.Pdfium, references.FPDF_DOCUMENT) error) error {
	pool, err := pdfPool()
	if err != nil {
		return err
	}
	inst, err := pool.GetInstanceWithContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("pdf engine: %w", err)
	}
	calls := directCalls(inst) // see engineCalls: inst is only killed or closed
	var killed atomic.Bool
	stop, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-ctx.Done():
			killed.Store(true)
			inst.Kill()
		case <-stop:
		}
	}()
	err = func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("pdf engine: %v", r)
			}
		}()
		opened, err := calls.OpenDocument(&requests.OpenDocument{File: &src})
		if err != nil {
			return openError(err)
		}
		defer calls.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: opened.Document})
		return fn(calls, opened.Document)
	}()
	close(stop)
	<-watched
	if killed.Load() {
		return ctx.Err()
	}
	inst.Close()
	return err
}

// openError says why PDFium could not open a file, in words a reader of
// the catalog understands.
func openError(err error) error {
	switch {
	case errors.Is(err, pdferrors.ErrPassword):
		return errors.New("the PDF is encrypted (a password is required)")
	case errors.Is(err, pdferrors.ErrSecurity):
		return errors.New("the PDF uses an unsupported encryption")
	case errors.Is(err, pdferrors.ErrFormat), errors.Is(err, pdferrors.ErrFile):
		return errors.New("not a valid PDF file")
	}
	return fmt.Errorf("open pdf: %w", err)
}

// pdfRun is one run of text PDFium found on a page.
type pdfRun = responses.GetPageTextStructuredRect

// softHyphen is what PDFium puts where a word was hyphenated at the end
// of a line.
const softHyphen = "\x02"

// pdfPageLines joins a page's text runs into lines: a run that starts on
// a new baseline, or to the left of the previous one, begins a line.
func pdfPageLines(runs []*pdfRun) []pdfLine {
	if len(runs) > maxRunsPerPage {
		runs = runs[:maxRunsPerPage]
	}
	var lines []pdfLine
	var b strings.Builder
	var cur pdfLine
	var lastLeft, lastRight float64
	started := false
	flush := func() {
		if t := strings.TrimSpace(b.String()); t != "" {
			cur.text = t
			lines = append(lines, cur)
		}
		b.Reset()
	}
	for _, r := range runs {
		if r == nil {
			continue
		}
		text := strings.NewReplacer("\r", "", "\n", " ").Replace(r.Text)
		if strings.TrimSpace(text) == "" {
			continue
		}
		pos := r.PointPosition
		sz := 0.0
		if fi := r.FontInformation; fi != nil {
			sz = fi.RenderedSize
			if sz <= 0 {
				sz = fi.Size
			}
		}
		sz = math.Round(sz*2) / 2
		h := math.Max(pos.Top-pos.Bottom, 1)
		tol := math.Max(math.Max(sz, h), 1) * 0.4
		if !started || math.Abs(pos.Bottom-cur.y) > tol || pos.Left < lastLeft-tol*4 {
			if started {
				flush()
			}
			cur = pdfLine{size: sz, y: pos.Bottom}
			started = true
		} else if pos.Left-lastRight > math.Max(sz, 1)*0.2 && !strings.HasSuffix(b.String(), " ") && !strings.HasPrefix(text, " ") {
			b.WriteByte(' ')
		}
		if sz > cur.size {
			cur.size = sz
		}
		b.WriteString(text)
		lastLeft, lastRight = pos.Left, pos.Right
	}
	if started {
		flush()
	}
	return lines
}

// pdfParagraphs joins consecutive lines of one size whose vertical gap is
// at most 1.8 times that size. A line ending in a soft hyphen is joined to
// the next without a space.
func pdfParagraphs(lines []pdfLine) []pdfLine {
	var out []pdfLine
	for _, l := range lines {
		if n := len(out); n > 0 {
			last := &out[n-1]
			gap := last.y - l.y
			if l.size == last.size && gap > 0 && gap <= 1.8*math.Max(l.size, 1) {
				if strings.HasSuffix(last.text, softHyphen) {
					last.text = strings.TrimSuffix(last.text, softHyphen) + l.text
				} else {
					last.text += " " + l.text
				}
				last.y = l.y
				continue
			}
		}
		out = append(out, l)
	}
	for i := range out {
		out[i].text = clean(strings.ReplaceAll(out[i].text, softHyphen, ""))
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
