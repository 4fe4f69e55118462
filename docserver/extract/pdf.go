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
	"unicode/utf8"

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
	err := withPDF(p.ctx, src, func(inst pdfCalls, d references.FPDF_DOCUMENT) error {
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
				Page: requests.Page{ByIndex: &requests.PageByIndex{Document: d, Index: i}},
				Mode: requests.GetPageTextStructuredModeRects,
			})
			if err != nil {
				if p.cancelled() != nil {
					return p.cancelled()
				}
				lines = append(lines, []pdfLine{{text: "(the text of this page could not be extracted)"}})
				continue
			}
			lines = append(lines, pdfPageLines(pageRuns(inst, d, i, r.Rects)))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sizes := map[float64]int{}
	for _, ls := range lines {
		for _, l := range ls {
			if l.size > 0 && !l.mono {
				sizes[l.size] += len(l.text)
			}
		}
	}
	body := modeSize(sizes)
	levels := headingLevels(sizes, body)
	pitches := linePitches(lines)
	for i, ls := range lines {
		pg := Page{}
		for _, e := range layoutPDFPage(ls, levels, pitches) {
			if len(pg.Elements) >= p.opts.MaxElements || !p.spend(contentBytes(e.Content)) {
				doc.Truncated = true
				break
			}
			pg.Elements = append(pg.Elements, e)
			switch e.Category {
			case dpe.Heading:
				t := e.Content["text"].(string)
				if pg.Title == "" {
					pg.Title = t
				}
				if doc.Title == "" && i == 0 {
					doc.Title = t
				}
			case dpe.Text:
				if t := e.Content["text"].(string); doc.Summary == "" && !leaderDots.MatchString(t) {
					doc.Summary = firstSentences(t, SummaryChars)
				}
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
func withPDF(ctx context.Context, src []byte, fn func(pdfCalls, references.FPDF_DOCUMENT) error) error {
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
	calls := directCalls(inst) // see pdfCalls: inst is only killed or closed
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

// softHyphen is what PDFium puts where a word was hyphenated at the end
// of a line.
const softHyphen = "\x02"

// pageRuns converts PDFium's text rects of a page into runs, with the
// font of each.
func pageRuns(inst pdfCalls, d references.FPDF_DOCUMENT, index int, rects []*responses.GetPageTextStructuredRect) []pdfRun {
	if len(rects) > maxRunsPerPage {
		rects = rects[:maxRunsPerPage]
	}
	runs := make([]pdfRun, 0, len(rects))
	for _, r := range rects {
		if r == nil || strings.TrimSpace(r.Text) == "" {
			continue
		}
		pos := r.PointPosition
		runs = append(runs, pdfRun{text: r.Text, left: pos.Left, right: pos.Right, top: pos.Top, bottom: pos.Bottom})
	}
	if len(runs) == 0 {
		return runs
	}
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: requests.Page{ByIndex: &requests.PageByIndex{Document: d, Index: index}}})
	if err != nil {
		return runs
	}
	defer inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	// font takes the font and baseline of character idx for the run's,
	// when the character's origin lies in the run.
	font := func(r *pdfRun, idx int) bool {
		o, err := inst.FPDFText_GetCharOrigin(&requests.FPDFText_GetCharOrigin{TextPage: tp.TextPage, Index: idx})
		if err != nil || o.X < r.left-0.5 || o.X > r.right+0.5 || o.Y < r.bottom-0.5 || o.Y > r.top+0.5 {
			return false
		}
		sz, err := inst.FPDFText_GetFontSize(&requests.FPDFText_GetFontSize{TextPage: tp.TextPage, Index: idx})
		if err != nil || sz.FontSize <= 0 {
			return false
		}
		rendered := sz.FontSize
		if m, err := inst.FPDFText_GetMatrix(&requests.FPDFText_GetMatrix{TextPage: tp.TextPage, Index: idx}); err == nil {
			if scale := math.Hypot(float64(m.Matrix.C), float64(m.Matrix.D)); scale > 0 {
				rendered *= scale
			}
		}
		fi, err := inst.FPDFText_GetFontInfo(&requests.FPDFText_GetFontInfo{TextPage: tp.TextPage, Index: idx})
		if err != nil {
			return false
		}
		r.size, r.mono, r.known, r.baseline = math.Round(rendered*2)/2, isMonoFont(fi.FontName, fi.Flags), true, o.Y
		return true
	}
	// probe finds the character at (x, y) by a hit test (which scans the
	// page's characters) and takes its font.
	probe := func(r *pdfRun, x, y float64) (int, bool) {
		at, err := inst.FPDFText_GetCharIndexAtPos(&requests.FPDFText_GetCharIndexAtPos{
			TextPage: tp.TextPage, X: x, Y: y, XTolerance: 2, YTolerance: 2,
		})
		if err != nil || at.CharIndex < 0 {
			return 0, false
		}
		return at.CharIndex, font(r, at.CharIndex)
	}
	// PDFium builds its rects from the page's characters in order, so a
	// run's first character is usually a few characters after the end of
	// the run before it: looked for there first (by its code point and
	// position), the hit test is the fallback. PDFium's own font lookup
	// probes a rect's top left corner, which misses some rects and lands
	// on the previous run for others (", and so on." after a monospaced
	// "?2" came out monospaced): the hit test probes the centre, then
	// near the edges.
	next := 0
	for i := range runs {
		r := &runs[i]
		r.baseline = r.bottom
		text := strings.TrimSpace(r.text)
		first, _ := utf8.DecodeRuneInString(text)
		found := false
		for idx := max(next-2, 0); idx < next+8 && !found; idx++ {
			u, err := inst.FPDFText_GetUnicode(&requests.FPDFText_GetUnicode{TextPage: tp.TextPage, Index: idx})
			if err != nil {
				break
			}
			if rune(u.Unicode) == first && font(r, idx) {
				found, next = true, idx+utf8.RuneCountInString(text)
			}
		}
		if found {
			continue
		}
		y := (r.top + r.bottom) / 2
		inset := math.Min(2, (r.right-r.left)/2)
		for _, x := range []float64{(r.left + r.right) / 2, r.left + inset, r.right - inset} {
			if idx, ok := probe(r, x, y); ok {
				next = idx + 1
				break
			}
		}
	}
	return runs
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
