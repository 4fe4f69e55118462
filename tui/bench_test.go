package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// loadedCatalog returns an App on a catalog of n documents with every chunk
// already loaded, as after a user scrolled through all of it.
func loadedCatalog(b *testing.B, n, w, h int) *App {
	f := newFake()
	f.docs = bigCorpus(n)
	o := testOptions()
	o.Computer = "laptop"
	hs := newHarness(b, f, o, w, h)
	c := hs.app.top().(*catalogScreen)
	for i := 0; i*catalogChunk < n; i++ {
		ret, err := f.GetFinder(b.Context(), "laptop", protocol.FinderQuery{MatchAll: true, Offset: i * catalogChunk, Limit: catalogChunk})
		if err != nil {
			b.Fatal(err)
		}
		docs := make([]protocol.DPEDocumentSummary, len(ret.Documents))
		for j, d := range ret.Documents {
			docs[j] = sanitizeSummary(d)
		}
		c.list.put(i, &protocol.GetFinderRet{Documents: docs, TotalCount: ret.TotalCount})
	}
	return hs.app
}

// BenchmarkCatalogView10k draws a frame of a 10,000-document catalog.
func BenchmarkCatalogView10k(b *testing.B) {
	for _, size := range [][2]int{{100, 30}, {160, 50}} {
		b.Run(itoa(size[0])+"x"+itoa(size[1]), func(b *testing.B) {
			app := loadedCatalog(b, 10000, size[0], size[1])
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
	app := loadedCatalog(b, 10000, 100, 30)
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

// BenchmarkRenderTable1000 renders a page holding a 1,000-row table from
// scratch (what happens once per page, width and mode).
func BenchmarkRenderTable1000(b *testing.B) {
	p := sanitizePage(bigTablePage(1000))
	for _, mode := range []int{modeRendered, modeJSON, modeText} {
		b.Run(modeName(mode), func(b *testing.B) {
			k := renderKey{mode: mode, width: 100, style: "dark/monokai"}
			b.ReportAllocs()
			for b.Loop() {
				_ = renderPage(p, k, Styles{})
			}
		})
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
	page := hs.app.top().(*pageScreen)
	if len(page.v.pg.lines) < 1000 {
		b.Fatalf("page not rendered: %d lines", len(page.v.pg.lines))
	}
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
	page := hs.app.top().(*pageScreen)
	sizes := []tea.WindowSizeMsg{{Width: 100, Height: 30}, {Width: 120, Height: 30}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_, _ = hs.app.Update(sizes[i%2])
		i++
		if page.v.req != 0 {
			b.Fatal("a cached width was rendered again")
		}
		_ = hs.app.View()
	}
}

// BenchmarkPagerSearch1000 searches the rendered 1,000-row table.
func BenchmarkPagerSearch1000(b *testing.B) {
	out := renderPage(sanitizePage(bigTablePage(1000)), renderKey{mode: modeRendered, width: 100, style: "dark/monokai"}, Styles{})
	b.ReportAllocs()
	for b.Loop() {
		pg := newPager()
		pg.setSize(100, 27)
		pg.setContent(out)
		if pg.search("row 99") == 0 {
			b.Fatal("no match")
		}
	}
}
