package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
)

// longPage is a page of n sections, each a heading and paragraphs: the
// shape of a DOCX spec converted to one page with thousands of elements.
func longPage(sections, paras int) protocol.DPEPage {
	var els []protocol.DPEElementDetail
	for s := range sections {
		els = append(els, el(fmt.Sprintf("h-%d", s), "heading", "", map[string]any{"level": 2, "text": fmt.Sprintf("Section %d", s)}))
		for p := range paras {
			els = append(els, el(fmt.Sprintf("t-%d-%d", s, p), "text", "", map[string]any{"text": fmt.Sprintf("Paragraph %d of section %d, long enough to be a line of its own.", p, s)}))
		}
	}
	return protocol.DPEPage{Title: "Spec", Elements: els}
}

// withDocs starts the browser on a catalog holding only docs.
func withDocs(t *testing.T, w, h int, docs ...fakeDoc) (*harness, *fakeBackend) {
	t.Helper()
	f := newFake()
	f.docs = docs
	return startOn(t, f, "laptop", w, h), f
}

// pageTitle is the title line of the page on screen ("Page 2/3  Title").
func (h *harness) pageTitle() string {
	h.t.Helper()
	lines := strings.Split(h.screen(), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "Page ") {
		h.t.Fatalf("not on a page:\n%s", h.screen())
	}
	return lines[1]
}

// status is the status bar.
func (h *harness) status() string {
	lines := strings.Split(h.screen(), "\n")
	return lines[len(lines)-1]
}

// section is the heading the status bar says the view is in.
func (h *harness) section() string {
	_, after, ok := strings.Cut(h.status(), "§ ")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(after, " · ")
	return strings.TrimSpace(name)
}

// activeMatchLine is the plain text of the line holding the current
// search match (drawn in the MatchActive style).
func (h *harness) activeMatchLine() string {
	h.t.Helper()
	sgr, _, _ := strings.Cut(h.app.c.Styles.MatchActive.Render("\x01"), "\x01")
	if sgr == "" {
		h.t.Fatal("the active match style draws nothing")
	}
	for _, l := range strings.Split(h.app.View().Content, "\n") {
		if strings.Contains(l, sgr) {
			return ansi.Strip(l)
		}
	}
	return ""
}

// selectRow moves the cursor down until the selected row ("▸") holds s.
func (h *harness) selectRow(s string) {
	h.t.Helper()
	for range 100 {
		for _, l := range strings.Split(h.screen(), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "▸") && strings.Contains(l, s) {
				return
			}
		}
		h.press("down")
	}
	h.t.Fatalf("no row holds %q:\n%s", s, h.screen())
}

// topLine is the first line of the page's content (under its title).
func (h *harness) topLine() string {
	lines := strings.Split(h.screen(), "\n")
	return strings.TrimSpace(lines[2])
}

func TestPageOutlineJumpsAndSaysWhereYouAre(t *testing.T) {
	spec := mkDoc(testHost, "spec", "docs", "docx", "Go spec", nil, "", testNow, longPage(40, 6))
	hs, _ := withDocs(t, 100, 30, spec)
	hs.press("enter", "enter")
	hs.requireContains("Page 1/1", "§ Section 0")

	hs.press("T")
	hs.requireContains("Outline of page 1/1", "● Section 0", "Section 12", "type to filter")
	hs.typeText("section 27")
	hs.settle()
	hs.requireContains("▸ Section 27")
	hs.requireNotContains("Section 12 ")
	hs.press("enter")
	hs.requireNotContains("Outline of page")
	if got := hs.topLine(); !strings.Contains(got, "Section 27") {
		t.Fatalf("the view starts at %q, want the heading Section 27:\n%s", got, hs.screen())
	}
	hs.requireContains("§ Section 27")

	// Scrolling on updates where you are; the outline marks it.
	hs.press("pgdown", "pgdown")
	here, err := strconv.Atoi(strings.TrimPrefix(hs.section(), "Section "))
	if err != nil || here <= 27 {
		t.Fatalf("after two pages down the view is in %q", hs.section())
	}
	hs.press("T")
	hs.requireContains("● Section " + strconv.Itoa(here))
	hs.press("esc")
	hs.requireNotContains("Outline of page")
}

func TestDocumentOutlineOpensThePageAtTheHeading(t *testing.T) {
	p1, p2 := longPage(3, 2), longPage(5, 8)
	p1.Title, p2.Title = "Intro", "Details"
	for i := range p2.Elements {
		p2.Elements[i].ElementID = "d-" + p2.Elements[i].ElementID
		if p2.Elements[i].Category == "heading" {
			p2.Elements[i].Content["text"] = "Detail " + p2.Elements[i].Content["text"].(string)
		}
	}
	doc := mkDoc(testHost, "manual", "docs", "pdf", "Manual", nil, "", testNow, p1, p2, protocol.DPEPage{Title: "Blank"})
	hs, f := withDocs(t, 100, 30, doc)
	hs.press("enter", "j", "T")
	hs.requireContains("Outline · Manual", "Intro", "Detail Section 4", "p. 2", "Blank")
	if n := f.countCalls("read_json dpe://com.smcp.docs/manual/pages/1?categories=heading"); n != 1 {
		t.Fatalf("the outline did not read the headings only: %v", f.callLog())
	}
	hs.typeText("detail section 4")
	hs.press("enter")
	if got := hs.pageTitle(); !strings.HasPrefix(got, "Page 2/3") {
		t.Fatalf("opened %q, want page 2", got)
	}
	// The heading is near the end: the view goes as far as it can, the
	// heading on screen, and says it is there.
	hs.requireContains("## Detail Section 4", "§ Detail Section 4")
	if !strings.Contains(hs.status(), "100%") {
		t.Fatalf("the view stopped before the end: %q", hs.status())
	}
	// Read once: a second T does not read the pages again.
	reads := f.countCalls("read_json")
	hs.press("esc", "T")
	if f.countCalls("read_json") != reads {
		t.Fatal("the outline was read again")
	}
	hs.requireContains("● Details") // the page under the cursor (page 2)
}

// A PDF with bookmarks: its outline is its bookmarks, read from the page
// index without reading a page (a big PDF's pages are read one by one as
// a reader asks), indented by level, each with its page; a page the
// server has not read lists no element count. Choosing a bookmark opens
// its page at the heading it names (lower on the page, after text that
// mentions it; the heading numbered, the bookmark not, as texinfo makes
// them).
func TestDocumentOutlineIsThePDFsBookmarks(t *testing.T) {
	chapter := []protocol.DPEElementDetail{el("h-c1", "heading", "", map[string]any{"level": 1, "text": "Chapter One"})}
	for i := range 30 {
		chapter = append(chapter, el(fmt.Sprintf("t-c%d", i), "text", "", map[string]any{"text": fmt.Sprintf("Paragraph %d says the scope of it comes later.", i)}))
	}
	chapter = append(chapter, el("h-c2", "heading", "", map[string]any{"level": 2, "text": "1.2 Scope of it"}))
	for i := range 30 {
		chapter = append(chapter, el(fmt.Sprintf("t-d%d", i), "text", "", map[string]any{"text": fmt.Sprintf("Scope paragraph %d.", i)}))
	}
	doc := mkDoc(testHost, "manual", "docs", "pdf", "Manual", nil, "", testNow,
		protocol.DPEPage{Title: "Cover", Elements: longPage(1, 1).Elements},
		protocol.DPEPage{Title: "Page 2"},
		protocol.DPEPage{Title: "Chapter One", Elements: chapter})
	doc.bookmarks = map[int][]protocol.DPEBookmark{
		0: {{Title: "Cover", Level: 1}},
		2: {{Title: "Chapter One", Level: 1}, {Title: "Scope\x1b[31m of it", Level: 2}},
	}
	doc.unread = map[int]bool{1: true, 2: true}
	hs, f := withDocs(t, 100, 30, doc)
	hs.press("enter")
	hs.requireContains("Chapter One")
	if strings.Contains(hs.screen(), "-1 element") {
		t.Fatalf("a page not read shows a count:\n%s", hs.screen())
	}
	hs.press("T")
	hs.requireContains("Outline · Manual", "Cover", "Chapter One", "  Scope of it", "p. 3")
	if strings.Contains(hs.screen(), "p. 2") {
		t.Errorf("the bookmark outline lists a page without a bookmark:\n%s", hs.screen())
	}
	if n := f.countCalls("read_json dpe://com.smcp.docs/manual/pages/"); n != 0 {
		t.Fatalf("the bookmark outline read %d pages: %v", n, f.callLog())
	}
	hs.typeText("scope")
	hs.press("enter")
	if got := hs.pageTitle(); !strings.HasPrefix(got, "Page 3/3") {
		t.Fatalf("opened %q, want page 3", got)
	}
	if got := hs.topLine(); !strings.Contains(got, "Scope of it") {
		t.Fatalf("the bookmark opened its page at %q, want its heading Scope of it:\n%s", got, hs.screen())
	}
}

// linkDocs is a folder of documents that link to each other.
func linkDocs() []fakeDoc {
	guide := mkDoc(testHost, "guide", "docs", "md", "Guide", nil, "", testNow,
		protocol.DPEPage{Title: "Guide", Elements: []protocol.DPEElementDetail{
			el("h-g1", "heading", "", map[string]any{"level": 1, "text": "Guide"}),
			el("t-g1", "text", "", map[string]any{"text": "Read on.", "markdown": "See [the costs](#running-costs), the [setup notes](../notes/setup.md#install) or the [spec page](dpe://com.smcp.docs/spec/pages/0)."}),
			el("l-g1", "link", "site", map[string]any{"text": "project site", "url": "https://example.com/project"}),
		}},
		protocol.DPEPage{Title: "Costs", Elements: []protocol.DPEElementDetail{
			el("h-g2", "heading", "", map[string]any{"level": 2, "text": "Running costs"}),
			el("t-g2", "text", "", map[string]any{"text": "They stay flat."}),
		}},
	)
	guide.sum.Path = "docs/guide.md"
	guide.sum.FileURI = "file:///srv/docs/guide.md"
	setup := mkDoc(testHost, "setup", "docs", "md", "Setup notes", nil, "", testNow.Add(-time.Hour),
		protocol.DPEPage{Title: "Setup", Elements: []protocol.DPEElementDetail{
			el("h-s1", "heading", "", map[string]any{"level": 1, "text": "Setup"}),
			el("t-s1", "text", "", map[string]any{"text": strings.Repeat("Preamble line.\n\n", 40)}),
			el("h-s2", "heading", "", map[string]any{"level": 2, "text": "Install"}),
			el("t-s2", "text", "", map[string]any{"text": "Run make install."}),
		}},
	)
	setup.sum.Path = "notes/setup.md"
	setup.sum.FileURI = "file:///srv/notes/setup.md"
	spec := mkDoc(testHost, "spec", "docs", "md", "Spec", nil, "", testNow.Add(-2*time.Hour),
		protocol.DPEPage{Title: "Spec", Elements: []protocol.DPEElementDetail{el("t-x", "text", "", map[string]any{"text": "The spec."})}})
	return []fakeDoc{guide, setup, spec}
}

func TestLinksFollowAnchorsFilesDPEAndTheWeb(t *testing.T) {
	hs, f := withDocs(t, 100, 30, linkDocs()...)
	hs.press("enter", "enter") // Guide, page 1
	hs.press("L")
	hs.requireContains("Links on page 1/2", "the costs", "#running-costs", "setup notes", "spec page", "project site")

	// #anchor of a heading on another page of the same document.
	hs.press("enter")
	if !strings.HasPrefix(hs.pageTitle(), "Page 2/2") || !strings.Contains(hs.topLine(), "Running costs") {
		t.Fatalf("#running-costs opened %q at %q", hs.pageTitle(), hs.topLine())
	}
	hs.requireContains("↪ Guide · p. 2/2")
	hs.press("esc")
	hs.requireContains("Page 1/2", "⟩ ↪") // forward is offered

	// A relative file link: resolved against docs/, found in the catalog,
	// opened at its #install heading.
	hs.press("L", "down", "enter")
	if !strings.HasPrefix(hs.pageTitle(), "Page 1/1  Setup") || !strings.Contains(hs.status(), "100%") {
		t.Fatalf("../notes/setup.md#install opened %q at %q:\n%s", hs.pageTitle(), hs.topLine(), hs.screen())
	}
	hs.requireContains("## Install", "§ Install")
	if got := hs.crumbs(); !strings.Contains(got, "↪ Setup notes · p. 1/1") {
		t.Fatalf("crumbs %q", got)
	}
	view, reads := hs.screen(), f.countCalls("read_json")

	// Back returns to the guide; forward brings the setup notes back where
	// they were.
	hs.press("backspace")
	hs.requireContains("Page 1/2  Guide")
	hs.send(tea.KeyPressMsg{Code: tea.KeyRight, Mod: tea.ModAlt})
	hs.settle()
	if got := hs.screen(); got != view || f.countCalls("read_json") != reads {
		t.Fatalf("forward did not bring the same view back:\n%s\nwas:\n%s", got, view)
	}
	hs.send(tea.KeyPressMsg{Code: tea.KeyLeft, Mod: tea.ModAlt})
	hs.settle()
	hs.requireContains("Page 1/2  Guide")

	// A dpe:// link opens that page.
	hs.press("L", "down", "down", "enter")
	if got := hs.pageTitle(); !strings.HasPrefix(got, "Page 1/1  Spec") || !strings.Contains(hs.crumbs(), "↪ Spec · p. 1/1") {
		t.Fatalf("the dpe:// link opened %q (%q)", got, hs.crumbs())
	}
	hs.press("esc")

	// The web: the browser program, else the link is copied and the
	// notice says why.
	sys := hs.fakeSystem(nil, "xdg-open")
	hs.press("L", "down", "down", "down", "enter")
	if r := sys.lastRun(); r.name != "xdg-open" || !slices.Equal(r.args, []string{"https://example.com/project"}) {
		t.Fatalf("ran %+v", r)
	}
	hs.requireContains("opened https://example.com/project with xdg-open")
	hs.fakeSystem(nil)
	hs.press("L", "down", "down", "down", "enter")
	if n := hs.app.c.Notice; !strings.Contains(n, "no browser found") || !strings.Contains(n, "https://example.com/project") {
		t.Fatalf("notice %q", n)
	}
}

func TestLinkToAFileTheComputerDoesNotServe(t *testing.T) {
	docs := linkDocs()
	hs, _ := withDocs(t, 100, 30, docs[0], docs[2]) // no setup.md
	hs.press("enter", "enter", "L", "down", "enter")
	if n := hs.app.c.Notice; !strings.Contains(n, "notes/setup.md: not a document of this computer") {
		t.Fatalf("notice %q", n)
	}
	hs.requireContains("Page 1/2  Guide")
}

func TestElementScreenFollowsItsLink(t *testing.T) {
	hs, _ := withDocs(t, 100, 30, linkDocs()...)
	hs.fakeSystem(nil, "xdg-open")
	hs.press("enter", "enter", "e", "j", "j", "enter")
	hs.requireContains("link  l-g1")
	hs.press("enter")
	hs.requireContains("opened https://example.com/project with xdg-open")
}

func TestContentSearchShowsProgressStopsAndOpensTheMatch(t *testing.T) {
	f := newFake()
	f.searchStep = 2
	hs := startOn(t, f, "laptop", 100, 30)
	hs.press("F")
	hs.requireContains("Search · laptop", "search for:")
	hs.typeText("q4")
	hs.press("enter")
	hs.requireContains("done: 7 documents searched", "2026 年度报告", "p. 1", "Q4 达到最高点")
	if n := f.countCalls("search_finder q4|"); n != 4 {
		t.Fatalf("7 documents two at a time took %d steps: %v", n, f.callLog())
	}

	// Enter opens the page with the match highlighted at that line: the
	// chart's summary, not the table row above it that also says Q4.
	hs.selectRow("达到最高点")
	hs.press("enter")
	var cur, n int
	if !strings.HasPrefix(hs.pageTitle(), "Page 1/3") {
		t.Fatalf("opened %q, want page 1", hs.pageTitle())
	}
	if _, err := fmt.Sscanf(hs.status()[strings.Index(hs.status(), "match "):], "match %d/%d “Q4”", &cur, &n); err != nil || n < 2 {
		t.Fatalf("the page's search is not the matched Q4 with two matches: %q (%v)", hs.status(), err)
	}
	if line := hs.activeMatchLine(); !strings.Contains(line, "达到最高点") {
		t.Errorf("the current match is on %q, want the chart's line", line)
	}

	// A search in progress stops on esc: the answer on its way is ignored
	// and nothing more is asked. (The first esc clears the page's search.)
	hs.press("esc", "esc", "/")
	release := f.holdCalls("search_finder")
	hs.typeText("the")
	hs.press("enter")
	hs.requireContains("searching… 0/0 documents")
	hs.press("esc")
	hs.requireContains("stopped", "search stopped")
	before := f.countCalls("search_finder the|")
	release()
	hs.settle()
	if f.countCalls("search_finder the|") != before {
		t.Fatal("a stopped search asked for another step")
	}
	hs.requireContains("stopped")
	hs.press("esc")
	hs.requireContains("Catalog · laptop")
}

func TestContentSearchErrorsAreShown(t *testing.T) {
	f := newFake()
	f.setErr("search_finder", protocol.Errorf(protocol.CodeMCPCapabilityNotSupported, "no document server of this computer can search"))
	hs := startOn(t, f, "laptop", 100, 30)
	hs.press("F")
	hs.typeText("x")
	hs.press("enter")
	hs.requireContains("4015 · not supported by this computer")
}

func TestSortAndTheComputerThatIgnoresIt(t *testing.T) {
	f := newFake()
	hs := startOn(t, f, "laptop", 100, 30)
	hs.press("S")
	hs.requireContains("Sort by", "▸ specification order", "title A → Z", "pages, most first")
	hs.press("down", "enter")
	if f.countCalls("get_finder []||0|50|sort=title") != 1 {
		t.Fatalf("no sorted query: %v", f.callLog())
	}
	hs.requireContains("sort: title A → Z  (esc clears)", "▸ 2026 年度报告")
	titles := hs.catalogTitles()
	if len(titles) != 7 || !slices.IsSortedFunc(titles, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) }) {
		t.Fatalf("rows not sorted by title: %q", titles)
	}
	hs.press("esc")
	hs.requireContains("no filter", "▸ Meeting notes")

	f = newFake()
	f.noExtension = true
	hs = startOn(t, f, "laptop", 100, 30)
	hs.press("S", "down", "enter")
	hs.requireContains("this computer does not sort its catalog", "(not supported by this computer)")
}

func TestFilterWordsNarrowAndEscClearsWhatItsHintSays(t *testing.T) {
	f := newFake()
	hs := startOn(t, f, "laptop", 100, 30)
	hs.press("/")
	hs.typeText("guide hr")
	hs.press("enter")
	hs.requireContains("1–1 of 1", "Onboarding guide")
	hs.press("t")
	hs.requireContains("File type", "docx")
	hs.requireNotContains("pdf") // the only types present among the matches
	hs.press("down", "enter")
	hs.press("S", "down", "enter")
	hs.requireContains("/ guide hr  type:docx  sort: title A → Z  (esc clears)")
	hs.press("esc")
	hs.requireContains("1–7 of 7", "no filter")
	hs.requireNotContains("esc clears", "type:docx", "sort:")
}

func TestTypePickerListsOnlyTypesPresent(t *testing.T) {
	for _, ext := range []bool{true, false} {
		f := newFake()
		f.noExtension = !ext
		f.docs = f.docs[1:3] // a PDF and a Markdown document
		hs := startOn(t, f, "laptop", 100, 30)
		hs.press("t")
		hs.requireContains("File type", "all types", "md ", "pdf ")
		for _, absent := range []string{"xlsx", "csv", "docx", "pptx", "txt"} {
			hs.requireNotContains(absent)
		}
		if !ext && f.countCalls("get_finder []|md|0|1") != 1 {
			t.Errorf("a Computer without file_types was not probed: %v", f.callLog())
		}
	}
}

func TestStickyTableHeaderOnLongTables(t *testing.T) {
	f := newFake()
	f.docs = append(f.docs, mkDoc(testHost, "ledger", "docs", "xlsx", "Ledger", nil, "", testNow, *bigTablePage(300)))
	hs := startOn(t, f, "laptop", 100, 30)
	hs.press("enter", "enter")
	top := func() []string { return strings.Split(hs.screen(), "\n")[2:4] }
	if strings.Contains(top()[0], "amount") {
		t.Fatalf("the header is shown twice at the top: %q", top())
	}
	for range 5 {
		hs.press("pgdown")
	}
	got := top()
	if !strings.Contains(got[0], "id") || !strings.Contains(got[0], "amount") || !strings.Contains(got[1], "┼") {
		t.Fatalf("after scrolling into the table the header is not pinned:\n%s", hs.screen())
	}
	hs.press("m") // JSON has no table header to pin
	if strings.Contains(top()[1], "┼") {
		t.Fatal("a header pinned in raw JSON")
	}
}

// TestPageRecoversWhenItsComputerEntersAfterARestart: after a Server
// restart the browser may re-join first and read 404 without ever seeing
// its computer leave; the computer's enter must make the screens re-read.
func TestScreensRecoverWhenTheirComputerEnters(t *testing.T) {
	f := newFake()
	hs := startOn(t, f, "laptop", 100, 30)
	hs.press("j", "j", "j", "enter", "enter")
	f.setErr("read_json", protocol.Errorf(protocol.CodeNotFound, "computer 'laptop' is not in the office"))
	f.setErr("get_finder", protocol.Errorf(protocol.CodeNotFound, "computer 'laptop' is not in the office"))
	hs.send(ConnStateMsg{State: ConnReconnecting})
	hs.send(ConnStateMsg{State: ConnConnected}) // re-joined before the computer: every read 404s
	hs.settle()
	hs.requireContains("404 · the computer is not in the office")
	f.setErr("read_json", nil)
	f.setErr("get_finder", nil)
	hs.send(common.EnterOfficeMsg{Name: "laptop", Role: "computer"})
	hs.settle()
	hs.requireNotContains("404")
	hs.requireContains("Page 1/3", "1,560")
	hs.press("esc", "esc")
	hs.requireNotContains("404")
	hs.requireContains("1–7 of 7")
}

// TestSelectionStaysOnTheDocumentAfterManyNewFiles: new documents sorted
// above the selection push it out of the rows a reload reads; the cursor
// follows it instead of landing on another document.
func TestSelectionStaysOnTheDocumentAfterManyNewFiles(t *testing.T) {
	f := newFake()
	f.docs = bigCorpus(300)
	hs := startOn(t, f, "laptop", 100, 30)
	hs.press("j", "j", "j")
	hs.requireContains("▸ Generated document number 3 ")
	f.mutate(func(docs *[]fakeDoc) {
		for i := range 100 {
			ref := fmt.Sprintf("new-%03d", i)
			*docs = append(*docs, fakeDoc{sum: protocol.DPEDocumentSummary{
				DocRef: ref, URI: dpe.Document(testHost, ref).String(), FileType: "md", Title: "Fresh " + ref,
				PageCount: 1, Server: "docs", LastModified: testNow.Add(time.Minute).Format(time.RFC3339),
			}})
		}
	})
	hs.send(common.UpdateFinderMsg{Computer: "laptop"})
	hs.settle()
	hs.requireContains("▸ Generated document number 3 ", "of 400")
	// The rows on screen are those around the document's new place (104th).
	var from, to, total int
	if _, err := fmt.Sscanf(hs.screen()[strings.Index(hs.screen(), "Catalog · laptop · ")+len("Catalog · laptop · "):], "%d–%d of %d", &from, &to, &total); err != nil || from > 104 || to < 104 {
		t.Fatalf("the rows shown are %d–%d (%v), want those around row 104", from, to, err)
	}
}

func TestPathsTellIdenticalTitlesApart(t *testing.T) {
	var docs []fakeDoc
	for _, dir := range []string{"cmd/server", "cmd/client", "internal/tool"} {
		d := mkDoc(testHost, strings.ReplaceAll(dir, "/", "-"), "docs", "go", "main.go", nil, "", testNow,
			protocol.DPEPage{Title: "main.go"})
		d.sum.Path = dir + "/main.go"
		docs = append(docs, d)
	}
	hs, _ := withDocs(t, 140, 36, docs...)
	hs.requireContains("Path", "cmd/server/main.go", "cmd/client/main.go", "internal/tool/main.go")
	hs.requireContains("path cmd/server/main.go") // the preview
	hs.press("/")
	hs.typeText("client")
	hs.press("enter")
	hs.requireContains("1–1 of 1", "cmd/client/main.go")
	hs.requireNotContains("cmd/server/main.go")
	// On a narrow terminal the path is cut from the left: the file name stays.
	hs.send(tea.WindowSizeMsg{Width: 80, Height: 20})
	hs.settle()
	hs.requireContains("main.go")
	checkFrame(t, hs.app.View().Content, 80, 20)
}

func TestInvisibleCharactersInTitlesAreShown(t *testing.T) {
	d := mkDoc(testHost, "inv", "docs", "pdf", "invoice\u202Efdp.exe and pay\u200Bpal", nil, "", testNow,
		protocol.DPEPage{Title: "p\u2066age", Elements: []protocol.DPEElementDetail{el("t", "text", "", map[string]any{"text": "a\u202Eb"})}})
	hs, _ := withDocs(t, 140, 36, d)
	check := func() {
		t.Helper()
		raw := hs.app.View().Content
		for _, r := range []string{"\u202E", "\u200B", "\u2066"} {
			if strings.Contains(raw, r) {
				t.Fatalf("frame carries %U:\n%s", []rune(r)[0], hs.screen())
			}
		}
	}
	hs.requireContains("invoice⟨U+202E⟩fdp.exe and pay⟨U+200B⟩pal")
	check()
	hs.press("enter")
	check()
	hs.press("enter")
	hs.requireContains("p⟨U+2066⟩age", "a⟨U+202E⟩b")
	check()
	if strings.Contains(hs.app.View().WindowTitle, "\u202E") {
		t.Fatal("window title carries U+202E")
	}
}

func TestComputerWithControlCharactersInItsNameCanBeBrowsed(t *testing.T) {
	f := newFake()
	name := "lab\x1b[31m-pc\u202E"
	f.computers = []string{name}
	hs := newHarness(t, f, testOptions(), 100, 30)
	hs.requireContains("lab-pc⟨U+202E⟩", "7") // shown sanitized, with its documents
	hs.press("enter")
	hs.requireContains("Catalog · lab-pc⟨U+202E⟩", "1–7 of 7")
	if !slices.ContainsFunc(f.callLog(), func(c string) bool { return strings.HasPrefix(c, "get_finder") }) {
		t.Fatal("no catalog request")
	}
	if strings.Contains(hs.app.View().Content, "\x1b[31m-pc") {
		t.Fatal("the name's escape reached the screen")
	}
}

func TestComputersShowDocumentsAndTimeInOffice(t *testing.T) {
	f := newFake()
	now := testNow
	o := testOptions()
	o.Now = func() time.Time { return now }
	hs := newHarness(t, f, o, 100, 30)
	hs.requireContains("Documents", "In office", "≥ 0s")
	f.mu.Lock()
	f.computers = append(f.computers, "new-box")
	f.mu.Unlock()
	hs.send(common.EnterOfficeMsg{Name: "new-box", Role: "computer"})
	hs.settle()
	now = now.Add(2*time.Hour + 5*time.Minute)
	hs.send(common.UpdateDesktopMsg{}) // any message: a new frame
	hs.settle()
	scr := hs.screen()
	for _, l := range strings.Split(scr, "\n") {
		if strings.Contains(l, "new-box") && (!strings.Contains(l, " 2h 5m ") || strings.Contains(l, "≥")) {
			t.Fatalf("new-box row %q, want exactly 2h 5m in office", l)
		}
		if strings.Contains(l, "laptop") && !strings.Contains(l, "≥ 2h 5m") {
			t.Fatalf("laptop row %q, want ≥ 2h 5m (it was there before the browser)", l)
		}
	}
	hs.requireNotContains("sid-")
}

func TestFullHelpAt80ColumnsDropsNothing(t *testing.T) {
	hs := startOn(t, newFake(), "laptop", 80, 40)
	hs.press("j", "j", "j", "enter", "enter", "?")
	for _, want := range []string{"copy URI", "save .md", "open in $PAGER", "open in $EDITOR", "desktop", "quit", "outline", "links", "search", "history back"} {
		hs.requireContains(want)
	}
	checkFrame(t, hs.app.View().Content, 80, 40)
	hs.press("?")
	line := strings.Split(hs.screen(), "\n")[38]
	if !strings.Contains(line, "? help") || ansi.StringWidth(line) > 80 {
		t.Fatalf("help line %q", line)
	}
}

func TestDesktopSaves(t *testing.T) {
	dir := t.TempDir()
	o := testOptions()
	o.Computer, o.SaveDir = "laptop", dir
	hs := newHarness(t, newFake(), o, 100, 30)
	hs.press("d", "s")
	path := filepath.Join(dir, "desktop-laptop.md")
	hs.requireContains("saved " + path)
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "## window://com.example.logger") || !strings.Contains(string(b), "indexing finished") {
		t.Fatalf("%v:\n%s", err, b)
	}
}

func TestUnreadableDocumentsSayWhy(t *testing.T) {
	bad := mkDoc(testHost, "locked", "docs", "pdf", "Locked report", nil, "", testNow)
	bad.sum.Unreadable = "encrypted PDF (a password is needed)"
	hs, _ := withDocs(t, 140, 36, bad)
	hs.requireContains("Locked report", "✗ cannot be read: encrypted PDF (a password is", "needed)")
	hs.press("enter")
	hs.requireContains("✗ cannot be read: encrypted PDF")
}

// A match inside a code block, whose line has runs of spaces, opens with
// that match current (not the first one on the page): the line is found
// however its spaces were laid out.
func TestContentSearchOpensAMatchInACodeBlock(t *testing.T) {
	f := newFake()
	f.docs = append(f.docs, mkDoc(testHost, "spec", "docs", "html", "Spec", nil, "", testNow,
		protocol.DPEPage{Title: "Operators", Elements: []protocol.DPEElementDetail{
			el("h-1", "heading", "Operator precedence", map[string]any{"level": 4, "text": "Operator precedence"}),
			el("t-1", "text", "Unary operators", map[string]any{"text": "Unary operators have the highest precedence."}),
			el("c-1", "code", "table", map[string]any{"code": "    Precedence    Operator\n        5             *  /  %\n        1             ||"}),
		}}))
	hs := startOn(t, f, "laptop", 100, 30)
	hs.press("F")
	hs.typeText("precedence")
	hs.press("enter")
	hs.selectRow("Precedence    Operator")
	hs.press("enter")
	if line := hs.activeMatchLine(); !strings.Contains(line, "Precedence    Operator") {
		t.Errorf("the current match is on %q, want the code line", line)
	}
}

// A link shown in a paragraph's Markdown and also as its own link element
// (HTML's <a href="/pkg/sync/"><code>sync</code></a>) is listed once, by
// its text without markup.
func TestLinksPickerListsEachLinkOnceWithoutMarkup(t *testing.T) {
	f := newFake()
	link := el("l-1", "link", "sync", map[string]any{"text": "sync", "url": "/pkg/sync/", "within": "t-1"})
	f.docs = append(f.docs, mkDoc(testHost, "mem", "docs", "html", "Memory Model", nil, "", testNow,
		protocol.DPEPage{Title: "Advice", Elements: []protocol.DPEElementDetail{
			el("t-1", "text", "To serialize", map[string]any{
				"text":     "protect the data with sync and sync/atomic or a*b",
				"markdown": "protect the data with [`sync`](/pkg/sync/) and [`sync/atomic`](/pkg/sync/atomic/) or [a\\*b **c**](/x)",
			}),
			link,
		}}))
	hs := startOn(t, f, "laptop", 100, 30)
	hs.press("/")
	hs.typeText("Memory")
	hs.press("enter", "enter", "enter", "L")
	scr := hs.screen()
	if n := strings.Count(scr, "/pkg/sync/ │"); n != 1 {
		t.Errorf("/pkg/sync/ is listed %d times:\n%s", n, scr)
	}
	hs.requireContains("sync/atomic", "a*b c")
	hs.requireNotContains("`sync`", "**")
}

// The links picker lists the links of list items and table cells too (their
// rich forms items_markdown and rows_markdown), not only of paragraphs.
func TestLinksPickerListsLinksInListsAndTables(t *testing.T) {
	f := newFake()
	f.docs = append(f.docs, mkDoc(testHost, "idx", "docs", "html", "Index", nil, "", testNow,
		protocol.DPEPage{Title: "Index", Elements: []protocol.DPEElementDetail{
			el("l-1", "list", "see also", map[string]any{
				"items":          []any{"Install", "Usage"},
				"items_markdown": []any{"[Install](install.md)", "[Usage](usage.md#run)"},
			}),
			el("t-1", "table", "index", map[string]any{
				"headers": []any{"Entry", "Section"}, "headers_markdown": []any{"Entry", "Section"},
				"rows":          []any{[]any{"cif", "The Basics"}},
				"rows_markdown": []any{[]any{"[cif](The-Basics.html#index-cif)", "[The Basics](The-Basics.html)"}},
			}),
		}}))
	hs := startOn(t, f, "laptop", 100, 30)
	hs.press("/")
	hs.typeText("Index")
	hs.press("enter", "enter", "enter", "L")
	// The targets are whole (issue 23.3: what the picker is for).
	hs.requireContains("install.md", "usage.md#run", "cif                       The-Basics.html#index-cif │", "The Basics                          The-Basics.html │")
}

// catalogTitles reads the Title column of the catalog rows on screen.
func (h *harness) catalogTitles() []string {
	h.t.Helper()
	lines := strings.Split(h.screen(), "\n")
	head := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "Title ") })
	if head < 0 {
		h.t.Fatalf("no catalog on screen:\n%s", h.screen())
	}
	from := strings.Index(lines[head], "Title")
	to := from + len("Title")
	for to < len(lines[head]) && lines[head][to] == ' ' {
		to++
	}
	var out []string
	for _, l := range lines[head+1:] {
		if strings.TrimSpace(l) == "" {
			break
		}
		out = append(out, strings.TrimSpace(ansi.Cut(l, from, to)))
	}
	return out
}

// A ranked search while the Computer's index is being built: rows carry
// their score (· for pages found by scanning), every match of the line is
// highlighted, the progress line says how far the index is, the screen
// pauses after a batch and asks for more as the cursor nears the end, and
// ctrl+l runs the same text as a literal search.
func TestContentSearchRankedWhileIndexing(t *testing.T) {
	f := newFake()
	built := false // the index is complete: answers are ranked throughout
	f.ranked = func(q protocol.SearchQuery) *protocol.SearchFinderRet {
		from, _ := strconv.Atoi(q.Cursor)
		ret := &protocol.SearchFinderRet{Matches: []protocol.SearchMatch{}, ScannedDocuments: 9580, TotalDocuments: 9580,
			IndexedDocuments: 3214, Indexing: &protocol.SearchIndexing{Indexed: 3214, Total: 9580, RemainingMs: 41_000}, ReqID: "r"}
		if built {
			ret.IndexedDocuments, ret.Indexing = 9580, nil
			ret.Matches = append(ret.Matches, protocol.SearchMatch{URI: f.docs[0].pages[0].URI, DocRef: f.docs[0].sum.DocRef,
				Title: f.docs[0].sum.Title, Line: "the budget, ranked once indexed", Start: 4, End: 10, Score: 9.5})
			return ret
		}
		for i := from; i < min(from+50, 230); i++ {
			score := 0.0
			if i < 200 {
				score = float64(300-i) / 100
			}
			d := f.docs[i%len(f.docs)]
			ret.Matches = append(ret.Matches, protocol.SearchMatch{
				URI: d.pages[0].URI, DocRef: d.sum.DocRef, Title: d.sum.Title, Path: fmt.Sprintf("dir%03d/%s", i, d.sum.Path),
				PageIndex: 0, Line: fmt.Sprintf("budget row %d: the budget grew", i), Start: 0, End: 6,
				Highlights: [][2]int{{0, 6}, {len(fmt.Sprintf("budget row %d: the ", i)), len(fmt.Sprintf("budget row %d: the budget", i))}},
				Score:      score,
			})
		}
		if from+50 < 230 {
			ret.NextCursor = strconv.Itoa(from + 50)
		}
		return ret
	}
	var rechecks []func(time.Time) tea.Msg
	o := testOptions()
	o.Computer = "laptop"
	hs := newHarnessWith(t, f, o, 120, 30, func(h *harness) {
		h.app.c.Tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
			if d < time.Second {
				return tea.Tick(d, fn) // the catalog's preview and filter
			}
			rechecks = append(rechecks, fn) // the search's re-run, seconds away
			return nil
		}
	})
	hs.press("F")
	hs.typeText("budget")
	hs.press("enter")
	hs.requireContains("best 100 matches · 9580/9580 documents · more as you scroll",
		"indexing 3,214/9,580, about 41 s left, partly", "3.00", "budget row 0: the budget grew")
	if len(rechecks) != 1 {
		t.Fatalf("%d re-runs scheduled after an answer given while indexing, want 1", len(rechecks))
	}
	if n := f.countCalls("search_finder budget|"); n != 2 {
		t.Fatalf("the first batch took %d steps, want 2 of 50: %v", n, f.callLog())
	}
	// Both matches of the line are highlighted.
	var row string
	for _, l := range strings.Split(hs.app.View().Content, "\n") {
		if strings.Contains(ansi.Strip(l), "budget row 1:") {
			row = l
		}
	}
	if got := len(regexp.MustCompile(`\x1b\[[0-9;:]*mbudget`).FindAllString(row, -1)); got != 2 {
		t.Errorf("budget row 1 shows %d highlighted matches, want 2: %q", got, row)
	}
	// Scrolling to the end asks for more, down to the scanned pages.
	for range 6 {
		hs.press("G")
	}
	hs.requireContains("done: 9580 documents searched · 230 matches")
	hs.requireContains("·") // a scanned page's score
	if n := f.countCalls("search_finder budget|"); n != 5 {
		t.Errorf("%d steps for 230 matches, want 5", n)
	}

	// The index completes; the scheduled re-run replaces the answer.
	built = true
	hs.send(rechecks[len(rechecks)-1](testNow))
	hs.settle()
	hs.requireContains("the budget, ranked once indexed", "9.50")
	hs.requireNotContains("indexing 3,214/9,580", "budget row 0: the budget grew")
	before := len(rechecks)
	hs.send(rechecks[len(rechecks)-1](testNow)) // an old tick: ignored
	hs.settle()
	if len(rechecks) != before {
		t.Errorf("the search keeps re-running once the index is complete")
	}

	// ctrl+l: the same text, literally (the fake scans its documents).
	hs.press("ctrl+l")
	hs.requireContains("find literally: budget")
	hs.requireNotContains("indexing 3,214/9,580", "3.00")
}

// TestGoToPageAndReadOn: a reader goes to page N as in less (300G) or
// vim (:300), hears when there is no such page, and ↓ or space at the end
// of a page goes on to the next one.
func TestGoToPageAndReadOn(t *testing.T) {
	var pages []protocol.DPEPage
	for i := range 12 {
		pages = append(pages, protocol.DPEPage{Title: fmt.Sprintf("Chapter %d", i+1), Elements: []protocol.DPEElementDetail{
			el(fmt.Sprintf("p%d", i), "text", "", map[string]any{"text": fmt.Sprintf("The text of chapter %d.", i+1)}),
		}})
	}
	book := mkDoc(testHost, "book", "docs", "pdf", "Book", nil, "", testNow, pages...)
	hs, _ := withDocs(t, 100, 30, book)
	hs.press("enter", "enter")
	hs.requireContains("Page 1/12", "The text of chapter 1.")

	hs.press("1", "0")
	hs.requireContains("page 10 (G to go)")
	hs.press("G")
	hs.requireContains("Page 10/12", "The text of chapter 10.")

	hs.press(":")
	hs.typeText("3")
	hs.press("enter")
	hs.requireContains("Page 3/12", "The text of chapter 3.")

	hs.press(":")
	hs.typeText("40")
	hs.press("enter")
	hs.requireContains("no page 40: the document has pages 1–12", "Page 3/12")

	// A short page is on screen to its end: ↓ and space turn the page.
	hs.press("down")
	hs.requireContains("Page 4/12", "The text of chapter 4.")
	hs.press("space")
	hs.requireContains("Page 5/12")
	// The last page stays.
	hs.press("1", "2", "G", "down")
	hs.requireContains("Page 12/12", "The text of chapter 12.")

	// A long page scrolls first and turns only at its end.
	long := mkDoc(testHost, "spec", "docs", "docx", "Spec", nil, "", testNow, longPage(20, 6), longPage(1, 1))
	hs, _ = withDocs(t, 100, 30, long)
	hs.press("enter", "enter")
	hs.requireContains("Page 1/2")
	hs.press("down")
	hs.requireContains("Page 1/2")
	for range 40 {
		if strings.Contains(hs.screen(), "Page 2/2") {
			break
		}
		hs.press("space")
	}
	hs.requireContains("Page 2/2")
}

// TestGoFileOutlineListsItsDeclarations: on a page of Go source the
// outline (T) lists its types, functions and methods, jumps to the one
// chosen, and the status bar says which one the view is in.
func TestGoFileOutlineListsItsDeclarations(t *testing.T) {
	var b strings.Builder
	b.WriteString("// Package shapes measures shapes.\npackage shapes\n\nimport \"math\"\n\n")
	b.WriteString("type Circle struct {\n\tR float64\n}\n\n")
	b.WriteString("func (c Circle) Area() float64 {\n\treturn math.Pi * c.R * c.R\n}\n\n")
	for i := range 30 {
		fmt.Fprintf(&b, "func helper%d(x float64) float64 {\n\t// helper %d does little.\n\treturn x + %d\n}\n\n", i, i, i)
	}
	b.WriteString("func Perimeter(c Circle) float64 {\n\treturn 2 * math.Pi * c.R\n}\n")
	page := protocol.DPEPage{Title: "Lines 1–200", Elements: []protocol.DPEElementDetail{
		el("code-1", "code", "", map[string]any{"language": "go", "code": b.String()}),
	}}
	hs, _ := withDocs(t, 100, 30, mkDoc(testHost, "shapes", "docs", "go", "shapes.go", nil, "", testNow, page))
	hs.press("enter", "enter")
	hs.requireContains("Page 1/1", "package shapes")

	hs.press("T")
	hs.requireContains("Outline of page 1/1", "type Circle struct", "func (c Circle) Area() float64", "func helper0(x float64) float64")
	hs.typeText("perim")
	hs.settle()
	hs.requireContains("▸ func Perimeter(c Circle) float64")
	hs.press("enter")
	hs.requireNotContains("Outline of page")
	if got := hs.screen(); !strings.Contains(got, "func Perimeter(c Circle) float64") {
		t.Fatalf("the view does not show func Perimeter:\n%s", got)
	}
	hs.requireContains("§ func Perimeter(c Circle) float64")

	hs.press("g", "T")
	hs.typeText("helper17")
	hs.settle()
	hs.press("enter")
	if got := hs.topLine(); !strings.Contains(got, "func helper17(") {
		t.Fatalf("the view starts at %q, want func helper17:\n%s", got, hs.screen())
	}
}

// TestGoFileDocumentOutline: a Go file of several pages has an outline on
// its page list too: every page's declarations, each opening its page at
// the declaration.
func TestGoFileDocumentOutline(t *testing.T) {
	code := func(from, to int) protocol.DPEPage {
		var b strings.Builder
		for i := from; i < to; i++ {
			fmt.Fprintf(&b, "// Step%d is step %d.\nfunc Step%d() int {\n\tx := %d\n\tx++\n\treturn x\n}\n\n", i, i, i, i)
		}
		return protocol.DPEPage{Title: fmt.Sprintf("Lines %d–%d", from*8+1, to*8), Elements: []protocol.DPEElementDetail{
			el(fmt.Sprintf("code-%d", from), "code", "", map[string]any{"language": "go", "code": b.String()}),
		}}
	}
	hs, _ := withDocs(t, 100, 30, mkDoc(testHost, "steps", "docs", "go", "steps.go", nil, "", testNow, code(0, 20), code(20, 40)))
	hs.press("enter")
	hs.requireContains("Lines 161–320")
	hs.press("T")
	hs.requireContains("Outline · steps.go", "func Step0() int", "p. 1")
	hs.typeText("step33")
	hs.settle()
	hs.requireContains("▸   func Step33() int", "p. 2") // under its page's title
	hs.press("enter")
	hs.requireContains("Page 2/2")
	if got := hs.topLine(); !strings.Contains(got, "func Step33() int") {
		t.Fatalf("the page starts at %q, want func Step33:\n%s", got, hs.screen())
	}
}
