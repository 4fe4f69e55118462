package render

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Tabs must not vanish on screen: Go source keeps its indentation and a
// tab-separated table keeps its columns, in every view mode.
func TestTabsAreExpandedOnScreen(t *testing.T) {
	code := protocol.DPEPage{Elements: []protocol.DPEElementDetail{{ElementID: "code-0-1", Category: "code",
		Content: map[string]any{"language": "go", "code": "// Usage:\n//\tgo tool addr2line binary\nfunc f() {\n\treturn\n}"}}}}
	table := protocol.DPEPage{Elements: []protocol.DPEElementDetail{{ElementID: "tbl-0-1", Category: "table",
		Content: map[string]any{"headers": []any{"Month", "Revenue (k$)", "Growth"}, "rows": []any{[]any{"July", "1,250", "+4%"}}}}}}
	screens := map[string]string{
		"rendered code": Markdown(dpe.RenderPageMarkdown(code), 80, "notty"),
		"text code":     Wrap(dpe.RenderPageText(code), 80),
		"text table":    Wrap(dpe.RenderPageText(table), 80),
	}
	for name, s := range screens {
		if strings.Contains(s, "\t") {
			t.Errorf("%s: a tab reaches the screen:\n%s", name, s)
		}
	}
	for name, want := range map[string]string{
		"rendered code": "//      go tool addr2line binary",
		"text code":     "//      go tool addr2line binary",
	} {
		if !strings.Contains(ansi.Strip(screens[name]), want) {
			t.Errorf("%s lacks %q:\n%s", name, want, screens[name])
		}
	}
	if !strings.Contains(ansi.Strip(screens["rendered code"]), "        return") {
		t.Errorf("rendered code lost its indentation:\n%s", screens["rendered code"])
	}
	if !strings.Contains(screens["text table"], "Month   Revenue (k$)    Growth") {
		t.Errorf("text table columns run together:\n%s", screens["text table"])
	}
}

// A text file's lines stay lines in the rendered view, and its Markdown
// look-alikes stay literal.
func TestRenderedPlainTextKeepsItsLines(t *testing.T) {
	p := protocol.DPEPage{Elements: []protocol.DPEElementDetail{{ElementID: "txt-0-1", Category: "text",
		Content: map[string]any{"text": "Use <name> here, a*b*c\n# not a heading\n1) not a list\n\tTabbed\tcolumns"}}}}
	var lines []string
	for _, l := range strings.Split(ansi.Strip(Markdown(dpe.RenderPageMarkdown(p), 80, "notty")), "\n") {
		lines = append(lines, strings.TrimRight(l, " "))
	}
	want := []string{"  Use <name> here, a*b*c", "  # not a heading", "  1) not a list", "          Tabbed  columns"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("rendered lines %q, want %q", lines, want)
	}
}

// A relative image or link path is shown as written, not as "/img/a.png".
func TestRelativePathsShownAsWritten(t *testing.T) {
	out := ansi.Strip(Markdown("![diagram](img/arch.png) and [guide](docs/guide.md)", 80, "notty"))
	for _, want := range []string{"img/arch.png", "docs/guide.md"} {
		if !strings.Contains(out, want) || strings.Contains(out, "/"+want) {
			t.Errorf("rendered %q: want %q as written", out, want)
		}
	}
}

// Plain text escaped by dpe shows on screen as it is in the file: glamour,
// unlike goldmark's HTML, shows the backslash before punctuation no inline
// parser starts on ("\=", "\:", "\~", "\&"), so dpe must not escape those
// with one. Every ASCII punctuation character is tried inside a line and
// at its start, with the look-alikes of Markdown syntax and URLs (an
// autolink shows its text raw, and "www." with "http://" added).
func TestEscapedTextShowsLiterallyOnScreen(t *testing.T) {
	const punct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
	src := []string{"a " + punct + " b", "x" + punct, "=====", "a header over", ":-", ":---:", "~~~",
		"~~not struck~~", "&amp; &#39; &copy", ":smile: and 08:30:00", "<0@0> <b> <!-- c -->", `C:\path\`, "a  b",
		"see http://a.b/?x=1&copy=2~3 and HTTPS://c.d/:smile: ok", "www.example.com/a~b is no http://www.example.com"}
	for _, c := range punct {
		src = append(src, string(c)+"x "+string(c))
	}
	screen := ansi.Strip(Markdown(dpe.EscapeText(strings.Join(src, "\n")), 200, "notty"))
	var got []string
	for _, l := range strings.Split(screen, "\n") {
		got = append(got, strings.TrimPrefix(strings.TrimRight(l, " "), "  "))
	}
	if len(got) != len(src) {
		t.Fatalf("%d lines on screen for %d in the text:\n%s", len(got), len(src), screen)
	}
	for i := range src {
		if got[i] != src[i] {
			t.Errorf("line %d on screen %q, in the text %q", i+1, got[i], src[i])
		}
	}
}
