package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// PDF is read with PDFium, the engine of Chrome's viewer, compiled to
// WebAssembly and run by wazero (pure Go, no cgo): see pdfengine.go for
// the process's pool, its bounds and its on-disk compilation cache, and
// pdfium.go for the calls. One page per PDF page.
//
// A PDF is read page by page (OpenPDF): opening it reads its page count,
// outline and information dictionary, and lays out a fixed sample of
// pages to learn the document's typography (its body size, heading sizes
// and line pitch: pdfProfile); each page is then laid out on its own with
// that profile, so page 300 of a manual costs one page, and comes out the
// same whether it is read alone or with all the others (Parse reads every
// page through the same path).
//
// PDFium hands out the page's characters; they are grouped into runs
// (text on one line in one font), runs on one baseline into lines and
// lines into paragraphs (pdflayout.go). A line set in a font clearly
// larger than the body size is a heading.
//
// When the context of a read ends while PDFium runs, wazero interrupts
// the running WebAssembly and the instance is killed, so a hostile file
// cannot keep a core busy.

// maxRunsPerPage bounds the text runs read from one page.
const maxRunsPerPage = 200_000

// profileSamples is the number of pages a PDF's profile is learnt from:
// its first pages and others spread evenly over the document.
const profileSamples = 12

// pageLines are the lines of a page, or the news that PDFium could not
// read it (a page that does not load: it gets no elements and a title
// that says so, rather than words the file does not hold).
type pageLines struct {
	lines      []pdfLine
	links      []pdfLink // in reading order, pieces joined (mergeLinks)
	unreadable bool
}

// PDFInfo is what opening a PDF learns without reading every page.
type PDFInfo struct {
	Title    string
	Summary  string
	Keywords []string
	// Pages is the number of pages served (at most Options.MaxPages);
	// Truncated tells that the file has more.
	Pages     int
	Truncated bool
	// Cut says so in words (Document.Cut).
	Cut string
	// Outline is the document's bookmarks, in order.
	Outline []OutlineEntry
}

// PDF is an open PDF file whose pages are read one at a time. It holds an
// engine instance while attached (from the first read until Detach or
// Close) and re-attaches on the next read. It is not safe for concurrent
// use.
type PDF struct {
	opts  Options
	name  string
	src   []byte
	info  PDFInfo
	prof  pdfProfile
	lines map[int]pageLines // sampled pages not yet laid out
	eng   *pdfEngine
	doc   *pdfDoc
	read  int // pages read from the engine
}

// OpenPDF opens a PDF for reading page by page: its page count, outline,
// metadata and profile. The PDF holds an engine instance until Detach or
// Close.
func (ps *Parser) OpenPDF(ctx context.Context, src Source) (*PDF, error) {
	f := &PDF{opts: ps.opts, name: src.Name, src: src.Data, lines: map[int]pageLines{}}
	if err := f.open(ctx, profileSamples); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Info returns what opening the PDF learnt.
func (f *PDF) Info() PDFInfo { return f.info }

// BookmarksByPage groups the outline's entries by the page they point to,
// in outline order (entries that point nowhere, or past the pages served,
// are left out).
func (in PDFInfo) BookmarksByPage() map[int][]OutlineEntry {
	out := map[int][]OutlineEntry{}
	for _, o := range in.Outline {
		if o.Page >= 0 && o.Page < in.Pages {
			out[o.Page] = append(out[o.Page], o)
		}
	}
	return out
}

// outlineTitle is the title the outline gives page i: the first entry
// that points to it ("" for none).
func (in PDFInfo) outlineTitle(i int) string {
	for _, o := range in.Outline {
		if o.Page == i && o.Title != "" {
			return o.Title
		}
	}
	return ""
}

// UnreadPageTitle is the title of page i as far as it is known without
// reading it: the outline's title for it (the one a read gives it too),
// else "Page N".
func (in PDFInfo) UnreadPageTitle(i int) string {
	if t := in.outlineTitle(i); t != "" {
		return t
	}
	return "Page " + strconv.Itoa(i+1)
}

// SampledPages returns the pages opening the PDF read to learn its
// profile, laid out as Page returns them (no engine call: their lines
// are held), so that they need not be read again.
func (f *PDF) SampledPages(ctx context.Context) (map[int]Page, error) {
	out := make(map[int]Page, len(f.lines))
	for _, i := range slices.Sorted(maps.Keys(f.lines)) {
		pg, err := f.Page(ctx, i)
		if err != nil {
			return nil, err
		}
		out[i] = pg
	}
	return out, nil
}

// PagesRead counts the pages read from the engine so far (the sampled
// ones included).
func (f *PDF) PagesRead() int { return f.read }

// Detach gives the engine instance back; the next read takes one again.
func (f *PDF) Detach() {
	if f.doc != nil {
		f.doc.close(context.Background())
		f.doc = nil
	}
	if f.eng != nil {
		f.eng.release()
		f.eng = nil
	}
}

// Close detaches the PDF and drops what it holds.
func (f *PDF) Close() {
	f.Detach()
	f.lines = nil
}

// settle ends the engine's watch of the context of the work just done
// (the engine outlives it: a PDF read page by page keeps it between
// pages, and the end of that context must not stop the next page). An
// engine that context stopped meanwhile is given back.
func (f *PDF) settle() {
	if f.eng == nil {
		return
	}
	if f.eng.watch(context.Background()); f.eng.broken {
		f.Detach()
	}
}

// attach takes an engine instance and opens the file on it.
func (f *PDF) attach(ctx context.Context) error {
	if f.doc != nil {
		return nil
	}
	e, err := attachEngine(ctx)
	if err != nil {
		return err
	}
	d, err := openDoc(ctx, e, f.src)
	if err != nil {
		e.release()
		return err
	}
	f.eng, f.doc = e, d
	return nil
}

// open reads the document's metadata, page count and outline, and learns
// its profile from up to samples pages.
func (f *PDF) open(ctx context.Context, samples int) error {
	if err := f.attach(ctx); err != nil {
		return err
	}
	defer f.settle()
	d := f.doc
	f.info.Title = clean(collapse(d.meta(ctx, "Title")))
	if s := clean(d.meta(ctx, "Subject")); s != "" {
		f.info.Summary = firstSentences(s, SummaryChars)
	}
	f.info.Keywords = splitKeywords(d.meta(ctx, "Keywords"))
	n, err := d.pageCount(ctx)
	if err != nil {
		return err
	}
	if n > f.opts.MaxPages {
		f.info.Cut = fmt.Sprintf("kept the first %s of %s pages", thousands(f.opts.MaxPages), thousands(n))
		n, f.info.Truncated = f.opts.MaxPages, true
	}
	f.info.Pages = n
	if f.info.Outline, err = d.outline(ctx); err != nil {
		return err
	}
	sample := samplePages(n, samples)
	var lines [][]pdfLine
	for _, i := range sample {
		pl, err := f.readLines(ctx, i)
		if err != nil {
			return err
		}
		f.lines[i] = pl
		lines = append(lines, pl.lines)
	}
	f.prof = newPDFProfile(lines)
	// Title, summary and keywords the metadata lacks come from the
	// sampled pages, in page order.
	var pages []Page
	for _, i := range sample {
		pg := f.layout(i, f.lines[i], nil)
		pages = append(pages, pg)
		for _, e := range pg.Elements {
			switch e.Category {
			case dpe.Heading:
				if f.info.Title == "" && i == 0 {
					f.info.Title = e.Content["text"].(string)
				}
			case dpe.Text:
				if t := e.Content["text"].(string); f.info.Summary == "" && !leaderDots.MatchString(t) {
					f.info.Summary = firstSentences(t, SummaryChars)
				}
			}
		}
	}
	if len(f.info.Keywords) == 0 {
		f.info.Keywords = topTerms(&Document{Pages: pages}, 5)
	}
	// As finish does for a parsed document.
	if f.info.Title == "" {
		f.info.Title = stem(f.name)
	}
	f.info.Title = truncate(f.info.Title, MaxTitleChars)
	f.info.Summary = SearchForm(f.info.Summary)
	f.info.Keywords = searchForms(f.info.Keywords)
	return nil
}

// samplePages are the pages a profile is learnt from: the first three and
// others spread evenly, at most n in all, ascending.
func samplePages(pages, n int) []int {
	if pages <= n {
		out := make([]int, pages)
		for i := range out {
			out[i] = i
		}
		return out
	}
	set := map[int]bool{}
	for i := range min(3, n) {
		set[i] = true
	}
	rest := n - len(set)
	for k := 1; k <= rest; k++ {
		set[k*(pages-1)/rest] = true
	}
	out := make([]int, 0, len(set))
	for i := range set {
		out = append(out, i)
	}
	sort.Ints(out)
	return out
}

// readLines reads the lines of page i (a page PDFium cannot read is
// marked unreadable; the engine, if that broke it, is given back).
func (f *PDF) readLines(ctx context.Context, i int) (pageLines, error) {
	if err := f.attach(ctx); err != nil {
		return pageLines{}, err
	}
	defer f.settle()
	f.read++
	runs, links, err := f.doc.pageRuns(ctx, i)
	if err != nil {
		if ctx.Err() != nil {
			f.Detach()
			return pageLines{}, ctx.Err()
		}
		if f.eng.broken {
			f.Detach()
		}
		return pageLines{unreadable: true}, nil
	}
	lines := pdfPageLines(runs)
	return pageLines{lines: lines, links: labelLinks(lines, mergeLinks(links))}, nil
}

// nextLines returns the lines of page i: the sampled ones, else read.
func (f *PDF) nextLines(ctx context.Context, i int) (pageLines, error) {
	if pl, ok := f.lines[i]; ok {
		delete(f.lines, i)
		return pl, nil
	}
	return f.readLines(ctx, i)
}

// Page reads page i (0-based, below Info().Pages), with its element IDs.
func (f *PDF) Page(ctx context.Context, i int) (Page, error) {
	if i < 0 || i >= f.info.Pages {
		return Page{}, errors.New("page out of range")
	}
	pl, err := f.nextLines(ctx, i)
	if err != nil {
		return Page{}, err
	}
	p := &parser{ctx: ctx, opts: f.opts, out: f.opts.MaxOutputBytes}
	pg := f.layout(i, pl, p)
	finishPage(&pg, i)
	return pg, nil
}

// layout lays out page i's lines as elements within the parser's budget
// (none when p is nil) and titles the page: the first outline entry that
// points to it, else its first heading, else "Page N".
func (f *PDF) layout(i int, pl pageLines, p *parser) Page {
	pg := Page{}
	if pl.unreadable {
		pg.Title = "Page " + strconv.Itoa(i+1) + " (its text could not be read)"
	}
	for _, e := range layoutPDFPage(pl.lines, &f.prof) {
		if p != nil && (len(pg.Elements) >= f.opts.MaxElements || !p.spend(contentBytes(e.Content))) {
			break
		}
		pg.Elements = append(pg.Elements, e)
		if e.Category == dpe.Heading && pg.Title == "" {
			pg.Title = e.Content["text"].(string)
		}
	}
	links := pl.links[:min(len(pl.links), max(f.opts.MaxElements-len(pg.Elements), 0))]
	pg.Elements = placeLinks(pg.Elements, links)
	if t := f.info.outlineTitle(i); t != "" {
		pg.Title = t
	}
	if pg.Title == "" {
		pg.Title = "Page " + strconv.Itoa(i+1)
	}
	return pg
}

// parsePDF reads every page of a PDF.
func parsePDF(p *parser, src []byte) (*Document, error) {
	f := &PDF{opts: p.opts, name: p.name, src: src, lines: map[int]pageLines{}}
	defer f.Close()
	if err := f.open(p.ctx, profileSamples); err != nil {
		return nil, err
	}
	doc := &Document{Title: f.info.Title, Summary: f.info.Summary, Keywords: f.info.Keywords, Truncated: f.info.Truncated, Cut: f.info.Cut}
	for i := range f.info.Pages {
		if err := p.cancelled(); err != nil {
			return nil, err
		}
		pl, err := f.nextLines(p.ctx, i)
		if err != nil {
			return nil, err
		}
		pg := f.layout(i, pl, p)
		doc.Truncated = doc.Truncated || p.overBudget
		doc.Pages = append(doc.Pages, pg)
	}
	return doc, nil
}

// peekPDF reads the information dictionary and lays out the first page
// or so for a title and summary.
func peekPDF(p *parser, ra io.ReaderAt, size int64) (Meta, error) {
	if size > 1<<31 {
		return Meta{}, errors.New("pdf too large")
	}
	buf := make([]byte, size)
	if _, err := ra.ReadAt(buf, 0); err != nil && !errors.Is(err, io.EOF) {
		return Meta{}, err
	}
	f := &PDF{opts: p.opts, name: p.name, src: buf, lines: map[int]pageLines{}}
	defer f.Close()
	if err := f.open(p.ctx, 1); err != nil {
		return Meta{}, err
	}
	return Meta{Title: f.info.Title, Summary: f.info.Summary}, nil
}
