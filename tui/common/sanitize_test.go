package common

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

func TestOneLine(t *testing.T) {
	if got := OneLine("a\n\tb  \x1b[1mc"); got != "a b c" {
		t.Errorf("oneLine = %q", got)
	}
}

func TestSanitizeStructures(t *testing.T) {
	p := &protocol.DPEPage{
		Title: "t\x1b[2J",
		Elements: []protocol.DPEElementDetail{{
			ElementID: "e\x07", Category: "table", Summary: "s\x1b]0;x\x07",
			Content: map[string]any{
				"headers":   []any{"h\x1b[1m"},
				"rows":      []any{[]any{"c\x1b[31m", 3.5}},
				"k\x1b[0m":  "v",
				"nested":    map[string]any{"deep": []string{"\x9b1m"}},
				"go_values": [][]string{{"\x1b[4mx"}},
			},
			Metadata: map[string]any{"m": "\x00"},
		}},
	}
	got := SanitizePage(p)
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	raw := string(b)
	for _, bad := range []string{"\x1b", "\x07", "\x00", "\u009b"} {
		if strings.Contains(raw, bad) || strings.Contains(got.Title, bad) {
			t.Errorf("sanitized page still holds %q: %s", bad, raw)
		}
	}
	if p.Title != "t\x1b[2J" {
		t.Error("sanitizePage modified its input")
	}
	if _, ok := got.Elements[0].Content["k"]; !ok {
		t.Errorf("map keys are not sanitized: %v", got.Elements[0].Content)
	}
	if got.Elements[0].Content["rows"].([]any)[0].([]any)[1] != 3.5 {
		t.Error("numbers must survive sanitizing")
	}
}

// FuzzSanitize checks the properties the screen relies on for any input:
// no escape or control character survives, the result is valid UTF-8,
// sanitizing is idempotent, and text without controls is left alone.

// A search match whose line loses control sequences keeps every highlight
// on the text it marked; one the cleaning broke is dropped.
func TestSanitizeMatchMovesEveryHighlight(t *testing.T) {
	line := "a\x1b[31mb Budget, \x07the budget"
	first, second := strings.Index(line, "Budget"), strings.LastIndex(line, "budget")
	m := SanitizeMatch(protocol.SearchMatch{Line: line, Start: first, End: first + 6,
		Highlights: [][2]int{{first, first + 6}, {second, second + 6}, {1, 4}}})
	if m.Line != "ab Budget, the budget" {
		t.Fatalf("line %q", m.Line)
	}
	if got := m.Line[m.Start:m.End]; got != "Budget" {
		t.Errorf("start/end mark %q", got)
	}
	var marked []string
	for _, h := range m.Highlights {
		marked = append(marked, m.Line[h[0]:h[1]])
	}
	if strings.Join(marked, "|") != "Budget|budget" {
		t.Errorf("highlights mark %q: want the two words, the one inside the escape dropped", marked)
	}
}
