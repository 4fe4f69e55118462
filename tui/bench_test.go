package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/dpe"
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

// pageApp returns an App on the first page of a document holding page p,
// rendered.
func pageApp(b *testing.B, p protocol.DPEPage) *harness {
	f := newFake()
	f.docs = []fakeDoc{mkDoc(testHost, "big", "docs", "docx", "Big", nil, "", testNow, p)}
	o := testOptions()
	o.Computer = "laptop"
	hs := newHarness(b, f, o, 100, 30)
	hs.press("enter", "enter")
	if !hs.app.top().(*pageScreen).v.Ready() {
		b.Fatal("page not rendered")
	}
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
			case openPickerMsg, openPromptMsg:
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
	if n := len(hs.app.top().(*pageScreen).page.Elements); n != 2000 {
		b.Fatalf("%d elements", n)
	}
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
	f.docs = bigCorpus(10000)
	o := testOptions()
	o.Computer = "laptop"
	hs := newHarness(b, f, o, 100, 30)
	s := newSearchScreen(hs.app.c, "laptop", "")
	hs.send(pushMsg{s})
	hs.settle()
	s.editing, s.query, s.complete = false, "number", true
	for i := range searchMaxResults {
		line := fmt.Sprintf("Generated document number %d with a longer line of text around the match", i)
		s.results = append(s.results, protocol.SearchMatch{URI: dpe.Page(testHost, "d", 0).String(), Title: fmt.Sprintf("Document %d", i), Line: line, Start: 19, End: 25})
	}
	s.nav.setLen(len(s.results))
	scrollBench(b, hs.app, 999)
}

// BenchmarkCatalogWithPathsKeyToFrame10k is BenchmarkCatalogKeyToFrame10k
// with a Path column (every document has a path).
func BenchmarkCatalogWithPathsKeyToFrame10k(b *testing.B) {
	app := loadedCatalog(b, 10000, 100, 30)
	c := app.top().(*catalogScreen)
	for n, rows := range c.list.docs.loaded {
		for i := range rows {
			rows[i].Path = fmt.Sprintf("src/pkg%d/internal/dir%d/%s.go", i%37, n, rows[i].DocRef)
		}
	}
	c.list.withPath = true
	scrollBench(b, app, 9999)
}

// BenchmarkRenderCodeBlocksWithoutLanguage renders a page of 40 code
// blocks without a language (HTML <pre>, indented blocks), whose lexer
// chroma has to guess.
func BenchmarkRenderCodeBlocksWithoutLanguage(b *testing.B) {
	var md strings.Builder
	for i := range 40 {
		fmt.Fprintf(&md, "Paragraph %d about the code below.\n\n```\nx := a[%d] << s // shift\ny = f(x, %d)\n```\n\n", i, i, i)
	}
	src := md.String()
	b.ReportAllocs()
	for b.Loop() {
		_ = renderMarkdown(src, 100, "dark")
	}
}
