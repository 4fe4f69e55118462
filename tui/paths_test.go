package tui

import (
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// deepReadmes are two README.md deep under different top folders, whose
// last folders are the same: cut from the left they read identically.
func deepReadmes() []fakeDoc {
	var docs []fakeDoc
	for _, top := range []string{"express", "body-parser"} {
		d := mkDoc(testHost, top+"-readme", "docs", "md", "README", nil, "", testNow,
			protocol.DPEPage{Title: "README", Elements: []protocol.DPEElementDetail{
				el("t", "text", "", map[string]any{"text": "The qs module parses query strings."}),
			}})
		d.sum.Path = top + "/node_modules/qs/node_modules/side-channel/README.md"
		docs = append(docs, d)
	}
	return docs
}

// rowsWith returns the lines of the screen that hold s.
func (h *harness) rowsWith(s string) []string {
	var out []string
	for _, l := range strings.Split(h.screen(), "\n") {
		if strings.Contains(l, s) {
			out = append(out, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "▸")))
		}
	}
	return out
}

// Issue 23.4: paths are cut in the middle, keeping the top folder that
// tells two deep files of the same name apart, in the catalog, its preview
// and the document's header.
func TestCutPathsKeepWhatTellsThemApart(t *testing.T) {
	hs, _ := withDocs(t, 100, 30, deepReadmes()...)
	rows := hs.rowsWith("README.md")
	if len(rows) != 2 || rows[0] == rows[1] {
		t.Fatalf("the two READMEs' rows read the same:\n%s", hs.screen())
	}
	for _, want := range []string{"express/", "body-parser/"} {
		if !strings.Contains(hs.screen(), want) {
			t.Errorf("no row shows the top folder %q:\n%s", want, hs.screen())
		}
	}
	hs.press("enter")
	hs.requireContains("path express/node_modules/qs/node_modules/side-channel/README.md") // it fits

	wide, _ := withDocs(t, 140, 36, deepReadmes()...)
	wide.requireContains("path express/…")
}

// Issue 23.5: content search results show the document's path, so that
// same-titled documents in different folders give different rows.
func TestSearchResultsShowThePath(t *testing.T) {
	hs, _ := withDocs(t, 100, 30, deepReadmes()...)
	hs.press("F")
	hs.typeText("qs module")
	hs.press("enter")
	hs.requireContains("2 matches")
	rows := hs.rowsWith("p. 1 The qs module")
	if len(rows) != 2 || rows[0] == rows[1] || !strings.Contains(hs.screen(), "express/…/README.md") || !strings.Contains(hs.screen(), "body-parser/…/README.md") {
		t.Fatalf("the two results do not say which file they are in:\n%s", hs.screen())
	}
}
