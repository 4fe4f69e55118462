package dpe

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// RenderPageMarkdown renders a Level 2 page to Markdown: its elements in
// order, separated by blank lines, by the specification's rendering table
// (see RenderElementMarkdown). Consecutive elements of one blockquote stay
// one quote; an element shown inside another one's Markdown (a link or an
// image of a paragraph, content key "within") is not repeated when that
// element is on the page. The page title is not repeated (pages usually
// open with their heading element); callers that want it prepend it.
func RenderPageMarkdown(p protocol.DPEPage) string {
	return joinElements(p.Elements, RenderElementMarkdown, "> ")
}

// RenderPageText renders a Level 2 page to plain text.
func RenderPageText(p protocol.DPEPage) string {
	return joinElements(p.Elements, RenderElementText, "> ")
}

func joinElements(els []protocol.DPEElementDetail, render func(protocol.DPEElementDetail) string, quoteMark string) string {
	ids := make(map[string]bool, len(els))
	for _, e := range els {
		ids[e.ElementID] = true
	}
	var b strings.Builder
	prevQuote := 0
	for _, e := range els {
		c := content(e.Content)
		if w := c.str("within"); w != "" && w != e.ElementID && ids[w] {
			continue
		}
		s := render(e)
		if s == "" {
			continue
		}
		q := c.depth("quote")
		if b.Len() > 0 {
			b.WriteByte('\n')
			if shared := min(q, prevQuote); shared > 0 {
				b.WriteString(strings.TrimRight(strings.Repeat(quoteMark, shared), " "))
			}
			b.WriteByte('\n')
		}
		b.WriteString(s)
		prevQuote = q
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	return b.String()
}

// RenderElementMarkdown renders one element to Markdown:
//
//	heading  # / ## / ... by level (clamped to 1-6)
//	text     the text, paragraph breaks kept
//	table    a Markdown table with its column alignment, cells padded to
//	         their natural width; | escaped as \|, newlines in cells as <br>,
//	         short rows padded with empty cells
//	list     "1." (from start) or "- " items, nested items indented by
//	         their level
//	code     a fenced block with its language, the fence longer than any
//	         backtick run in the code
//	chart    [图表: {title}] {data_summary}
//	image    ![{alt}]({url}) or [图片: {description}]; a description that
//	         says more than the alt text is the image's "title"
//	link     [{text}]({url})
//	formula  $ {expression} $, after its `cell` and before "→ value" when
//	         the element has them
//	separator ---
//	other    [{category}: {summary}]
//
// Text from the element is plain text and is escaped (EscapeText), so a
// renderer shows it as it is: "a*b*c" stays "a*b*c" and "<name>" stays
// "<name>". An element that carries its rich form (the "markdown" keys, see
// category.go) is rendered from it instead, so emphasis, code spans and
// inline links survive. Elements with "quote" are prefixed with "> " per
// level and elements with "indent" are indented four columns per level, so
// that they stay inside the list item they belong to.
func RenderElementMarkdown(e protocol.DPEElementDetail) string {
	c := content(e.Content)
	return block(elementMarkdown(e, c), c.depth("quote"), c.depth("indent"), "> ", 4)
}

func elementMarkdown(e protocol.DPEElementDetail, c content) string {
	switch Category(e.Category) {
	case Heading:
		level := clamp(c.int("level", 1), 1, 6)
		t := OneLine(c.str("markdown"))
		if t == "" {
			t = EscapeSpan(OneLine(c.str("text")))
		}
		if strings.HasSuffix(t, "#") && !strings.HasSuffix(t, "\\#") {
			t = t[:len(t)-1] + "\\#" // not a closing sequence
		}
		return strings.Repeat("#", level) + " " + t
	case Text:
		if md := c.str("markdown"); md != "" {
			return strings.TrimRight(md, "\n")
		}
		return EscapeText(c.str("text"))
	case Table, PivotTable:
		return markdownTable(c)
	case List:
		return markdownList(c)
	case Code:
		return fenced(c.str("language"), c.str("code"))
	case Chart:
		s := "[图表: " + EscapeSpan(OneLine(c.str("title"))) + "]"
		if d := c.str("data_summary"); d != "" {
			s += " " + EscapeSpan(OneLine(d))
		}
		return s
	case Image:
		if url := c.str("url"); url != "" {
			return "![" + linkText(c.str("alt")) + "](" + destination(url) + imageTitle(c) + ")"
		}
		return "[图片: " + EscapeSpan(OneLine(c.first("description", "alt"))) + "]"
	case Link:
		url := c.str("url")
		text := c.str("text")
		if text == "" {
			text = url
		}
		return "[" + linkText(text) + "](" + destination(url) + ")"
	case Formula:
		s := "$ " + EscapeSpan(OneLine(c.str("expression"))) + " $"
		if cell := c.str("cell"); cell != "" {
			s = CodeSpan(OneLine(cell)) + " " + s
		}
		if v := c.str("value"); v != "" {
			s += " → " + EscapeSpan(OneLine(v))
		}
		return s
	case Separator:
		return "---"
	}
	label := fallbackLabel(e, c)
	if label == "" {
		return "[" + EscapeSpan(OneLine(e.Category)) + "]"
	}
	return "[" + EscapeSpan(OneLine(e.Category)) + ": " + EscapeSpan(label) + "]"
}

// block prefixes every line of s with the quote marks of depth quote and
// the indentation of depth indent (width columns per level).
func block(s string, quote, indent int, quoteMark string, width int) string {
	if s == "" || (quote == 0 && indent == 0) {
		return s
	}
	prefix := strings.Repeat(quoteMark, quote)
	pad := strings.Repeat(" ", width*indent)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l == "" {
			lines[i] = strings.TrimRight(prefix, " ")
			continue
		}
		lines[i] = prefix + pad + l
	}
	return strings.Join(lines, "\n")
}

// fallbackLabel is the one-line label of an element no category case
// renders: its summary, else its text, title or description.
func fallbackLabel(e protocol.DPEElementDetail, c content) string {
	if s := OneLine(e.Summary); s != "" {
		return s
	}
	return OneLine(c.first("text", "title", "description"))
}

// first returns the first non-empty string value among keys.
func (c content) first(keys ...string) string {
	for _, k := range keys {
		if s := c.str(k); s != "" {
			return s
		}
	}
	return ""
}

// linkText prepares link or alt text: one line, escaped (a URL in it is
// no autolink: links do not nest).
func linkText(s string) string {
	var b strings.Builder
	escapeSpan(&b, OneLine(s), false)
	return b.String()
}

// destination prepares a link destination: one line; written as <url>
// (with < and > percent-encoded) when it has spaces or parentheses, which
// would otherwise end the destination early.
// imageTitle is the ` "title"` of an image's Markdown: its description
// when it says more than the alt text (an HTML or Markdown image's title).
func imageTitle(c content) string {
	d := OneLine(c.str("description"))
	if d == "" || d == OneLine(c.str("alt")) {
		return ""
	}
	return ` "` + titleEscaper.Replace(d) + `"`
}

var titleEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

func destination(url string) string {
	url = strings.TrimSpace(OneLine(url))
	if !strings.ContainsAny(url, " ()<>") {
		return url
	}
	return "<" + angleEscaper.Replace(url) + ">"
}

var angleEscaper = strings.NewReplacer("<", "%3C", ">", "%3E")

// RenderElementText renders one element to plain text: the same structure
// as Markdown without its syntax (tables as tab-separated columns, nested
// list items indented two spaces per level, quoted elements after "> ").
func RenderElementText(e protocol.DPEElementDetail) string {
	c := content(e.Content)
	return block(elementText(e, c), c.depth("quote"), c.depth("indent"), "> ", 2)
}

func elementText(e protocol.DPEElementDetail, c content) string {
	switch Category(e.Category) {
	case Heading:
		return OneLine(c.str("text"))
	case Text:
		return strings.TrimRight(c.str("text"), "\n")
	case Table, PivotTable:
		return textTable(c.strings("headers"), c.rows("rows"))
	case List:
		items := c.strings("items")
		lines := make([]string, len(items))
		for i, it := range items {
			lines[i] = strings.Repeat("  ", listLevel(c, i)) + textMarker(c, i) + " " + OneLine(it)
		}
		return strings.Join(lines, "\n")
	case Code:
		return strings.TrimSuffix(c.str("code"), "\n") // blank lines at its end are content
	case Chart:
		s := "Chart: " + OneLine(c.str("title"))
		if d := c.str("data_summary"); d != "" {
			s += " — " + d
		}
		return s
	case Image:
		s := "Image: " + OneLine(c.first("description", "alt"))
		if url := c.str("url"); url != "" {
			s += " <" + OneLine(url) + ">"
		}
		return s
	case Link:
		text, url := c.str("text"), c.str("url")
		if text == "" || text == url {
			return url
		}
		return OneLine(text) + " <" + OneLine(url) + ">"
	case Formula:
		s := c.str("expression")
		if cell := c.str("cell"); cell != "" {
			s = OneLine(cell) + ": " + s
		}
		if v := c.str("value"); v != "" {
			s += " → " + v
		}
		return s
	case Separator:
		return "----"
	}
	s := fallbackLabel(e, c)
	if s == "" {
		return OneLine(e.Category)
	}
	return OneLine(e.Category) + ": " + s
}

// content reads the loosely typed content object of an element: values come
// from JSON (float64, []any) or from Go callers ([]string, [][]string, int).
type content map[string]any

func (c content) str(key string) string { return valueString(c[key]) }

// valueString renders a scalar content value as text.
func valueString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case json.Number:
		return v.String()
	default:
		return fmt.Sprint(v)
	}
}

func (c content) int(key string, def int) int {
	switch v := c[key].(type) {
	case float64:
		return int(v)
	case int:
		return v
	case int64:
		return int(v)
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return int(n)
		}
	case string:
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return def
}

func (c content) bool(key string) bool {
	switch v := c[key].(type) {
	case bool:
		return v
	case string:
		b, _ := strconv.ParseBool(v)
		return b
	case float64:
		return v != 0
	case int:
		return v != 0
	}
	return false
}

func (c content) strings(key string) []string { return toStrings(c[key]) }

func (c content) rows(key string) [][]string {
	switch v := c[key].(type) {
	case [][]string:
		return v
	case [][]any:
		rows := make([][]string, len(v))
		for i, r := range v {
			rows[i] = toStrings(r)
		}
		return rows
	case []any:
		rows := make([][]string, 0, len(v))
		for _, r := range v {
			rows = append(rows, toStrings(r))
		}
		return rows
	}
	return nil
}

func toStrings(v any) []string {
	switch v := v.(type) {
	case []string:
		return v
	case []any:
		out := make([]string, len(v))
		for i, x := range v {
			out[i] = valueString(x)
		}
		return out
	}
	return nil
}

// ints reads a list of integers.
func (c content) ints(key string) []int {
	switch v := c[key].(type) {
	case []int:
		return v
	case []any:
		out := make([]int, len(v))
		for i, x := range v {
			out[i] = content{"x": x}.int("x", 0)
		}
		return out
	}
	return nil
}

// depth reads a nesting depth ("quote", "indent"): an integer, or true
// for 1.
func (c content) depth(key string) int {
	if b, ok := c[key].(bool); ok {
		if b {
			return 1
		}
		return 0
	}
	return clamp(c.int(key, 0), 0, 16)
}

func clamp(n, lo, hi int) int {
	if n < lo {
		return lo
	}
	if n > hi {
		return hi
	}
	return n
}
