package tui

import (
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// Issue 23.11: a C1 control (U+009B) in a document shows as ⟨U+009B⟩, as
// the zero-width characters do, and swallows nothing after it; it never
// reaches the terminal.
func TestC1ControlIsShownAndKeepsTheText(t *testing.T) {
	doc := mkDoc(testHost, "c1", "docs", "txt", "C1 \u009btitle", nil, "a C1 \u009bcontrol in the summary", testNow,
		protocol.DPEPage{Title: "p", Elements: []protocol.DPEElementDetail{
			el("t", "text", "", map[string]any{"text": "a C1 \u009bcontrol in the text"}),
		}})
	hs, _ := withDocs(t, 140, 36, doc)
	hs.requireContains("C1 ⟨U+009B⟩title", "a C1 ⟨U+009B⟩control in the summary")
	hs.press("enter", "enter")
	hs.requireContains("a C1 ⟨U+009B⟩control in the text")
	if strings.ContainsRune(hs.app.View().Content, '\u009b') {
		t.Fatal("a C1 control reached the terminal")
	}
}
