package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// releaseNotes is a page shaped like Go's doc/godebug.md: a table of
// contents linking to every release, paragraphs naming releases long before
// their own heading, then one heading per release.
func releaseNotes() protocol.DPEPage {
	var els []protocol.DPEElementDetail
	els = append(els, el("h-top", "heading", "", map[string]any{"level": 1, "text": "Go, Backwards Compatibility, and GODEBUG"}))
	var toc []any
	for v := 20; v <= 24; v++ {
		toc = append(toc, fmt.Sprintf("Go 1.%d", v))
	}
	var tocMD []any
	for v := 20; v <= 24; v++ {
		tocMD = append(tocMD, fmt.Sprintf("[Go 1.%d](#go-1%d)", v, v))
	}
	els = append(els, el("l-toc", "list", "", map[string]any{"items": toc, "items_markdown": tocMD}))
	for i := range 6 {
		els = append(els, el(fmt.Sprintf("t-intro-%d", i), "text", "", map[string]any{
			"text": fmt.Sprintf("Go 1.23 changed the default of setting number %d; Go 1.24 changed it back. This paragraph only names those releases.", i)}))
	}
	for v := 20; v <= 24; v++ {
		els = append(els, el(fmt.Sprintf("h-%d", v), "heading", "", map[string]any{"level": 3, "text": fmt.Sprintf("Go 1.%d", v)}))
		for i := range 12 {
			els = append(els, el(fmt.Sprintf("t-%d-%d", v, i), "text", "", map[string]any{
				"text": fmt.Sprintf("Release 1.%d, note %d: a setting described here at some length.", v, i)}))
		}
	}
	return protocol.DPEPage{Title: "GODEBUG", Elements: els}
}

// Issue 23.1: the outline lands on the heading itself, not on an earlier
// paragraph that names the same release.
func TestOutlineJumpLandsOnTheHeadingNotAnEarlierMention(t *testing.T) {
	hs, _ := withDocs(t, 100, 30, mkDoc(testHost, "godebug", "docs", "md", "GODEBUG", nil, "", testNow, releaseNotes()))
	hs.press("enter", "enter", "T")
	hs.typeText("1.23")
	hs.press("enter")
	if got := hs.topLine(); got != "### Go 1.23" {
		t.Fatalf("the outline's Go 1.23 shows %q at the top, want its heading:\n%s", got, hs.screen())
	}
	if got := hs.section(); got != "Go 1.23" {
		t.Errorf("the status bar says %q", got)
	}
}

// Issue 23.1: a link of the table of contents scrolls to its heading, not
// to the contents line that names it.
func TestContentsLinkLandsOnItsHeading(t *testing.T) {
	hs, _ := withDocs(t, 100, 30, mkDoc(testHost, "godebug", "docs", "md", "GODEBUG", nil, "", testNow, releaseNotes()))
	hs.press("enter", "enter", "L")
	hs.typeText("#go-124")
	hs.press("enter")
	// Go 1.24 is near the end: the view goes as far as it can, the heading
	// on screen, and the status bar says the view is in it.
	if got := hs.section(); got != "Go 1.24" || !strings.Contains(hs.screen(), "### Go 1.24") || strings.Contains(hs.screen(), "• Go 1.24") {
		t.Fatalf("the contents link to Go 1.24 shows (in %q):\n%s", got, hs.screen())
	}
}

// Issue 23.2: a heading's own id (HTML id, {#id}) resolves first, on this
// page and on another page of the document; a slug and the text still do.
func TestExplicitHeadingIdsResolve(t *testing.T) {
	p1 := protocol.DPEPage{Title: "Introduction", Elements: []protocol.DPEElementDetail{
		el("h-intro", "heading", "", map[string]any{"level": 2, "text": "Introduction", "anchor": "Introduction"}),
		el("t-1", "text", "", map[string]any{"text": "A link of the form [Go 1.xx] indicates a language version.",
			"markdown": "A link of the form \\[[Go 1.xx](#Language_versions)\\] indicates a language version; see [the notation](#Notation) and [more](#notation-rules)."}),
		el("h-notation", "heading", "", map[string]any{"level": 2, "text": "Notation", "anchor": "Notation"}),
	}}
	for i := range 30 {
		p1.Elements = append(p1.Elements, el(fmt.Sprintf("t-n-%d", i), "text", "", map[string]any{"text": fmt.Sprintf("Notation paragraph %d.", i)}))
	}
	p1.Elements = append(p1.Elements, el("h-rules", "heading", "", map[string]any{"level": 3, "text": "Notation rules"}))
	pages := []protocol.DPEPage{p1}
	for i := range 8 {
		pages = append(pages, protocol.DPEPage{Title: fmt.Sprintf("Chapter %d", i), Elements: []protocol.DPEElementDetail{
			el(fmt.Sprintf("h-c%d", i), "heading", "", map[string]any{"level": 2, "text": fmt.Sprintf("Chapter %d", i), "anchor": fmt.Sprintf("Chapter_%d", i)}),
		}})
	}
	pages[2].Elements = append(pages[2].Elements,
		el("t-lv", "text", "", map[string]any{"text": "Language versions are named below."}),
		el("h-lv", "heading", "", map[string]any{"level": 3, "text": "Language versions", "anchor": "Language_versions"}),
		el("t-lv2", "text", "", map[string]any{"text": "Each version adds features."}))
	for i := range 30 {
		pages[2].Elements = append(pages[2].Elements, el(fmt.Sprintf("t-v%d", i), "text", "", map[string]any{"text": fmt.Sprintf("Version note %d.", i)}))
	}
	hs, f := withDocs(t, 100, 30, mkDoc(testHost, "spec", "docs", "html", "The Go Programming Language Specification", nil, "", testNow, pages...))
	hs.press("enter", "enter", "L")
	hs.requireContains("Links on page 1/9", "#Language_versions")
	hs.requireNotContains("\\[Go 1.xx") // the bracket before the link is not part of its text

	// On this page, by its id.
	hs.typeText("#Notation")
	hs.press("enter")
	if got := hs.topLine(); got != "## Notation" {
		t.Fatalf("#Notation shows %q at the top:\n%s", got, hs.screen())
	}
	// On this page, by the slug of a heading without an id.
	hs.press("L")
	hs.typeText("#notation-rules")
	hs.press("enter")
	if !strings.Contains(hs.screen(), "### Notation rules") || hs.section() != "Notation rules" {
		t.Fatalf("#notation-rules did not reach its heading:\n%s", hs.screen())
	}
	// On another page, by its id: found without reading every page.
	reads := f.countCalls("read_json")
	hs.press("L")
	hs.typeText("#Language_versions")
	hs.press("enter")
	if !strings.HasPrefix(hs.pageTitle(), "Page 3/9") || hs.topLine() != "### Language versions" {
		t.Fatalf("#Language_versions opened %q at %q:\n%s", hs.pageTitle(), hs.topLine(), hs.screen())
	}
	if n := f.countCalls("read_json") - reads; n > 5 {
		t.Errorf("finding a heading on page 3 read %d pages", n)
	}
}

// Issue 23.3: the links picker grows with the terminal so that a link's
// target is shown whole; on a narrow terminal the target is cut in its
// middle (its start and its end stay) and the box still fits.
func TestLinksPickerShowsTheTargets(t *testing.T) {
	const target = "https://pkg.go.dev/golang.org/x/tools/go/packages#Config.ParseFile"
	page := protocol.DPEPage{Title: "Links", Elements: []protocol.DPEElementDetail{
		el("l-1", "link", "", map[string]any{"text": "packages.Config", "url": target}),
		el("l-2", "link", "", map[string]any{"text": "spec", "url": "https://go.dev/ref/spec"}),
	}}
	hs, _ := withDocs(t, 200, 50, mkDoc(testHost, "refs", "docs", "md", "Refs", nil, "", testNow, page))
	hs.press("enter", "enter", "L")
	hs.requireContains("packages.Config", target)
	checkFrame(t, hs.app.View().Content, 200, 50)

	hs.send(tea.WindowSizeMsg{Width: 60, Height: 20})
	hs.settle()
	checkFrame(t, hs.app.View().Content, 60, 20)
	hs.requireContains("https://pkg.go", "ParseFile", "packages.Config")
}
