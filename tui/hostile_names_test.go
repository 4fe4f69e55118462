package tui

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// TestHostileNames shows documents whose names an MCP server chose to
// hurt: NUL, escape sequences, C1 controls, invalid UTF-8 and 10 KB of
// text. Every frame fits the terminal, carries no control character from
// a name, and the window title stays short and clean.
func TestHostileNames(t *testing.T) {
	long := strings.Repeat("long name ", 1024)
	names := []string{
		"nul\x00byte", "esc \x1b[2J\x1b]0;owned\x07 title", "csi \u009b31m c1", "bad \xff\xfe utf-8", long,
	}
	var docs []fakeDoc
	for i, n := range names {
		d := mkDoc(testHost, "d"+string(rune('a'+i)), "docs", "md", n, []string{n}, n, testNow, protocol.DPEPage{Title: n})
		d.sum.Path = n
		docs = append(docs, d)
	}
	hs, _ := withDocs(t, 100, 30, docs...)
	check := func(where string) {
		t.Helper()
		v := hs.app.View()
		checkFrame(t, v.Content, 100, 30)
		// Styling is SGR only: any other sequence came from a name.
		rest := v.Content
		for {
			i := strings.IndexByte(rest, 0x1b)
			if i < 0 {
				break
			}
			seq := rest[i:]
			n := len(seq)
			if j := strings.IndexByte(seq, 'm'); j >= 0 {
				n = j + 1
			}
			if !strings.HasPrefix(seq, "\x1b[") || strings.ContainsAny(seq[2:n-1], "\x1b\x07]JH") {
				t.Fatalf("%s: frame carries %q", where, ansi.Strip(seq[:min(len(seq), 20)]))
			}
			rest = seq[n:]
		}
		if strings.ContainsAny(v.Content, "\x00\x07\u009b") || !utf8.ValidString(v.Content) {
			t.Errorf("%s: frame carries a control character or invalid UTF-8", where)
		}
		if len(v.WindowTitle) > 300 || strings.ContainsAny(v.WindowTitle, "\x00\x1b\x07\u009b") || !utf8.ValidString(v.WindowTitle) {
			t.Errorf("%s: window title (%d bytes) %q", where, len(v.WindowTitle), v.WindowTitle[:min(len(v.WindowTitle), 80)])
		}
	}
	check("catalog")
	for range names {
		hs.press("enter")
		check("document")
		hs.press("enter")
		check("page")
		hs.press("esc", "esc", "down")
	}
}
