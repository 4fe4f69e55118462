package demo

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/smcp-browse/smcp-browse/docserver"
	"github.com/smcp-browse/smcp-browse/docserver/extract"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/tui"
)

// The big-PDF benchmarks of issue 21, on the 397-page valgrind manual
// (testdata/pdf), with pdftotext's extraction of the whole file timed in
// the same loop: ratios, not absolute times, are what a loaded machine
// can compare.

// valgrindFolder writes the valgrind manual into a folder of its own and
// returns the folder and the PDF's path.
func valgrindFolder(b *testing.B) (string, string) {
	gz, err := os.ReadFile(filepath.Join(testutil.RepoRoot(b), "testdata", "pdf", "valgrind_manual.pdf.gz"))
	if err != nil {
		b.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		b.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	p := filepath.Join(dir, "valgrind_manual.pdf")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir, p
}

// timePdftotext times pdftotext extracting the whole file.
func timePdftotext(b *testing.B, pdf string) time.Duration {
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		b.Fatal("pdftotext is not installed (apt-get install poppler-utils): the benchmark reports ratios to it")
	}
	start := time.Now()
	if err := exec.Command(bin, "-q", pdf, os.DevNull).Run(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// coldCache returns a cache folder ($XDG_CACHE_HOME) without an index
// cache, sharing the PDF engine's compilation (done once per machine) with
// the user's cache.
func coldCache(b *testing.B) string {
	if err := extract.WarmPDFEngine(); err != nil {
		b.Fatal(err)
	}
	cache := b.TempDir()
	if engine := extract.PDFCacheDir(); engine != "" {
		os.MkdirAll(filepath.Join(cache, "smcp-browse"), 0o755)
		os.Symlink(engine, filepath.Join(cache, "smcp-browse", "wazero"))
	}
	return cache
}

func medianOf(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkPDFPageColdProcess is `smcp-browse cat --demo --docs DIR
// URI/pages/N --format text` from a cold process (a new demo system and
// document server, an empty index cache; the PDF engine's compilation,
// done once per machine, loaded from its disk cache), for pages 0, 150,
// 300 and 396 of the valgrind manual, beside pdftotext extracting the
// whole file. x-pdftotext is the slowest page's median over pdftotext's
// median (issue 21's target: at most 3; it took 19-23 s, ~60×).
func BenchmarkPDFPageColdProcess(b *testing.B) {
	bin := testutil.Binary(b)
	dir, pdf := valgrindFolder(b)
	ref := docserver.DocRef("valgrind_manual.pdf")
	pages := []int{0, 150, 300, 396}
	per := map[int][]time.Duration{}
	var refTimes []time.Duration
	i := 0
	for b.Loop() {
		b.StopTimer()
		cache := coldCache(b)
		n := pages[i%len(pages)]
		i++
		cmd := exec.Command(bin, "cat", "--demo", "--docs", dir, "--format", "text", "--log-file", os.DevNull,
			fmt.Sprintf("dpe://%s/%s/pages/%d", DefaultHost, ref, n))
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		b.StartTimer()
		start := time.Now()
		err := cmd.Run()
		took := time.Since(start)
		b.StopTimer()
		if err != nil || out.Len() < 100 {
			b.Fatalf("cat page %d: %v\n%s", n, err, out.String())
		}
		per[n] = append(per[n], took)
		refTimes = append(refTimes, timePdftotext(b, pdf))
		b.StartTimer()
	}
	worst := time.Duration(0)
	for _, d := range per {
		worst = max(worst, medianOf(d))
	}
	r := medianOf(refTimes)
	b.ReportMetric(float64(worst.Milliseconds()), "ms-slowest-page")
	b.ReportMetric(float64(r.Milliseconds()), "ms-pdftotext")
	b.ReportMetric(float64(worst)/float64(max(r, 1)), "x-pdftotext")
}

// BenchmarkPDFPageTurnInBrowser turns the pages of the valgrind manual in
// the browser (a real tea.Program over a demo system): each iteration is
// one ] and the time until the next page's text is on screen. Opening the
// document and its first page is outside the timing (open-ms, reported).
// Issue 21's target: a page turn within 100 ms.
func BenchmarkPDFPageTurnInBrowser(b *testing.B) {
	bin := testutil.Binary(b)
	dir, pdf := valgrindFolder(b)
	data, err := os.ReadFile(pdf)
	if err != nil {
		b.Fatal(err)
	}
	// The pages' text, to know when a page is on screen.
	doc, err := extract.Parse(context.Background(), extract.Source{Name: "valgrind_manual.pdf", Data: data}, extract.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv("XDG_CACHE_HOME", coldCache(b))
	sys, err := Start(context.Background(), Options{Executable: bin, Docs: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer sys.Close()
	tm := teatest.NewTestModel(b, tui.New(sys.Agent, tui.Options{Office: sys.Office, Computer: sys.Computer, Timeout: time.Minute}),
		teatest.WithInitialTermSize(120, 40),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	defer tm.Quit()
	// The renderer skips unchanged cells with cursor moves: compare
	// without blanks.
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	waitFor := func(s string) {
		b.Helper()
		want := squeeze(s)
		teatest.WaitFor(b, tm.Output(), func(out []byte) bool {
			return strings.Contains(squeeze(ansi.Strip(string(out))), want)
		}, teatest.WithDuration(2*time.Minute), teatest.WithCheckInterval(time.Millisecond))
	}
	key := func(k string) {
		r := []rune(k)[0]
		tm.Send(tea.KeyPressMsg{Code: r, Text: k})
	}
	enter := func() { tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter}) }
	// A page is on screen when a line of its text is: the renderer redraws
	// only the cells that changed, so the header's "Page N/397" is not
	// written again whole, but a new page's text is.
	onScreen := func(i int) string {
		prev := ""
		if i > 0 {
			prev = squeeze(pageText(doc.Pages[i-1]))
		}
		for _, l := range strings.Split(pageText(doc.Pages[i]), "\n") {
			if l = squeeze(l); len(l) >= 16 && !strings.Contains(prev, l[:16]) {
				return l[:16]
			}
		}
		b.Fatalf("page %d has no line of its own to wait for", i+1)
		return ""
	}
	waitFor("1–1 of 1")
	start := time.Now()
	enter()
	waitFor(" elements") // the page list
	enter()
	waitFor(onScreen(0))
	open := time.Since(start)
	var turns []time.Duration
	page := 0
	for b.Loop() {
		if page+1 >= len(doc.Pages) {
			break
		}
		page++
		start := time.Now()
		key("]")
		waitFor(onScreen(page))
		turns = append(turns, time.Since(start))
	}
	b.ReportMetric(float64(open.Milliseconds()), "ms-open")
	if len(turns) > 0 {
		b.ReportMetric(float64(medianOf(turns).Microseconds())/1000, "ms-turn-p50")
		b.ReportMetric(float64(slices.Max(turns).Microseconds())/1000, "ms-turn-max")
	}
}

// pageText is the text of a page's text elements.
func pageText(p extract.Page) string {
	var b strings.Builder
	for _, e := range p.Elements {
		if t, ok := e.Content["text"].(string); ok {
			b.WriteString(t + "\n")
		}
	}
	return b.String()
}
