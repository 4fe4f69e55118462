package extract

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Reading one page's text from PDFium, in few calls:
//
//   - the page's characters in one FPDFText_GetText. Its UTF-16 units are
//     PDFium's characters one for one (spaces and line breaks PDFium
//     generated included) whenever it returns as many units as the page
//     has characters; otherwise (a character outside the BMP, one PDFium
//     leaves out of its text) each character is asked for on its own;
//   - the text split into words at spaces and line breaks, and one box
//     (FPDFText_GetLooseCharBox: the glyph's advance by the font's ascent
//     and descent) for the first and the last character of each word; a
//     word whose two ends do not lie left to right on one line has every
//     character's box read and is split where the text jumps;
//   - the font of each word's first character (size, matrix, name and
//     flags, baseline) asked for once per distinct loose-box height on the
//     page: PDFium makes that height from the font's ascent and descent
//     times its size, so a height seen before is a font seen before.
//
// Words in one font that follow each other on a line, one space apart,
// form a run; a run carries whether the text had a space after it,
// so that lines are joined with PDFium's own spacing (no "- >" where the
// PDF shows "->", no doubled characters where two runs overlap).

// Bounds of a page read.
const (
	// maxCharsPerPage bounds the characters read from one page.
	maxCharsPerPage = 400_000
	// maxObjectFontName bounds a font name read (bytes).
	maxObjectFontName = 256
)

// Scratch offsets of the out-parameters of the per-character calls.
const (
	offRect   = 0  // FS_RECTF: left, top, right, bottom (float)
	offMatrix = 16 // FS_MATRIX: a, b, c, d, e, f (float)
	offOrigin = 40 // two doubles
	offFlags  = 56 // int
	offName   = 64 // font name, maxObjectFontName bytes
	offText   = offName + maxObjectFontName
)

// pdfChar is one character of a page's text.
type pdfChar struct {
	r    rune
	kind byte // charWord, charSpace, charBreak
}

// Character kinds.
const (
	charWord = iota
	charSpace
	charBreak
	charSkip
)

// charKind classifies a character of PDFium's text.
func charKind(r rune) byte {
	switch {
	case r == ' ' || r == '\u00a0' || r == '\t' || r == '\u3000':
		return charSpace
	case r == '\r' || r == '\n':
		return charBreak
	case r == '\x02':
		return charWord // a soft hyphen at a line's end
	case r < ' ' || r == 0xfffe || r == 0xffff || r == 0x7f:
		return charSkip
	}
	return charWord
}

// pageReader reads one page.
type pageReader struct {
	d      *pdfDoc
	e      *pdfEngine
	tp     uint64
	chars  []pdfChar
	fonts  map[int64]pdfObject // by loose-box height (see object)
	bounds box                 // the page's visible area
}

// pdfObject is what a run takes from the font of its first character.
type pdfObject struct {
	font          pdfFont
	known         bool
	baselineShift float64 // baseline minus the loose box's bottom
	haveShift     bool
}

// pageRuns reads page i as runs of text, and its links (read before
// the annotations are flattened, with the text under each).
func (d *pdfDoc) pageRuns(ctx context.Context, i int) ([]pdfRun, []pdfLink, error) {
	e := d.e
	page, err := e.call(ctx, "FPDF_LoadPage", d.doc, uint64(i))
	if err != nil {
		return nil, nil, err
	}
	if page == 0 {
		return nil, nil, fmt.Errorf("page %d cannot be loaded", i+1)
	}
	links, err := d.pageLinks(ctx, page)
	if err != nil && (e.broken || ctx.Err() != nil) {
		return nil, nil, err
	}
	if page, err = d.flattenAnnotations(ctx, i, page); err != nil {
		return nil, nil, err
	}
	defer e.call(ctx, "FPDF_ClosePage", page)
	bounds, err := d.pageBounds(ctx, page)
	if err != nil {
		return nil, nil, err
	}
	tp, err := e.call(ctx, "FPDFText_LoadPage", page)
	if err != nil {
		return nil, nil, err
	}
	if tp == 0 {
		return nil, nil, fmt.Errorf("the text of page %d cannot be read", i+1)
	}
	defer e.call(ctx, "FPDFText_ClosePage", tp)
	if err := d.linkTexts(ctx, tp, links); err != nil {
		if e.broken || ctx.Err() != nil {
			return nil, nil, err
		}
		links = nil // the text stays readable without its links
	}
	pr := &pageReader{d: d, e: e, tp: tp, fonts: map[int64]pdfObject{}, bounds: bounds}
	if err := pr.readText(ctx); err != nil {
		return nil, nil, err
	}
	runs, err := pr.runs(ctx)
	return runs, links, err
}

// PDF annotation subtypes (FPDFAnnot_GetSubtype) whose appearance is not
// text on the page.
const (
	annotLink  = 2
	annotPopup = 16
)

// flattenAnnotations draws the appearance of the page's annotations (form
// fields' values, free text, stamps) into its content, as a viewer and
// pdftotext show them, and returns the page reloaded; pages with only
// links are left alone (flattening costs a content rewrite).
func (d *pdfDoc) flattenAnnotations(ctx context.Context, i int, page uint64) (uint64, error) {
	e := d.e
	n, err := e.callInt(ctx, "FPDFPage_GetAnnotCount", page)
	if err != nil || n <= 0 {
		return page, err
	}
	shown := false
	for k := 0; k < min(n, 10_000) && !shown; k++ {
		a, err := e.call(ctx, "FPDFPage_GetAnnot", page, uint64(k))
		if err != nil {
			return page, err
		}
		if a == 0 {
			continue
		}
		sub, err := e.callInt(ctx, "FPDFAnnot_GetSubtype", a)
		e.call(ctx, "FPDFPage_CloseAnnot", a)
		if err != nil {
			return page, err
		}
		shown = sub != annotLink && sub != annotPopup
	}
	if !shown {
		return page, nil
	}
	if r, err := e.callInt(ctx, "FPDFPage_Flatten", page, 0); err != nil || r != 1 {
		return page, err // nothing flattened: the page stays as it is
	}
	e.call(ctx, "FPDF_ClosePage", page)
	p, err := e.call(ctx, "FPDF_LoadPage", d.doc, uint64(i))
	if err == nil && p == 0 {
		err = fmt.Errorf("page %d cannot be loaded", i+1)
	}
	return p, err
}

// pageBounds is the page's media box (as pdftotext, which keeps text
// outside the crop box but on the page), else its visible area, in the
// coordinates of its characters' boxes.
func (d *pdfDoc) pageBounds(ctx context.Context, page uint64) (box, error) {
	e := d.e
	ok, err := e.call(ctx, "FPDFPage_GetMediaBox", page, uint64(e.scratch+offRect), uint64(e.scratch+offRect+4), uint64(e.scratch+offRect+8), uint64(e.scratch+offRect+12))
	if err != nil {
		return box{}, err
	}
	if ok == 0 {
		if ok, err = e.call(ctx, "FPDF_GetPageBoundingBox", page, uint64(e.scratch+offRect)); err != nil {
			return box{}, err
		}
		if ok == 0 {
			return box{left: math.Inf(-1), bottom: math.Inf(-1), right: math.Inf(1), top: math.Inf(1)}, nil
		}
		// FS_RECTF: left, top, right, bottom
		return normBox(e.f32(offRect), e.f32(offRect+12), e.f32(offRect+8), e.f32(offRect+4)), nil
	}
	// left, bottom, right, top
	return normBox(e.f32(offRect), e.f32(offRect+4), e.f32(offRect+8), e.f32(offRect+12)), nil
}

// normBox is the box with corners (x0, y0) and (x1, y1).
func normBox(x0, y0, x1, y1 float64) box {
	return box{left: math.Min(x0, x1), right: math.Max(x0, x1), bottom: math.Min(y0, y1), top: math.Max(y0, y1)}
}

// visible reports whether a box lies at least partly on the page.
func (pr *pageReader) visible(b box) bool {
	const slack = 1
	return b.right > pr.bounds.left-slack && b.left < pr.bounds.right+slack &&
		b.top > pr.bounds.bottom-slack && b.bottom < pr.bounds.top+slack
}

// readText reads the page's characters.
func (pr *pageReader) readText(ctx context.Context) error {
	e := pr.e
	n, err := e.callInt(ctx, "FPDFText_CountChars", pr.tp)
	if err != nil || n <= 0 {
		return err
	}
	n = min(n, maxCharsPerPage)
	if err := e.grow(ctx, offText+uint32(2*(n+1))); err != nil {
		return err
	}
	got, err := e.callInt(ctx, "FPDFText_GetText", pr.tp, 0, uint64(n), uint64(e.scratch+offText))
	if err != nil {
		return err
	}
	pr.chars = make([]pdfChar, n)
	if got == n+1 {
		b, err := e.read(e.scratch+offText, uint32(2*n))
		if err != nil {
			return err
		}
		aligned := true
		for i := range pr.chars {
			u := rune(binary.LittleEndian.Uint16(b[2*i:]))
			if utf16.IsSurrogate(u) {
				aligned = false
				break
			}
			if u == 0xfffe {
				u = '\x02' // PDFium's text marks a soft hyphen so
			}
			pr.chars[i] = pdfChar{r: u, kind: charKind(u)}
		}
		if aligned {
			return nil
		}
	}
	for i := range pr.chars {
		u, err := e.call(ctx, "FPDFText_GetUnicode", pr.tp, uint64(i))
		if err != nil {
			return err
		}
		r := rune(uint32(u))
		if !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		pr.chars[i] = pdfChar{r: r, kind: charKind(r)}
	}
	return nil
}

// box is a character's loose box.
type box struct{ left, top, right, bottom float64 }

func (b box) height() float64 { return b.top - b.bottom }
func (b box) midY() float64   { return (b.top + b.bottom) / 2 }

// charBox reads the loose box of character i.
func (pr *pageReader) charBox(ctx context.Context, i int) (box, error) {
	ok, err := pr.e.call(ctx, "FPDFText_GetLooseCharBox", pr.tp, uint64(i), uint64(pr.e.scratch+offRect))
	if err != nil || ok == 0 {
		return box{}, err
	}
	e := pr.e
	return box{left: e.f32(offRect), top: e.f32(offRect + 4), right: e.f32(offRect + 8), bottom: e.f32(offRect + 12)}, nil
}

// continues reports whether box b comes right after box a on one line,
// left to right (overlapping a little, as kerned glyphs do).
func continues(a, b box) bool {
	h := math.Max(math.Max(a.height(), b.height()), 1)
	return b.left >= a.left-0.25*h && math.Abs(a.midY()-b.midY()) <= 0.35*h
}

// below reports whether box b comes right below box a in a column (a
// glyph of vertical text after the one before).
func below(a, b box) bool {
	h := math.Max(math.Max(a.height(), b.height()), 1)
	overlap := math.Min(a.right, b.right) - math.Max(a.left, b.left)
	return overlap > 0.5*math.Min(a.right-a.left, b.right-b.left) && math.Abs(b.top-a.bottom) <= 0.35*h
}

// word is a word of the page's text: characters [from, to] with the box
// of their union and the box of the first.
type word struct {
	from, to int
	box      box
	first    box
	ok       bool // the box is known
}

// words splits the page's text into words with their boxes.
func (pr *pageReader) words(ctx context.Context) ([]word, error) {
	var out []word
	for i := 0; i < len(pr.chars); {
		if pr.chars[i].kind != charWord {
			i++
			continue
		}
		j := i
		for j+1 < len(pr.chars) && pr.chars[j+1].kind == charWord {
			j++
		}
		first, err := pr.charBox(ctx, i)
		if err != nil {
			return nil, err
		}
		last := first
		if j > i {
			if last, err = pr.charBox(ctx, j); err != nil {
				return nil, err
			}
		}
		switch b := union(first, last); {
		case pr.visible(b) && !pr.inside(b):
			// Running off the page: the characters on it, as a viewer
			// (and pdftotext) shows them.
			cut, err := pr.visiblePart(ctx, i, j)
			if err != nil {
				return nil, err
			}
			out = append(out, cut...)
		case j == i || continues(first, last) && last.right >= first.right-0.5:
			out = append(out, word{from: i, to: j, box: b, first: first, ok: first.height() > 0})
		default:
			// The ends do not lie on one line left to right: read every
			// box and split where the text jumps.
			split, err := pr.splitWord(ctx, i, j)
			if err != nil {
				return nil, err
			}
			out = append(out, split...)
		}
		i = j + 1
	}
	return out, nil
}

// inside reports whether a box lies wholly on the page.
func (pr *pageReader) inside(b box) bool {
	const slack = 1
	return b.left >= pr.bounds.left-slack && b.right <= pr.bounds.right+slack &&
		b.bottom >= pr.bounds.bottom-slack && b.top <= pr.bounds.top+slack
}

// visiblePart reads the boxes of characters [i, j] and returns the runs
// of them whose centre lies on the page, as words.
func (pr *pageReader) visiblePart(ctx context.Context, i, j int) ([]word, error) {
	var out []word
	var cur *word
	for k := i; k <= j; k++ {
		b, err := pr.charBox(ctx, k)
		if err != nil {
			return nil, err
		}
		c := box{left: (b.left + b.right) / 2, right: (b.left + b.right) / 2, top: b.midY(), bottom: b.midY()}
		if b.height() <= 0 || !pr.inside(c) {
			cur = nil
			continue
		}
		if cur == nil {
			out = append(out, word{from: k, to: k, box: b, first: b, ok: true})
			cur = &out[len(out)-1]
			continue
		}
		cur.to, cur.box = k, union(cur.box, b)
	}
	return out, nil
}

// splitWord reads the boxes of characters [i, j] and splits them where
// one does not follow the one before, left to right on a line or down a
// column (vertical text stays one word).
func (pr *pageReader) splitWord(ctx context.Context, i, j int) ([]word, error) {
	var out []word
	var cur word
	var last box
	for k := i; k <= j; k++ {
		b, err := pr.charBox(ctx, k)
		if err != nil {
			return nil, err
		}
		switch {
		case k == i:
			cur = word{from: k, to: k, box: b, first: b, ok: b.height() > 0}
		case b.height() <= 0:
			cur.to = k
			continue
		case continues(last, b) || below(last, b):
			cur.to, cur.box = k, union(cur.box, b)
		default:
			out = append(out, cur)
			cur = word{from: k, to: k, box: b, first: b, ok: true}
		}
		last = b
	}
	return append(out, cur), nil
}

func union(a, b box) box {
	return box{left: math.Min(a.left, b.left), top: math.Max(a.top, b.top), right: math.Max(a.right, b.right), bottom: math.Min(a.bottom, b.bottom)}
}

// object returns the font of character i, whose loose box is b, and the
// key it is known by on the page (its box's height).
func (pr *pageReader) object(ctx context.Context, i int, b box) (int64, pdfObject, error) {
	e := pr.e
	h := int64(math.Round(b.height() * 256))
	if o, ok := pr.fonts[h]; ok {
		return h, o, nil
	}
	var o pdfObject
	size, err := e.callF64(ctx, "FPDFText_GetFontSize", pr.tp, uint64(i))
	if err != nil {
		return 0, o, err
	}
	if size > 0 && !math.IsInf(size, 0) && !math.IsNaN(size) {
		rendered := size
		if ok, err := e.call(ctx, "FPDFText_GetMatrix", pr.tp, uint64(i), uint64(e.scratch+offMatrix)); err != nil {
			return 0, o, err
		} else if ok != 0 {
			if scale := math.Hypot(e.f32(offMatrix+8), e.f32(offMatrix+12)); scale > 0 && !math.IsInf(scale, 0) {
				rendered *= scale
			}
		}
		n, err := e.call(ctx, "FPDFText_GetFontInfo", pr.tp, uint64(i), uint64(e.scratch+offName), maxObjectFontName, uint64(e.scratch+offFlags))
		if err != nil {
			return 0, o, err
		}
		name := ""
		if n > 1 && n <= maxObjectFontName {
			if b, err := e.read(e.scratch+offName, uint32(n)-1); err == nil {
				name = string(b)
			}
		}
		flags, _ := e.mod.Memory().ReadUint32Le(e.scratch + offFlags)
		o.font = pdfFont{size: math.Round(rendered*2) / 2, mono: isMonoFont(name, int(int32(flags)))}
		o.known = n > 0
	}
	if ok, err := e.call(ctx, "FPDFText_GetCharOrigin", pr.tp, uint64(i), uint64(e.scratch+offOrigin), uint64(e.scratch+offOrigin+8)); err != nil {
		return 0, o, err
	} else if ok != 0 && b.height() > 0 {
		if y := e.f64(offOrigin + 8); y >= b.bottom-b.height() && y <= b.top+b.height() {
			o.baselineShift, o.haveShift = y-b.bottom, true
		}
	}
	if len(pr.fonts) < 10_000 {
		pr.fonts[h] = o
	}
	return h, o, nil
}

// runs groups the page's words into runs.
func (pr *pageReader) runs(ctx context.Context) ([]pdfRun, error) {
	ws, err := pr.words(ctx)
	if err != nil {
		return nil, err
	}
	var out []pdfRun
	var prevObj int64
	var text strings.Builder
	for _, w := range ws {
		if !w.ok || !pr.visible(w.box) {
			continue
		}
		obj, o, err := pr.object(ctx, w.from, w.first)
		if err != nil {
			return nil, err
		}
		text.Reset()
		for _, c := range pr.chars[w.from : w.to+1] {
			if c.kind == charWord {
				text.WriteRune(c.r)
			}
		}
		r := pdfRun{
			text: text.String(), left: w.box.left, right: w.box.right, top: w.box.top, bottom: w.box.bottom,
			baseline: w.box.bottom, size: o.font.size, mono: o.font.mono, known: o.known,
			from: w.from, to: w.to, starts: []float64{w.box.left},
		}
		if o.haveShift {
			r.baseline += o.baselineShift
		}
		r.space = pr.spaceAfter(w.to)
		// A word of the same text object right after the last one on its
		// line, one space apart, extends its run.
		if n := len(out); n > 0 && obj == prevObj {
			last := &out[n-1]
			if last.space && last.to == w.from-2 && sameLine(*last, r) && r.left >= last.right && r.left-last.right <= math.Max(r.size, runHeight(r)) {
				last.text += " " + r.text
				last.right, last.top, last.bottom = r.right, math.Max(last.top, r.top), math.Min(last.bottom, r.bottom)
				last.space, last.to = r.space, r.to
				last.starts = append(last.starts, r.left)
				continue
			}
		}
		prevObj = obj
		out = append(out, r)
	}
	if len(out) > maxRunsPerPage {
		out = out[:maxRunsPerPage]
	}
	return dropOverprints(out), nil
}

// dropOverprints removes a run that repeats the text of an earlier one at
// (nearly) the same place: text printed twice, slightly offset, to look
// bold or shadowed is one text to a reader (pdftotext drops it too).
func dropOverprints(runs []pdfRun) []pdfRun {
	seen := map[string][]pdfRun{}
	out := runs[:0]
	for _, r := range runs {
		tol := 0.2 * math.Max(runHeight(r), 1)
		dup := false
		for _, o := range seen[r.text] {
			if math.Abs(o.left-r.left) <= tol && math.Abs(o.bottom-r.bottom) <= tol && math.Abs(o.right-r.right) <= tol {
				dup = true
				break
			}
		}
		if !dup {
			seen[r.text] = append(seen[r.text], r)
			out = append(out, r)
		}
	}
	return out
}

// spaceAfter reports whether a space (not a line break) follows
// character i in the text.
func (pr *pageReader) spaceAfter(i int) bool {
	return i+1 < len(pr.chars) && pr.chars[i+1].kind == charSpace
}

// sameLine reports whether two runs share a line: their vertical centres
// lie within each other's extent.
func sameLine(a, b pdfRun) bool {
	ca, cb := (a.top+a.bottom)/2, (b.top+b.bottom)/2
	return ca >= b.bottom && ca <= b.top || cb >= a.bottom && cb <= a.top
}

// softHyphen is what PDFium puts where a word was hyphenated at the end
// of a line.
const softHyphen = "\x02"
