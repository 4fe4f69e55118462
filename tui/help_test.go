package tui

import (
	"strings"
	"testing"
)

// Issue 23.8: the full help scrolls where it does not fit (60×20, 80×24 on
// a page): every key can be read, scrolling keys do not close it, any
// other key does.
func TestFullHelpScrollsOnASmallTerminal(t *testing.T) {
	for _, size := range [][2]int{{60, 20}, {80, 24}} {
		hs := startOn(t, newFake(), "laptop", size[0], size[1])
		hs.press("j", "j", "j", "enter", "enter", "?")
		seen := hs.screen()
		for range 30 {
			hs.press("down")
			checkFrame(t, hs.app.View().Content, size[0], size[1])
			seen += "\n" + hs.screen()
		}
		for _, want := range []string{"Keys", "quit", "history back", "history forward", "copy URI", "MCP tools", "outline", "links", "categories", "rendered/json/text"} {
			if !strings.Contains(seen, want) {
				t.Errorf("%dx%d: the help never shows %q:\n%s", size[0], size[1], want, hs.screen())
			}
		}
		hs.requireContains("any other key closes") // still open after scrolling
		lines := strings.Split(hs.screen(), "\n")
		if help := lines[len(lines)-2]; !strings.Contains(help, "↓/j down") || !strings.Contains(help, "esc close") {
			t.Errorf("%dx%d: the help line says %q while the help scrolls", size[0], size[1], help)
		}
		hs.press("g")
		hs.requireContains("Keys", "search")
		hs.press("x")
		hs.requireNotContains("history back")
		hs.requireContains("Page 1/3")
	}
}
