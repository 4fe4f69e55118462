package extract

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/smcp-browse/smcp-browse/docserver/internal/hostile"
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

// documentText is all the text of a parsed document.
func documentText(doc *Document) string {
	var b strings.Builder
	b.WriteString(doc.Title + "\n")
	for _, p := range doc.Pages {
		for _, e := range p.Elements {
			if s, ok := e.Content["text"].(string); ok {
				b.WriteString(s + "\n")
			}
		}
	}
	return b.String()
}

// The PDF engine's text keeps at least 95% of the words pdftotext
// (poppler, the reference) finds in real manuals, and ligatures are
// searchable as plain letters. ledongthuc/pdf read libtasn1.pdf as
// "theΩ REALΩ type" with U+FFFD for bullets.
func TestPDFTextMatchesPdftotext(t *testing.T) {
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext is not installed (apt-get install poppler-utils; make test installs it in CI)")
	}
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
