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
