package extract

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/smcp-browse/smcp-browse/docserver/internal/hostile"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// realPDFs returns the PDFs of testdata/pdf and up to max others found
// under /usr/share/doc (also gzipped ones), by name.
func realPDFs(t *testing.T, max int) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	local, _ := filepath.Glob("../../testdata/pdf/*.pdf")
	for _, p := range local {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = data
	}
	if len(out) == 0 {
		t.Fatal("no PDFs in testdata/pdf")
	}
	extra := 0
	filepath.WalkDir("/usr/share/doc", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || extra >= max {
			return nil
		}
		name := d.Name()
		if !strings.HasSuffix(name, ".pdf") && !strings.HasSuffix(name, ".pdf.gz") {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > 600<<10 {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		if strings.HasSuffix(name, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				return nil
			}
			if data, err = io.ReadAll(io.LimitReader(zr, 16<<20)); err != nil {
				return nil
			}
		}
		if !bytes.HasPrefix(data, []byte("%PDF")) {
			return nil
		}
		if _, dup := out[strings.TrimSuffix(name, ".gz")]; !dup {
			out[p] = data
			extra++
		}
		return nil
	})
	return out
}

// words counts the words of text in their search form, lower case.
func words(text string) map[string]int {
	m := map[string]int{}
	for _, w := range strings.FieldsFunc(strings.ToLower(SearchForm(text)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len([]rune(w)) >= 2 {
			m[w]++
		}
	}
	return m
}

// documentText is all the text of a parsed document: its title and the
// lines of every page.
func documentText(doc *Document) string {
	var b strings.Builder
	b.WriteString(doc.Title + "\n")
	for _, p := range doc.Pages {
		for _, l := range elementLines(p) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// The PDF engine's text keeps at least 95% of the words pdftotext
// (poppler, the reference) finds in real manuals, and ligatures are
// searchable as plain letters. ledongthuc/pdf read libtasn1.pdf as
// "theΩ REALΩ type" with U+FFFD for bullets.
func TestPDFTextMatchesPdftotext(t *testing.T) {
	pdftotext := testutil.Need(t, "pdftotext")
	if err := WarmPDFEngine(); err != nil {
		t.Fatal(err)
	}
	for name, data := range realPDFs(t, 6) {
		cmd := exec.Command(pdftotext, "-enc", "UTF-8", "-", "-")
		cmd.Stdin = bytes.NewReader(data)
		ref, err := cmd.Output()
		if err != nil {
			t.Logf("%s: pdftotext fails (%v); skipped", name, err)
			continue
		}
		refWords := words(string(ref))
		total := 0
		for _, n := range refWords {
			total += n
		}
		if total < 200 {
			continue // a scanned or drawing-only PDF: nothing to compare
		}
		start := time.Now()
		doc, err := Parse(context.Background(), Source{Name: "x.pdf", Data: data}, Options{})
		took := time.Since(start)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got := words(documentText(doc))
		kept := 0
		var missing []string
		for w, n := range refWords {
			k := min(n, got[w])
			kept += k
			if k < n && len(missing) < 15 {
				missing = append(missing, w)
			}
		}
		ratio := float64(kept) / float64(total)
		t.Logf("%s: %d pages in %s; %.1f%% of pdftotext's %d words", name, len(doc.Pages), took.Round(time.Millisecond), 100*ratio, total)
		if ratio < 0.95 {
			t.Errorf("%s keeps %.1f%% of pdftotext's words; missing e.g. %v", name, 100*ratio, missing)
		}
	}
}

// A PDF whose page tree contains itself makes naive readers loop for ever;
// PDFium reads it (or fails) at once, and a read whose context ends is
// interrupted.
func TestPDFLoopingPageTree(t *testing.T) {
	data := hostile.LoopTreePDF()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	_, err := Parse(ctx, Source{Name: "loop.pdf", Data: data}, Options{})
	t.Logf("looping page tree: err=%v after %s", err, time.Since(start))
	if ctx.Err() != nil {
		t.Fatal("the looping PDF ran until the deadline")
	}
}

// alnum is the letters and digits of s in lower case, in their search
// form: what two extractions of the same line agree on whatever spacing,
// leader dots or bullets they print.
func alnum(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(SearchForm(s)) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// elementLines are the lines a page shows: every line of its text,
// heading and code elements and every list item.
func elementLines(p Page) []string {
	var out []string
	for _, e := range p.Elements {
		for _, k := range []string{"text", "code"} {
			if s, ok := e.Content[k].(string); ok {
				out = append(out, strings.Split(s, "\n")...)
			}
		}
		if items, ok := e.Content["items"].([]string); ok {
			for _, it := range items {
				out = append(out, strings.Split(it, "\n")...)
			}
		}
	}
	return out
}

// bboxLine is one line of `pdftotext -bbox-layout`: its text, right edge,
// the width of its first word and its height.
type bboxLine struct {
	text                   string
	xMin, xMax, yMin, yMax float64
	first, h               float64
	firstOfBlock           bool
	blockXMax              float64
}

// bboxPages reads the lines of each page from `pdftotext -bbox-layout`
// output (poppler's own segmentation into blocks, lines and words).
func bboxPages(data []byte) ([][]bboxLine, error) {
	type word struct {
		XMin float64 `xml:"xMin,attr"`
		XMax float64 `xml:"xMax,attr"`
		YMin float64 `xml:"yMin,attr"`
		YMax float64 `xml:"yMax,attr"`
		Text string  `xml:",chardata"`
	}
	type line struct {
		XMin  float64 `xml:"xMin,attr"`
		XMax  float64 `xml:"xMax,attr"`
		YMin  float64 `xml:"yMin,attr"`
		YMax  float64 `xml:"yMax,attr"`
		Words []word  `xml:"word"`
	}
	type block struct {
		XMax  float64 `xml:"xMax,attr"`
		Lines []line  `xml:"line"`
	}
	type page struct {
		Flows []struct {
			Blocks []block `xml:"block"`
		} `xml:"flow"`
	}
	var doc struct {
		Pages []page `xml:"body>doc>page"`
	}
	// pdftotext writes the control characters some PDFs carry (U+0001 in
	// crc-doc.1.0.pdf) unescaped, which XML forbids.
	data = bytes.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' {
			return ' '
		}
		return r
	}, data)
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	dec.Entity = xml.HTMLEntity
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("pdftotext -bbox-layout output: %w", err)
	}
	out := make([][]bboxLine, len(doc.Pages))
	for i, p := range doc.Pages {
		for _, f := range p.Flows {
			for _, b := range f.Blocks {
				for j, l := range b.Lines {
					if len(l.Words) == 0 {
						continue
					}
					var ws []string
					for _, w := range l.Words {
						ws = append(ws, w.Text)
					}
					w := l.Words[0]
					out[i] = append(out[i], bboxLine{
						text: strings.Join(ws, " "), xMin: l.XMin, xMax: l.XMax, yMin: l.YMin, yMax: l.YMax,
						first: w.XMax - w.XMin, h: w.YMax - w.YMin, firstOfBlock: j == 0, blockXMax: b.XMax,
					})
				}
			}
		}
		out[i] = physicalLines(out[i])
	}
	return out, nil
}

// physicalLines merges the lines poppler puts in different blocks but on
// one physical line (a table of contents' numbers, titles and pages; an
// option and its description; a "[Function]" tag set flush right), left
// to right. Single-column documents only: two columns would merge too.
func physicalLines(lines []bboxLine) []bboxLine {
	var out []bboxLine
	used := make([]bool, len(lines))
	for i := range lines {
		if used[i] {
			continue
		}
		group := []bboxLine{lines[i]}
		used[i] = true
		for j := i + 1; j < len(lines); j++ {
			a, b := lines[i], lines[j]
			overlap := math.Min(a.yMax, b.yMax) - math.Max(a.yMin, b.yMin)
			if !used[j] && overlap > 0.5*math.Min(a.yMax-a.yMin, b.yMax-b.yMin) {
				group = append(group, b)
				used[j] = true
			}
		}
		sort.Slice(group, func(x, y int) bool { return group[x].xMin < group[y].xMin })
		m := group[0]
		for _, g := range group[1:] {
			m.text += " " + g.text
			m.xMax = math.Max(m.xMax, g.xMax)
			m.blockXMax = math.Max(m.blockXMax, g.blockXMax)
			m.firstOfBlock = m.firstOfBlock || g.firstOfBlock
		}
		out = append(out, m)
	}
	return out
}

// lineStructure compares the lines of a parsed PDF with poppler's
// (`pdftotext -bbox-layout`), page by page. A reference line "starts a
// line" in ours when its letters and digits begin one of our lines. Each
// reference line after the first of its block is either a deliberate
// break or the wrap of running text, by the rule typesetters follow: a
// line is broken early only on purpose, so the break is deliberate when
// the next line's first word would have fitted in the room the line
// leaves before its block's right edge, when the next line begins with a
// bullet, or when either is a table-of-contents line (dot leaders). The
// first line of a block is a deliberate break too. It returns:
//
//   - starts: of all reference lines (with at least 4 letters or digits),
//     those that start a line in ours (the raw measure; joining running
//     text lowers it by design);
//   - kept: of the deliberate breaks, those that start a line in ours;
//   - joined: of the wraps of running text, those that do not start a
//     line in ours (we joined them into their paragraph).
func lineStructure(ref [][]bboxLine, doc *Document, miss func(kind string, page int, line string)) (starts, kept, joined [2]int) {
	leaders := func(s string) bool { return strings.Contains(s, ". . .") || strings.Contains(s, "....") }
	for pi, lines := range ref {
		if pi >= len(doc.Pages) {
			break
		}
		var ours []string
		for _, l := range elementLines(doc.Pages[pi]) {
			if a := alnum(l); a != "" {
				ours = append(ours, a)
			}
		}
		startsLine := func(a string) bool {
			for _, o := range ours {
				if strings.HasPrefix(o, a) {
					return true
				}
			}
			return false
		}
		for i, l := range lines {
			a := alnum(l.text)
			if len(a) < 4 {
				continue
			}
			in := 0
			if startsLine(a) {
				in = 1
			}
			starts[0] += in
			starts[1]++
			deliberate := i == 0 || l.firstOfBlock || bulletOf(l.text) != "" || leaders(l.text)
			if !deliberate {
				p := lines[i-1]
				deliberate = leaders(p.text) || l.blockXMax-p.xMax > l.first+0.25*l.h
			}
			if deliberate {
				kept[0] += in
				kept[1]++
				if in == 0 {
					miss("kept", pi+1, l.text)
				}
			} else {
				joined[0] += 1 - in
				joined[1]++
				if in == 1 {
					miss("joined", pi+1, l.text)
				}
			}
		}
	}
	return starts, kept, joined
}

// head is at most the first n of s.
func head(s []string, n int) []string { return s[:min(n, len(s))] }

// share is the ratio of a count to its total (1 for an empty total).
func share(p [2]int) float64 {
	if p[1] == 0 {
		return 1
	}
	return float64(p[0]) / float64(p[1])
}

// Lines the PDF sets apart stay apart, and only running prose is joined
// into paragraphs (libtasn1.pdf ran its table of contents, code lines and
// bullets together, and broke a sentence where a "--" in a monospaced
// font sat higher than the text around it). Measured against pdftotext
// -layout on the real PDFs of testdata/pdf.
func TestPDFLineStructureMatchesPdftotext(t *testing.T) {
	pdftotext := testutil.Need(t, "pdftotext")
	if err := WarmPDFEngine(); err != nil {
		t.Fatal(err)
	}
	for name, data := range realPDFs(t, 6) {
		cmd := exec.Command(pdftotext, "-bbox-layout", "-enc", "UTF-8", "-", "-")
		cmd.Stdin = bytes.NewReader(data)
		out, err := cmd.Output()
		if err != nil {
			t.Logf("%s: pdftotext fails (%v); skipped", name, err)
			continue
		}
		doc, err := Parse(context.Background(), Source{Name: "x.pdf", Data: data}, Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		ref, err := bboxPages(out)
		if err != nil {
			t.Logf("%s: %v; skipped", name, err)
			continue
		}
		misses := map[string][]string{}
		starts, kept, joined := lineStructure(ref, doc, func(kind string, page int, line string) {
			misses[kind] = append(misses[kind], fmt.Sprintf("p%d %q", page, strings.TrimSpace(line)))
		})
		if os.Getenv("PDF_MISSES") != "" {
			for k, m := range misses {
				for _, l := range m {
					fmt.Println(name, k, l)
				}
			}
		}
		t.Logf("%s: lines starting a line %.1f%% of %d; breaks kept %.1f%% of %d; prose wraps joined %.1f%% of %d",
			name, 100*share(starts), starts[1], 100*share(kept), kept[1], 100*share(joined), joined[1])
		// The PDFs of testdata/pdf are checked closely; the others found
		// on the machine (which vary) loosely.
		minKept, minJoined := 0.75, 0.6
		if !strings.Contains(name, "/") {
			minKept, minJoined = 0.9, 0.7
		}
		if share(kept) < minKept {
			t.Errorf("%s: only %.1f%% of the lines pdftotext sets apart start a line here (want >= %.0f%%); e.g. %v",
				name, 100*share(kept), 100*minKept, head(misses["kept"], 8))
		}
		if share(joined) < minJoined {
			t.Errorf("%s: only %.1f%% of the wrapped lines of running text are joined into their paragraph (want >= %.0f%%); e.g. %v",
				name, 100*share(joined), 100*minJoined, head(misses["joined"], 8))
		}
	}
}

// BenchmarkParsePDF measures a full parse of each PDF of testdata/pdf
// (the engine warmed up first, as a running server has it).
func BenchmarkParsePDF(b *testing.B) {
	if err := WarmPDFEngine(); err != nil {
		b.Fatal(err)
	}
	local, _ := filepath.Glob("../../testdata/pdf/*.pdf")
	for _, p := range local {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(p), func(b *testing.B) {
			for b.Loop() {
				if _, err := Parse(context.Background(), Source{Name: "x.pdf", Data: data}, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Lines come in reading order, top to bottom, even where the producer drew
// them out of order (pdfTeX draws libtasn1's table of contents in no
// particular order: "4 Function reference" came before "1 Introduction").
// Of the consecutive pairs of pdftotext's lines that start one of ours,
// at least 98% must come in the same order in ours.
func TestPDFLinesInReadingOrder(t *testing.T) {
	pdftotext := testutil.Need(t, "pdftotext")
	if err := WarmPDFEngine(); err != nil {
		t.Fatal(err)
	}
	local, _ := filepath.Glob("../../testdata/pdf/*.pdf")
	if len(local) == 0 {
		t.Fatal("no PDFs in testdata/pdf")
	}
	for _, p := range local {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(pdftotext, "-bbox-layout", "-enc", "UTF-8", "-", "-")
		cmd.Stdin = bytes.NewReader(data)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: pdftotext: %v", p, err)
		}
		ref, err := bboxPages(out)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := Parse(context.Background(), Source{Name: "x.pdf", Data: data}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		inOrder, pairs := 0, 0
		var wrong []string
		for pi, lines := range ref {
			if pi >= len(doc.Pages) {
				break
			}
			var ours []string
			for _, l := range elementLines(doc.Pages[pi]) {
				if a := alnum(l); a != "" {
					ours = append(ours, a)
				}
			}
			prev, prevText := -1, ""
			for _, l := range lines {
				a := alnum(l.text)
				if len(a) < 8 {
					continue
				}
				starts := func(o string) bool { return strings.HasPrefix(o, a) }
				// A line that appears twice on a page matches its next
				// occurrence after the previous line, else its first.
				at := -1
				if i := slices.IndexFunc(ours[max(prev, 0):], starts); i >= 0 {
					at = max(prev, 0) + i
				} else if at = slices.IndexFunc(ours, starts); at < 0 {
					continue
				}
				if prev >= 0 {
					pairs++
					if at >= prev {
						inOrder++
					} else {
						wrong = append(wrong, fmt.Sprintf("p%d %q before %q", pi+1, strings.TrimSpace(l.text), prevText))
					}
				}
				prev, prevText = at, strings.TrimSpace(l.text)
			}
		}
		share := float64(inOrder) / float64(max(pairs, 1))
		t.Logf("%s: %d of %d line pairs in pdftotext's order (%.1f%%)", filepath.Base(p), inOrder, pairs, 100*share)
		if pairs < 50 || share < 0.98 {
			t.Errorf("%s: %.1f%% of %d line pairs in reading order, want ≥ 98%%; first: %v", filepath.Base(p), 100*share, pairs, wrong[:min(len(wrong), 5)])
		}
	}
}
