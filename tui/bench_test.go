package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/components/picker"
	"github.com/smcp-browse/smcp-browse/tui/components/prompt"
)

// loadedCatalog returns an App on a catalog of n documents (with paths
// when withPaths) with every chunk already loaded, as after a user paged
// through all of it.
func loadedCatalog(b *testing.B, n, w, h int, withPaths bool) *App {
	f := newFake()
	f.docs = bigCorpus(n)
	if withPaths {
		for i := range f.docs {
			f.docs[i].sum.Path = fmt.Sprintf("src/pkg%d/internal/dir%d/%s.go", i%37, i/50, f.docs[i].sum.DocRef)
		}
	}
	o := testOptions()
	o.Computer = "laptop"
	hs := newHarness(b, f, o, w, h)
	for range n {
		if strings.Contains(hs.screen(), "–"+common.Itoa(n)+" of "+common.Itoa(n)) {
			hs.press("g")
			return hs.app
		}
		hs.press("pgdown")
	}
	b.Fatalf("the catalog did not load:\n%s", hs.screen())
	return nil
}

// BenchmarkCatalogView10k draws a frame of a 10,000-document catalog.
func BenchmarkCatalogView10k(b *testing.B) {
	for _, size := range [][2]int{{100, 30}, {160, 50}} {
		b.Run(common.Itoa(size[0])+"x"+common.Itoa(size[1]), func(b *testing.B) {
			app := loadedCatalog(b, 10000, size[0], size[1], false)
			app.Update(keyMsg("G"))
			b.ReportAllocs()
			for b.Loop() {
				_ = app.View()
			}
		})
	}
}

// BenchmarkCatalogKeyToFrame10k is one keypress (cursor down) through
// Update plus the frame it produces: the browser's share of
// keypress-to-frame time.
func BenchmarkCatalogKeyToFrame10k(b *testing.B) {
	app := loadedCatalog(b, 10000, 100, 30, false)
	down, top := keyMsg("j"), keyMsg("g")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := down
		if i++; i%9999 == 0 {
			k = top
		}
		_, _ = app.Update(k)
		_ = app.View()
	}
}

// BenchmarkPageCachedKeyToFrame10 scrolls a page with a 1,000-row table
// whose render is cached: Update (one line down) plus the frame.
func BenchmarkPageCachedKeyToFrame1000(b *testing.B) {
	f := newFake()
	f.docs = append(f.docs, mkDoc(testHost, "ledger", "docs", "xlsx", "Ledger", nil, "", testNow, *bigTablePage(1000)))
	o := testOptions()
	o.Computer = "laptop"
	hs := newHarness(b, f, o, 100, 30)
	hs.press("enter", "enter")
	hs.requireContains("Page 1/1", "a note about row 20")
	down, top := keyMsg("j"), keyMsg("g")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := down
		if i++; i%900 == 0 {
			k = top
		}
		_, _ = hs.app.Update(k)
		_ = hs.app.View()
	}
}

// BenchmarkPageResizeCached switches between two widths whose renders are
// both cached.
func BenchmarkPageResizeCached(b *testing.B) {
	f := newFake()
	f.docs = append(f.docs, mkDoc(testHost, "ledger", "docs", "xlsx", "Ledger", nil, "", testNow, *bigTablePage(1000)))
	o := testOptions()
	o.Computer = "laptop"
	hs := newHarness(b, f, o, 100, 30)
	hs.press("enter", "enter")
	hs.send(tea.WindowSizeMsg{Width: 120, Height: 30})
	hs.settle()
	sizes := []tea.WindowSizeMsg{{Width: 100, Height: 30}, {Width: 120, Height: 30}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_, cmd := hs.app.Update(sizes[i%2])
		i++
		if cmd != nil {
			b.Fatal("a cached width was rendered again")
		}
		_ = hs.app.View()
	}
}

// pageApp returns an App on the first page of a document holding page p,
// rendered.
func pageApp(b *testing.B, p protocol.DPEPage) *harness {
	f := newFake()
	f.docs = []fakeDoc{mkDoc(testHost, "big", "docs", "docx", "Big", nil, "", testNow, p)}
	o := testOptions()
	o.Computer = "laptop"
	hs := newHarness(b, f, o, 100, 30)
	hs.press("enter", "enter")
	hs.requireContains("Page 1/1")
	hs.requireNotContains("rendering…", "loading")
	return hs
}

// scrollBench is one key (down) and its frame per iteration, back to the
// top every wrap keys.
func scrollBench(b *testing.B, app *App, wrap int) {
	down, top := keyMsg("j"), keyMsg("g")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := down
		if i++; i%wrap == 0 {
			k = top
		}
		keyFrame(app, k)
	}
}

// pairBench is two keys (open and close, type and erase), each with its
// frame, per iteration; it reports the time per key.
func pairBench(b *testing.B, app *App, k1, k2 tea.KeyPressMsg) {
	b.ReportAllocs()
	for b.Loop() {
		keyFrame(app, k1)
		keyFrame(app, k2)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2, "ns/key")
}

// keyFrame sends a key through Update, runs the command it returns when
// that opens an overlay (as tea.Program would, without the goroutine), and
// draws the frame.
func keyFrame(app *App, k tea.KeyPressMsg) {
	_, cmd := app.Update(k)
	if cmd != nil {
		if m := cmd(); m != nil {
			switch m.(type) {
			case picker.OpenMsg, prompt.OpenMsg:
				app.Update(m)
			}
		}
	}
	_ = app.View()
}

// BenchmarkOutlineKeyToFrame2000 opens and closes the outline of a page of
// 2,000 elements (200 headings): T, then esc, each with its frame.
func BenchmarkOutlineKeyToFrame2000(b *testing.B) {
	hs := pageApp(b, longPage(200, 9))
	hs.requireContains("§ Section 0")
	pairBench(b, hs.app, keyMsg("T"), keyMsg("esc"))
}

// BenchmarkOutlineFilterKeyToFrame2000 types into the outline's filter
// (a letter, then backspace) over 200 headings.
func BenchmarkOutlineFilterKeyToFrame2000(b *testing.B) {
	hs := pageApp(b, longPage(200, 9))
	keyFrame(hs.app, keyMsg("T"))
	if hs.app.picker == nil {
		b.Fatal("no outline")
	}
	pairBench(b, hs.app, keyMsg("7"), keyMsg("backspace"))
}

// BenchmarkPageWithOutlineKeyToFrame2000 scrolls a page of 2,000 elements
// one line: Update and the frame, whose status says which heading the view
// is in.
func BenchmarkPageWithOutlineKeyToFrame2000(b *testing.B) {
	hs := pageApp(b, longPage(200, 9))
	scrollBench(b, hs.app, 3000)
	if !strings.Contains(hs.app.View().Content, "§ Section") {
		b.Fatal("no heading in the status bar")
	}
}

// BenchmarkLinksKeyToFrame opens and closes the link list of a page with
// 500 links.
func BenchmarkLinksKeyToFrame(b *testing.B) {
	var els []protocol.DPEElementDetail
	for i := range 500 {
		els = append(els, el(fmt.Sprintf("l-%d", i), "link", "", map[string]any{"text": fmt.Sprintf("link %d", i), "url": fmt.Sprintf("https://example.com/%d", i)}))
	}
	hs := pageApp(b, protocol.DPEPage{Title: "Links", Elements: els})
	pairBench(b, hs.app, keyMsg("L"), keyMsg("esc"))
}

// BenchmarkSearchResultsKeyToFrame moves through 1,000 content search
// results (the most a search keeps).
func BenchmarkSearchResultsKeyToFrame(b *testing.B) {
	f := newFake()
	f.docs = nil
	for i := range 1000 {
		ref := fmt.Sprintf("d-%04d", i)
		f.docs = append(f.docs, mkDoc(testHost, ref, "docs", "txt", fmt.Sprintf("Document %d", i), nil, "", testNow,
			protocol.DPEPage{Title: "p", URI: dpe.Page(testHost, ref, 0).String(), Elements: []protocol.DPEElementDetail{
				el("t", "text", "", map[string]any{"text": fmt.Sprintf("Generated document number %d with a longer line of text around the match", i)}),
			}}))
	}
	f.searchStep = 100
	o := testOptions()
	o.Computer = "laptop"
	hs := newHarness(b, f, o, 100, 30)
	hs.press("F")
	hs.typeText("number")
	hs.press("enter")
	hs.requireContains("done: 1000 documents searched · 1000 matches")
	scrollBench(b, hs.app, 999)
}

// BenchmarkCatalogWithPathsKeyToFrame10k is BenchmarkCatalogKeyToFrame10k
// with a Path column (every document has a path).
func BenchmarkCatalogWithPathsKeyToFrame10k(b *testing.B) {
	app := loadedCatalog(b, 10000, 100, 30, true)
	scrollBench(b, app, 9999)
}
