package dpe

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"golang.org/x/net/html"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// commonMarkText renders Markdown with goldmark (CommonMark + GFM, the
// renderer glamour uses) and returns the text a reader of the HTML sees:
// one line per <br> or block.
func commonMarkText(t *testing.T, md string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(md), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
		case n.Type == html.ElementNode && n.Data == "br":
			b.WriteString("\n")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode && (n.Data == "p" || n.Data == "li" || strings.HasPrefix(n.Data, "h") && len(n.Data) == 2) {
			b.WriteString("\n")
		}
	}
	walk(doc)
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, strings.ReplaceAll(l, "\u00a0", " "))
		}
	}
	return strings.Join(lines, "\n")
}

// traps are plain-text lines that a Markdown renderer would change.
var traps = []string{
	"Use <name> as placeholder, a*b*c math, _under_ and __dunder__",
	"# not a heading",
	"1) not a list",
	"2. nor this",
	"- nor a bullet",
	"+ nor this",
	"> not a quote",
	"    indented four: not code",
	"\tindented by a tab",
	"=====",
	"-----",
	"***",
	"`not code` and ``x``",
	"[not a link](http://example.com) ![nor image](x.png)",
	"&amp; stays &amp; and &#39; too",
	"| a | b |",
	"|---|---|",
	"~~not struck~~ ~x~",
	"trailing backslash \\",
	"<!-- not a comment -->",
	"<div>not html</div>",
	"https://example.com/a_b_c stays",
	":smile: is not an emoji",
	"snake_case_name and C:\\path\\to",
	"<https://example.com>",
	"[^1] not a footnote",
	"<0@0> and <user.name+tag@example.org> are not mail links",
	"a header for",
	":-",
	"nor a one-column table",
	":---:",
}

func TestEscapeTextShowsPlainTextLiterally(t *testing.T) {
	src := strings.Join(traps, "\n")
	got := commonMarkText(t, EscapeText(src))
	want := strings.ReplaceAll(ExpandTabs(src, 8), "\t", " ")
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(gl), len(wl)) {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("line %d: renderer shows %q, the text is %q\nMarkdown: %s", i+1, g, w, strings.Split(EscapeText(src), "\n")[min(i, len(gl)-1)])
		}
	}
}

func TestEscapeTextKeepsParagraphs(t *testing.T) {
	if got, want := EscapeText("a\nb\n\nc"), "a\\\nb\n\nc"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTextElementsAreLiteralInMarkdown(t *testing.T) {
	// Heading, list item and table cell text goes through the same escaping.
	for _, e := range []protocol.DPEElementDetail{
		{Category: "heading", Content: map[string]any{"level": 2, "text": "Use <name> a*b*c"}},
		{Category: "list", Content: map[string]any{"items": []string{"Use <name> a*b*c"}}},
		{Category: "table", Content: map[string]any{"headers": []string{"Use <name> a*b*c"}, "rows": [][]string{}}},
	} {
		md := RenderElementMarkdown(e)
		if got := commonMarkText(t, md); !strings.Contains(got, "Use <name> a*b*c") {
			t.Errorf("%s: %q shows as %q", e.Category, md, got)
		}
	}
}

func TestCodeSpan(t *testing.T) {
	for in, want := range map[string]string{
		"/godebug/<name>:events": "`/godebug/<name>:events`",
		"a`b":                    "``a`b``",
		"`x`":                    "`` `x` ``",
	} {
		if got := CodeSpan(in); got != want {
			t.Errorf("CodeSpan(%q) = %q, want %q", in, got, want)
		}
		if got := commonMarkText(t, CodeSpan(in)); got != in {
			t.Errorf("CodeSpan(%q) shows as %q", in, got)
		}
	}
}

func TestExpandTabs(t *testing.T) {
	for in, want := range map[string]string{
		"\tx":            "        x",
		"ab\tc":          "ab      c",
		"//\tgo tool":    "//      go tool",
		"a\n\tb":         "a\n        b",
		"中\tx":           "中      x", // a wide character takes two columns
		"Month\tRevenue": "Month   Revenue",
		"12345678\tnext": "12345678        next",
		"no tabs at all": "no tabs at all",
	} {
		if got := ExpandTabs(in, 8); got != want {
			t.Errorf("ExpandTabs(%q) = %q, want %q", in, got, want)
		}
	}
	if got := ExpandTabs("\tx", 4); got != "    x" {
		t.Errorf("width 4: %q", got)
	}
}

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{"a\n b\t\tc ": "a b c", "plain": "plain", " x ": "x"} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzEscapeText checks that any printable text, escaped, is shown by a
// CommonMark renderer exactly as it is (modulo tabs and blank lines).
func FuzzEscapeText(f *testing.F) {
	for _, s := range traps {
		f.Add(s)
	}
	f.Add("a\n\n  b\tc\n")
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool {
			return (unicode.IsControl(r) && r != '\n' && r != '\t') || r == '\r' || r == nbsp || unicode.IsSpace(r) && r != ' ' && r != '\n' && r != '\t'
		}) {
			t.Skip()
		}
		var want []string
		for _, l := range strings.Split(ExpandTabs(s, 8), "\n") {
			if l = strings.TrimRight(strings.ReplaceAll(l, "\t", " "), " "); strings.TrimSpace(l) != "" {
				want = append(want, l)
			}
		}
		var got []string
		for _, l := range strings.Split(ExpandTabs(commonMarkText(t, EscapeText(s)), 8), "\n") {
			if l = strings.TrimRight(l, " "); l != "" {
				got = append(got, l)
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("text %q\nescaped %q\nshows %q", s, EscapeText(s), got)
		}
	})
}

// TestPortableReadsAsWritten: Markdown for a file or an agent (Portable)
// shows the same text as the screen's, with none of the character
// references glamour needs ("https&#58;//www&#46;gnu.org", 302 of them in
// one saved manual): a URL reads as itself, the other escapes are
// backslashes, and code is left as it is.
func TestPortableReadsAsWritten(t *testing.T) {
	lines := append(slices.Clone(traps),
		"Read https://www.gnu.org/licenses/gpl.html and www.example.org/a today.",
		"the text &#58; and &copy; and ~tilde~ and = at the end =",
		"= at the start",
	)
	src := strings.Join(lines, "\n")
	screen := EscapeText(src)
	portable := Portable(screen)
	for _, ref := range []string{"&#58;", "&#46;", "&#126;", "&#61;"} {
		// (the text's own "&#58;" reads "\&#58;": an escaped '&')
		if strings.Contains(strings.ReplaceAll(portable, `\&`, ""), ref) {
			t.Errorf("portable Markdown still holds %s:\n%s", ref, portable)
		}
	}
	if !strings.Contains(portable, "https://www.gnu.org/licenses/gpl.html") {
		t.Errorf("the URL does not read as itself:\n%s", portable)
	}
	if got, want := commonMarkText(t, portable), commonMarkText(t, screen); got != want {
		t.Errorf("portable Markdown shows\n%s\nthe screen's\n%s", got, want)
	}
	// Code blocks and code spans are the document's text: as they are.
	for _, md := range []string{
		RenderElementMarkdown(protocol.DPEElementDetail{Category: "code", Content: map[string]any{"language": "html", "code": "a &#58; b &#38; c\n```\n&#126;"}}),
		"text " + CodeSpan("x &#58; y") + " more &#58; text",
	} {
		got := Portable(md)
		if strings.Contains(md, "```html") && got != md {
			t.Errorf("a code block changed:\n%s\n->\n%s", md, got)
		}
		if strings.HasPrefix(md, "text ") && got != "text "+CodeSpan("x &#58; y")+` more \: text` {
			t.Errorf("a code span changed: %q -> %q", md, got)
		}
	}
}
