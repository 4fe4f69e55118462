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

// Issue 23.14: a document with no pages (it cannot be read) does not say
// "page 1/0", and says why once, on its screen and in the preview.
func TestUnreadableDocumentSaysWhyOnceAndNoPageOne(t *testing.T) {
	const why = "peek docx: open package: zip: not a valid zip file"
	bad := mkDoc(testHost, "broken", "docs", "docx", "broken.docx", nil, "Unreadable: "+why, testNow)
	bad.sum.Unreadable = why
	hs, _ := withDocs(t, 140, 36, bad)
	if n := strings.Count(hs.screen(), "valid zip file"); n != 1 {
		t.Errorf("the preview says why %d times:\n%s", n, hs.screen())
	}
	hs.press("enter")
	if n := strings.Count(hs.screen(), "valid zip file"); n != 1 {
		t.Errorf("the document says why %d times:\n%s", n, hs.screen())
	}
	hs.requireContains("this document has no pages")
	hs.requireNotContains("page 1/0")
}
