package extract

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// Layout of a PDF page's text. PDFium gives runs of text (one font, one
// line) with their boxes; a PDF has no paragraphs, so they are rebuilt
// from geometry, the way a reader sees them:
//
//   - Runs whose vertical centres fall within each other's band, left to
//     right, form a line (a "--" set in a monospaced font sits higher than
//     the letters around it but is on their line).
//   - Lines in a font clearly larger than the body size are headings.
//   - A line mostly in a monospaced font is code: consecutive code lines
//     form one code element with their indentation, never joined.
//   - A line that begins with a bullet starts a list item; lines indented
//     to the item's text continue it.
//   - A line with dot leaders (a table of contents) stays a line of its
//     own.
//   - Two lines of prose are joined into one paragraph only when the first
//     runs to the text's right margin, i.e. the next line's first word
//     would not have fitted after it (a typesetter breaks a line early
//     only on purpose), and the next line does not start further right
//     (a paragraph's indented first line). Any other break is kept.

// pdfRun is one run of text on a page: its box in points (origin at the
// bottom left) and its font.
type pdfRun struct {
	text                     string
	left, right, top, bottom float64
	baseline                 float64 // of its characters (bottom when unknown)
	size                     float64 // rendered font size; 0 when unknown
	mono                     bool    // set in a monospaced font
	known                    bool    // the font is known
	// from and to are the run's first and last characters in PDFium's
	// text; space tells that a space follows it there.
	from, to int
	space    bool
	// starts are the left edges of its words (its text's space-separated
	// fields), for cutting it at a table's columns.
	starts []float64
}

// pdfLine is one line of text.
type pdfLine struct {
	text        string
	left, right float64
	y           float64 // baseline of the line's main run
	size        float64 // size of most of its characters (0: unknown)
	mono        bool    // at least 90% of its characters are monospaced, and no bullet
	monoText    bool    // at least 90% of its characters are monospaced
	charW       float64 // average advance of one character
	marker      string  // leading bullet ("" for none)
	textLeft    float64 // where the text after the marker starts
	runs        []pdfRun
}

// monoFontName matches the names of common monospaced fonts: TeX's CMTT,
// SFTT, LMMono, Courier (and URW's NimbusMonL and pcr), DejaVu,
// Liberation, Noto and other Mono families, Consolas, Inconsolata, Lucida
// Console, Andale, Menlo, Monaco, Source Code, Fira Code.
var monoFontName = regexp.MustCompile(`(?i)(^|\+)(cmtt|sftt|ectt|tctt|txtt|pcr|lmtt)|mono|nimbusmon|courier|consol|andale|menlo|monaco|code`)

// fixedPitchFlag is the FixedPitch bit of a PDF font descriptor's flags.
const fixedPitchFlag = 1

// isMonoFont reports whether a font is monospaced, by its descriptor's
// flags or its name.
func isMonoFont(name string, flags int) bool {
	return flags&fixedPitchFlag != 0 || monoFontName.MatchString(name)
}

// bulletMarkers are the glyphs that begin a list item.
var bulletMarkers = []string{"•", "◦", "▪", "▫", "‣", "⁃", "∙", "●", "○", "■", "□", "►", "▸", "–", "—", "·", "-", "*"}

// leaderDots matches a table-of-contents line: dot leaders, then at most a
// page number.
var leaderDots = regexp.MustCompile(`(\.\s?){5,}\s*[0-9ivxlcdmIVXLCDM]{0,6}\s*$`)

// bulletOf returns the bullet a line starts with, "" for none: a bullet
// glyph followed by a space ("--" is not one).
func bulletOf(text string) string {
	for _, m := range bulletMarkers {
		rest, ok := strings.CutPrefix(text, m)
		if !ok || rest == "" {
			continue
		}
		r, _ := utf8.DecodeRuneInString(rest)
		if unicode.IsSpace(r) {
			return m
		}
	}
	return ""
}

// runHeight is a run's height, at least a point.
func runHeight(r pdfRun) float64 { return math.Max(r.top-r.bottom, 1) }

// runBreaks takes line breaks out of a run's text (built once: a
// Replacer built per run cost 10% of the Go side of a page read).
var runBreaks = strings.NewReplacer("\r", "", "\n", " ")

// pdfPageLines joins a page's runs into lines: a run continues the line
// when its vertical centre lies within the line's band (or the line's
// centre within the run's) and it does not go back to the left.
func pdfPageLines(runs []pdfRun) []pdfLine {
	if len(runs) > maxRunsPerPage {
		runs = runs[:maxRunsPerPage]
	}
	var lines []pdfLine
	var cur []pdfRun
	var top, bottom, lastLeft, lastRight float64
	flush := func() {
		if l, ok := makeLine(cur); ok {
			lines = append(lines, l)
		}
		cur = cur[:0]
	}
	for _, r := range runs {
		if strings.ContainsAny(r.text, "\r\n") {
			r.text = runBreaks.Replace(r.text)
		}
		if strings.TrimSpace(r.text) == "" {
			continue
		}
		if len(cur) > 0 {
			c, lc := (r.top+r.bottom)/2, (top+bottom)/2
			em := math.Max(math.Max(r.size, runHeight(r)), 1)
			sameBand := c >= bottom-0.1*em && c <= top+0.1*em || lc >= r.bottom && lc <= r.top
			if sameBand && r.left >= lastLeft-1.6*em {
				cur = append(cur, r)
				top, bottom = math.Max(top, r.top), math.Min(bottom, r.bottom)
				lastLeft, lastRight = r.left, math.Max(lastRight, r.right)
				continue
			}
			if sameBand && r.right <= cur[0].left+0.5 && r.right <= firstLeft(cur)+0.5 {
				// Drawn after text to its right ("1" then "Page"): it
				// goes before it on the line.
				cur = slices.Insert(cur, 0, r)
				top, bottom = math.Max(top, r.top), math.Min(bottom, r.bottom)
				continue
			}
			flush()
		}
		cur = append(cur, r)
		top, bottom, lastLeft, lastRight = r.top, r.bottom, r.left, r.right
	}
	flush()
	return lines
}

// firstLeft is the leftmost edge of some runs.
func firstLeft(runs []pdfRun) float64 {
	l := math.Inf(1)
	for _, r := range runs {
		l = math.Min(l, r.left)
	}
	return l
}

// makeLine builds a line from its runs.
func makeLine(runs []pdfRun) (pdfLine, bool) {
	if len(runs) == 0 {
		return pdfLine{}, false
	}
	var b strings.Builder
	sizes := map[float64]int{}
	known, mono, monoRunes := 0, 0, 0
	var monoW float64
	main, mainN := runs[0], -1
	l := pdfLine{left: math.Inf(1), right: math.Inf(-1)}
	prevRight := 0.0
	for i, r := range runs {
		n := utf8.RuneCountInString(strings.TrimSpace(r.text))
		if i > 0 && spaceBetween(runs[i-1], r, r.left-prevRight) {
			b.WriteByte(' ')
		}
		b.WriteString(r.text)
		prevRight = r.right
		l.left, l.right = math.Min(l.left, r.left), math.Max(l.right, r.right)
		if n > mainN {
			main, mainN = r, n
		}
		if r.known {
			known += n
			sizes[r.size] += n
			if r.mono {
				mono += n
				monoW += r.right - r.left
				monoRunes += utf8.RuneCountInString(strings.TrimRight(r.text, " "))
			}
		}
	}
	l.text = strings.TrimSpace(b.String())
	if l.text == "" {
		return pdfLine{}, false
	}
	l.runs = slices.Clone(runs)
	best := -1
	for s, n := range sizes {
		if n > best || n == best && s > l.size {
			l.size, best = s, n
		}
	}
	l.y = main.baseline
	l.marker = bulletOf(l.text)
	runes := utf8.RuneCountInString(l.text)
	l.charW = (l.right - l.left) / float64(max(runes, 1))
	if monoRunes > 0 {
		l.charW = monoW / float64(monoRunes)
	}
	l.monoText = known > 0 && float64(mono) >= 0.9*float64(known)
	l.mono = l.marker == "" && l.monoText
	l.textLeft = l.left
	if l.marker != "" {
		if t := strings.TrimSpace(runs[0].text); t == l.marker && len(runs) > 1 {
			l.textLeft = runs[1].left
		} else {
			l.textLeft = l.left + 2*l.charW
		}
	}
	return l, true
}

// spaceBetween reports whether a space separates run b from run a before
// it on a line, gap points apart: PDFium's text decides where the two
// follow each other in it (a space there, or none: "->" set in two fonts
// stays "->"); runs that do not (a line PDFium broke, or drew out of
// order) are spaced where a gap shows.
func spaceBetween(a, b pdfRun, gap float64) bool {
	em := math.Max(math.Max(a.size, b.size), math.Max(runHeight(a), runHeight(b)))
	switch {
	case b.from == a.to+1:
		return gap > 0.3*em
	case b.from == a.to+2 && a.space:
		return true
	}
	return gap > 0.15*em
}

// em is the line's font size, or its character width's worth when the
// size is unknown.
func (l pdfLine) em() float64 {
	if l.size > 0 {
		return l.size
	}
	return math.Max(2*l.charW, 1)
}

// pdfProfile is a document's typography, learnt from a sample of its
// pages: the body size (the size with the most text), the sizes of its
// headings (at least 1.2 times the body size) and, per font size, the
// usual distance between the baselines of two lines of a paragraph.
type pdfProfile struct {
	body     float64
	headings []float64 // descending
	pitches  map[float64]float64
}

// newPDFProfile learns a profile from the lines of some pages.
func newPDFProfile(pages [][]pdfLine) pdfProfile {
	sizes := map[float64]int{}
	for _, ls := range pages {
		for _, l := range ls {
			if l.size > 0 && !l.mono {
				sizes[l.size] += len(l.text)
			}
		}
	}
	p := pdfProfile{body: modeSize(sizes), pitches: linePitches(pages)}
	for s := range sizes {
		if p.body > 0 && s >= p.body*1.2 {
			p.headings = append(p.headings, s)
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(p.headings)))
	return p
}

// headingLevel is the heading level (1-3) of text of a size, and whether
// that size is a heading's: the sizes seen, largest first, are levels 1,
// 2 and 3; a size the sample did not show takes the level after the seen
// sizes larger than it.
func (p *pdfProfile) headingLevel(size float64) (int, bool) {
	if p.body <= 0 || size < p.body*1.2 {
		return 0, false
	}
	larger := 0
	for _, h := range p.headings {
		if h == size {
			break
		}
		if h > size {
			larger++
		}
	}
	return min(larger+1, 3), true
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

// pdfLayout turns the lines of a page into elements with a document's
// profile.
type pdfLayout struct {
	prof  *pdfProfile
	lines []pdfLine
	// margins: prose lines' left edges (ascending) with the running
	// maximum of their right edges, for the right margin of a column;
	// their right edges (ascending), for justified edges.
	lefts, maxRights, rights []float64

	out  []Element
	cur  *Element // the element being built (nil: none)
	kind string   // its kind: "heading", "text", "toc", "list", "code"
	last pdfLine  // the last line added to it
	n    int      // lines in it
	code []pdfLine
}

// linePitches finds, per font size, the most common distance between the
// baselines of consecutive lines of that size (within two ems): the line
// pitch of running text, which a paragraph break exceeds.
func linePitches(pages [][]pdfLine) map[float64]float64 {
	counts := map[float64]map[float64]int{}
	for _, ls := range pages {
		for i := 1; i < len(ls); i++ {
			a, b := ls[i-1], ls[i]
			gap := math.Round((a.y-b.y)*10) / 10
			if a.size == 0 || a.size != b.size || gap <= 0 || gap > 2*a.size {
				continue
			}
			if counts[a.size] == nil {
				counts[a.size] = map[float64]int{}
			}
			counts[a.size][gap]++
		}
	}
	out := map[float64]float64{}
	for size, m := range counts {
		best := -1
		for gap, n := range m {
			if n > best || n == best && gap < out[size] {
				out[size], best = gap, n
			}
		}
	}
	return out
}

// layoutPDFPage lays out one page's lines as elements.
func layoutPDFPage(lines []pdfLine, prof *pdfProfile) []Element {
	lay := &pdfLayout{prof: prof, lines: lines}
	lay.margins()
	for i := 0; i < len(lines); {
		if el, next, ok := lay.tableAt(i); ok {
			lay.close()
			lay.out = append(lay.out, el)
			i = next
			continue
		}
		lay.add(lines[i])
		i++
	}
	lay.close()
	return lay.out
}

// margins indexes the prose lines of the page by their edges.
func (lay *pdfLayout) margins() {
	var prose []pdfLine
	for _, l := range lay.lines {
		if !l.mono && utf8.RuneCountInString(l.text) >= 20 && !lay.heading(l) && !leaderDots.MatchString(l.text) {
			prose = append(prose, l)
			lay.rights = append(lay.rights, l.right)
		}
	}
	if len(prose) == 0 {
		// A page without running text (a title page): measure against
		// all its lines (a copy: sorting them must not reorder the page).
		prose = slices.Clone(lay.lines)
	}
	sort.Float64s(lay.rights)
	sort.Slice(prose, func(i, j int) bool { return prose[i].left < prose[j].left })
	m := math.Inf(-1)
	for _, l := range prose {
		m = math.Max(m, l.right)
		lay.lefts = append(lay.lefts, l.left)
		lay.maxRights = append(lay.maxRights, m)
	}
}

// margin is the right margin of the text a line belongs to: the furthest
// right edge of the page's prose lines that start at most three ems right
// of it (the lines of its column), or its own right edge.
func (lay *pdfLayout) margin(l pdfLine) float64 {
	i := sort.SearchFloat64s(lay.lefts, l.left+3*l.em()+0.001)
	if i == 0 {
		return l.right
	}
	return math.Max(l.right, lay.maxRights[i-1])
}

// justified reports whether a line ends on an edge that at least two other
// prose lines of the page end on (within a point): the right margin of
// justified text, also of an indented block such as a quotation.
func (lay *pdfLayout) justified(l pdfLine) bool {
	i := sort.SearchFloat64s(lay.rights, l.right-1)
	j := sort.SearchFloat64s(lay.rights, l.right+1.001)
	return j-i >= 3
}

// bodyLeft is the left edge most prose lines near a line start at (within
// four ems to its left, or just right of it): the left margin its
// paragraphs' first lines are indented from.
func (lay *pdfLayout) bodyLeft(l pdfLine) float64 {
	em := l.em()
	i := sort.SearchFloat64s(lay.lefts, l.left-4*em)
	best, n := l.left, 0
	for j := i; j < len(lay.lefts) && lay.lefts[j] <= l.left+0.8*em; {
		k := j
		for k < len(lay.lefts) && lay.lefts[k] <= lay.lefts[j]+1 {
			k++
		}
		if k-j > n {
			best, n = lay.lefts[j], k-j
		}
		j = k
	}
	return best
}

// heading reports whether a line is set as a heading.
func (lay *pdfLayout) heading(l pdfLine) bool {
	_, ok := lay.prof.headingLevel(l.size)
	return ok && !l.mono && len(l.text) <= 200 && !leaderDots.MatchString(l.text)
}

// follows reports whether line l comes right below the last line, at a
// gap of at most factor times its size.
func (lay *pdfLayout) follows(l pdfLine, factor float64) bool {
	p := lay.last
	gap := p.y - l.y
	return gap > 0 && gap <= factor*math.Max(p.em(), l.em())
}

// nextLine reports whether line l is the next line of the same block of
// running text as the last line: the same size, at the usual line pitch
// (a larger gap is a paragraph break).
func (lay *pdfLayout) nextLine(l pdfLine) bool {
	p := lay.last
	if !sameSize(p, l) {
		return false
	}
	limit := 1.35 * math.Max(p.em(), l.em())
	if pitch, ok := lay.prof.pitches[p.size]; ok && p.size == l.size {
		limit = 1.12*pitch + 0.3
	}
	gap := p.y - l.y
	return gap > 0 && gap <= limit
}

// sameSize reports whether two lines are in the same font size (an
// unknown size matches any).
func sameSize(a, b pdfLine) bool {
	return a.size == 0 || b.size == 0 || math.Abs(a.size-b.size) <= 0.5
}

// wraps reports whether the break between the last line and l is the wrap
// of running text: the last line ends in a hyphenated word or on the
// text's justified right edge (sure), or it leaves too little room before
// the margin for l's first word (likely).
func (lay *pdfLayout) wraps(l pdfLine) (wrap, sure bool) {
	p := lay.last
	if strings.HasSuffix(p.text, softHyphen) || lay.justified(p) {
		return true, true
	}
	word, _, _ := strings.Cut(strings.TrimSpace(l.text), " ")
	need := float64(utf8.RuneCountInString(word))*l.charW + 0.25*l.em()
	return lay.margin(p)-p.right < need, false
}

// wrapsInto reports whether the last line wraps into l at l's left edge
// (or the body's), as a paragraph's lines do.
func (lay *pdfLayout) wrapsInto(l pdfLine) bool {
	wrap, sure := lay.wraps(l)
	return wrap && (sure || math.Abs(l.left-lay.last.left) <= 0.8*l.em())
}

// add lays out the next line.
func (lay *pdfLayout) add(l pdfLine) {
	switch {
	case lay.heading(l):
		if wrap, _ := lay.wraps(l); lay.kind == "heading" && l.size == lay.last.size && lay.follows(l, 1.8) && wrap {
			lay.appendText(" ", l)
			return
		}
		level, _ := lay.prof.headingLevel(l.size)
		lay.start("heading", Element{Category: dpe.Heading, Content: map[string]any{"level": level, "text": l.text}}, l)
	case leaderDots.MatchString(l.text):
		if lay.kind == "toc" && lay.follows(l, 3) {
			lay.appendText("\n", l)
			return
		}
		lay.start("toc", Element{Category: dpe.Text, Content: map[string]any{"text": l.text}}, l)
	case l.mono && lay.kind == "text" && lay.nextLine(l) && lay.wrapsInto(l):
		// Running text that happens to be mostly monospaced (a sentence
		// of quoted literals) continues its paragraph: code is never
		// wrapped into from the line above.
		lay.addProse(l)
	case l.monoText && lay.kind == "code" && lay.follows(l, 3.2) && sameSize(lay.last, l):
		// A monospaced line in a listing is code even when it starts
		// like a bullet ("* 3 Thread 6238" in gdb's output).
		lay.code = append(lay.code, l)
		lay.last, lay.n = l, lay.n+1
	case l.mono:
		if lay.kind == "code" && lay.follows(l, 3.2) && sameSize(lay.last, l) {
			lay.code = append(lay.code, l)
			lay.last, lay.n = l, lay.n+1
			return
		}
		lay.start("code", Element{Category: dpe.Code, Content: map[string]any{"language": ""}}, l)
		lay.code = []pdfLine{l}
	case l.marker != "":
		if lay.kind == "list" && lay.follows(l, 2.6) && sameSize(lay.last, l) {
			lay.addItem(l)
			return
		}
		lay.start("list", Element{Category: dpe.List, Content: map[string]any{
			"ordered": false, "items": []string{}, "levels": []int{}, "lefts": []float64{},
		}}, l)
		lay.addItem(l)
	default:
		lay.addProse(l)
	}
}

// addProse lays out a line of running text: it continues the list item or
// paragraph being built when it wraps from the last line, else it starts
// a paragraph.
func (lay *pdfLayout) addProse(l pdfLine) {
	p := lay.last
	em := l.em()
	switch {
	case lay.kind == "list" && lay.nextLine(l):
		lefts := lay.cur.Content["lefts"].([]float64)
		itemText := lay.cur.Content["textLeft"].(float64)
		if l.left >= itemText-0.8*em && l.left > lefts[len(lefts)-1]+0.4*em {
			items := lay.cur.Content["items"].([]string)
			sep := "\n"
			if wrap, _ := lay.wraps(l); wrap {
				sep = " "
			}
			items[len(items)-1] = joinLine(items[len(items)-1], sep, l.text)
			lay.last, lay.n = l, lay.n+1
			return
		}
	case lay.kind == "text" && lay.nextLine(l):
		// A wrap continues at the same left edge, or at the body's left
		// after a paragraph's indented first line. When the last line
		// only probably wraps (its room is too small for the next word
		// but it is not on a justified edge), two lines both indented
		// from the body around them are two one-line paragraphs.
		wrap, sure := lay.wraps(l)
		d := l.left - p.left
		indentOK := math.Abs(d) <= 0.8*em && (sure || lay.n > 1 || p.left <= lay.bodyLeft(p)+0.8*em) ||
			lay.n == 1 && d < 0 && -d <= 4*em
		if indentOK && wrap {
			lay.appendText(" ", l)
			return
		}
	}
	lay.start("text", Element{Category: dpe.Text, Content: map[string]any{"text": l.text}}, l)
}

// addItem adds a list item: its nesting level comes from its bullet's
// left edge among the list's.
func (lay *pdfLayout) addItem(l pdfLine) {
	c := lay.cur.Content
	lefts := c["lefts"].([]float64)
	levels := c["levels"].([]int)
	level := 0
	if n := len(levels); n > 0 {
		level = levels[n-1]
		prev := lefts[n-1]
		switch em := l.em(); {
		case l.left > prev+0.8*em:
			level = min(level+1, 8)
		case l.left < prev-0.8*em:
			// back out to the level of the nearest earlier item at this left
			level = 0
			for i := n - 1; i >= 0; i-- {
				if math.Abs(lefts[i]-l.left) <= 0.8*em {
					level = levels[i]
					break
				}
			}
		}
	}
	text := strings.TrimSpace(strings.TrimPrefix(l.text, l.marker))
	c["items"] = append(c["items"].([]string), text)
	c["levels"] = append(levels, level)
	c["lefts"] = append(lefts, l.left)
	c["textLeft"] = l.textLeft
	lay.last, lay.n = l, lay.n+1
}

// appendText adds a line to the text of the element being built.
func (lay *pdfLayout) appendText(sep string, l pdfLine) {
	lay.cur.Content["text"] = joinLine(lay.cur.Content["text"].(string), sep, l.text)
	lay.last, lay.n = l, lay.n+1
}

// joinLine joins a line to text: a word hyphenated at the end of the text
// is joined without the hyphen or a space.
func joinLine(text, sep, line string) string {
	if sep == " " && strings.HasSuffix(text, softHyphen) {
		return strings.TrimSuffix(text, softHyphen) + line
	}
	return text + sep + line
}

// start closes the element being built and starts another.
func (lay *pdfLayout) start(kind string, e Element, l pdfLine) {
	lay.close()
	lay.cur, lay.kind, lay.last, lay.n = &e, kind, l, 1
}

// close finishes the element being built.
func (lay *pdfLayout) close() {
	if lay.cur == nil {
		return
	}
	e := *lay.cur
	switch lay.kind {
	case "code":
		e.Content["code"] = codeText(lay.code)
		lay.code = nil
	case "list":
		delete(e.Content, "lefts")
		delete(e.Content, "textLeft")
		items := e.Content["items"].([]string)
		for i, it := range items {
			items[i] = cleanPDFText(it)
		}
		nested := false
		for _, lv := range e.Content["levels"].([]int) {
			nested = nested || lv > 0
		}
		if !nested {
			delete(e.Content, "levels")
		}
	default:
		e.Content["text"] = cleanPDFText(e.Content["text"].(string))
	}
	lay.out = append(lay.out, e)
	lay.cur, lay.kind = nil, ""
}

// codeText is the text of a code block as a monospaced listing shows it
// (and `pdftotext -layout`): each run at its column (from its left edge,
// in character widths, so indentation and aligned comments stay), and as
// many blank lines as the gap between two lines holds beyond the block's
// usual line pitch.
func codeText(lines []pdfLine) string {
	left, charW, pitch := math.Inf(1), 0.0, math.Inf(1)
	for i, l := range lines {
		left = math.Min(left, l.left)
		charW = math.Max(charW, l.charW)
		if i > 0 {
			if g := lines[i-1].y - l.y; g > 0 {
				pitch = math.Min(pitch, g)
			}
		}
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
			if g := lines[i-1].y - l.y; g > 1.5*pitch {
				b.WriteString(strings.Repeat("\n", min(int(math.Round(g/pitch))-1, 3)))
			}
		}
		b.WriteString(codeLine(l, left, charW))
	}
	return cleanPDFText(b.String())
}

// maxCodeColumn bounds the column a code line's run is placed at.
const maxCodeColumn = 200

// codeLine is one line of a code block whose left edge is left, in a font
// charW wide.
func codeLine(l pdfLine, left, charW float64) string {
	if charW <= 0 || len(l.runs) == 0 {
		return l.text
	}
	var b strings.Builder
	col := 0
	for k, r := range l.runs {
		want := min(int(math.Round((r.left-left)/charW)), maxCodeColumn)
		if k > 0 {
			prev := l.runs[k-1]
			if sp := spaceBetween(prev, r, r.left-prev.right); want <= col && sp {
				want = col + 1
			} else if want < col || !sp {
				want = col
			}
		}
		if want > col {
			b.WriteString(strings.Repeat(" ", want-col))
			col = want
		}
		b.WriteString(r.text)
		col += utf8.RuneCountInString(r.text)
	}
	return b.String()
}

// cleanPDFText removes the soft hyphens PDFium leaves and what a terminal
// would act on.
func cleanPDFText(s string) string {
	return clean(strings.ReplaceAll(s, softHyphen, ""))
}
