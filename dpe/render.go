package dpe

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// RenderPageMarkdown renders a Level 2 page to Markdown: its elements in
// order, separated by blank lines, by the specification's rendering table.
// The page title is not repeated (pages usually open with their heading
// element); callers that want it prepend it.
func RenderPageMarkdown(p protocol.DPEPage) string {
	return joinElements(p.Elements, RenderElementMarkdown)
}

// RenderPageText renders a Level 2 page to plain text.
func RenderPageText(p protocol.DPEPage) string {
	return joinElements(p.Elements, RenderElementText)
}

func joinElements(els []protocol.DPEElementDetail, render func(protocol.DPEElementDetail) string) string {
	var b strings.Builder
	for _, e := range els {
		s := render(e)
		if s == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(s)
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
//	table    a Markdown table; | escaped as \|, newlines in cells as <br>,
//	         short rows padded with empty cells
//	list     "1." (from start) or "- " items
//	code     a fenced block with its language, the fence longer than any
//	         backtick run in the code
//	chart    [图表: {title}] {data_summary}
//	image    ![{alt}]({url}) or [图片: {description}]
//	link     [{text}]({url})
//	formula  $ {expression} $
//	other    [{category}: {summary}]
//
// Brackets in link text and alt text are escaped, and a destination with
// spaces or parentheses is written as <url>, so document text cannot break
// the construct. An element of another category without a summary shows
// its text, title or description instead ([{category}] when it has none).
func RenderElementMarkdown(e protocol.DPEElementDetail) string {
	c := content(e.Content)
	switch Category(e.Category) {
	case Heading:
		level := clamp(c.int("level", 1), 1, 6)
		return strings.Repeat("#", level) + " " + oneLine(c.str("text"))
	case Text:
		return strings.TrimRight(c.str("text"), "\n")
	case Table, PivotTable:
		return markdownTable(c.strings("headers"), c.rows("rows"))
	case List:
		return markdownList(c.bool("ordered"), max(c.int("start", 1), 0), c.strings("items"))
	case Code:
		return fenced(c.str("language"), c.str("code"))
	case Chart:
		s := "[图表: " + oneLine(c.str("title")) + "]"
		if d := c.str("data_summary"); d != "" {
			s += " " + d
		}
		return s
	case Image:
		if url := c.str("url"); url != "" {
			return "![" + linkText(c.str("alt")) + "](" + destination(url) + ")"
		}
		return "[图片: " + oneLine(c.first("description", "alt")) + "]"
	case Link:
		url := c.str("url")
		text := c.str("text")
		if text == "" {
			text = url
		}
		return "[" + linkText(text) + "](" + destination(url) + ")"
	case Formula:
		return "$ " + oneLine(c.str("expression")) + " $"
	}
	label := oneLine(e.Summary)
	if label == "" {
		label = oneLine(c.first("text", "title", "description"))
	}
	if label == "" {
		return "[" + oneLine(e.Category) + "]"
	}
	return "[" + oneLine(e.Category) + ": " + label + "]"
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

// linkText prepares link or alt text: one line, brackets escaped.
func linkText(s string) string {
	return linkTextEscaper.Replace(oneLine(s))
}

var linkTextEscaper = strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`)

// destination prepares a link destination: one line; written as <url>
// (with < and > percent-encoded) when it has spaces or parentheses, which
// would otherwise end the destination early.
func destination(url string) string {
	url = strings.TrimSpace(oneLine(url))
	if !strings.ContainsAny(url, " ()<>") {
		return url
	}
	return "<" + angleEscaper.Replace(url) + ">"
}

var angleEscaper = strings.NewReplacer("<", "%3C", ">", "%3E")

// RenderElementText renders one element to plain text: the same structure
// as Markdown without its syntax (tables as tab-separated columns).
func RenderElementText(e protocol.DPEElementDetail) string {
	c := content(e.Content)
	switch Category(e.Category) {
	case Heading:
		return oneLine(c.str("text"))
	case Text:
		return strings.TrimRight(c.str("text"), "\n")
	case Table, PivotTable:
		return textTable(c.strings("headers"), c.rows("rows"))
	case List:
		items := c.strings("items")
		ordered, start := c.bool("ordered"), max(c.int("start", 1), 0)
		lines := make([]string, len(items))
		for i, it := range items {
			if ordered {
				lines[i] = strconv.Itoa(start+i) + ". " + oneLine(it)
			} else {
				lines[i] = "• " + oneLine(it)
			}
		}
		return strings.Join(lines, "\n")
	case Code:
		return strings.TrimRight(c.str("code"), "\n")
	case Chart:
		s := "Chart: " + oneLine(c.str("title"))
		if d := c.str("data_summary"); d != "" {
			s += " — " + d
		}
		return s
	case Image:
		s := "Image: " + oneLine(c.first("description", "alt"))
		if url := c.str("url"); url != "" {
			s += " <" + oneLine(url) + ">"
		}
		return s
	case Link:
		text, url := c.str("text"), c.str("url")
		if text == "" || text == url {
			return url
		}
		return oneLine(text) + " <" + oneLine(url) + ">"
	case Formula:
		return c.str("expression")
	case Separator:
		return "----"
	}
	s := oneLine(e.Summary)
	if s == "" {
		s = oneLine(c.first("text", "title", "description"))
	}
	if s == "" {
		return oneLine(e.Category)
	}
	return oneLine(e.Category) + ": " + s
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

func clamp(n, lo, hi int) int {
	if n < lo {
		return lo
	}
	if n > hi {
		return hi
	}
	return n
}

// oneLine folds line breaks into spaces, for places where a newline would
// break the Markdown construct.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)), " ")
}

var cellEscaper = strings.NewReplacer("|", `\|`, "\r\n", "<br>", "\n", "<br>", "\r", "<br>")

func markdownTable(headers []string, rows [][]string) string {
	cols := len(headers)
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	if cols == 0 {
		return ""
	}
	var b strings.Builder
	writeRow := func(cells []string) {
		b.WriteByte('|')
		for i := 0; i < cols; i++ {
			b.WriteByte(' ')
			if i < len(cells) {
				_, _ = cellEscaper.WriteString(&b, cells[i])
			}
			b.WriteString(" |")
		}
		b.WriteByte('\n')
	}
	writeRow(headers)
	b.WriteByte('|')
	for i := 0; i < cols; i++ {
		b.WriteString(" --- |")
	}
	b.WriteByte('\n')
	for _, r := range rows {
		writeRow(r)
	}
	return strings.TrimRight(b.String(), "\n")
}

func textTable(headers []string, rows [][]string) string {
	var b strings.Builder
	write := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(strings.ReplaceAll(oneLine(c), "\t", " "))
		}
		b.WriteByte('\n')
	}
	if len(headers) > 0 {
		write(headers)
	}
	for _, r := range rows {
		write(r)
	}
	return strings.TrimRight(b.String(), "\n")
}

func markdownList(ordered bool, start int, items []string) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteByte('\n')
		}
		if ordered {
			b.WriteString(strconv.Itoa(start + i))
			b.WriteString(". ")
		} else {
			b.WriteString("- ")
		}
		b.WriteString(oneLine(it))
	}
	return b.String()
}

// fenced wraps code in a fence longer than any backtick run inside it.
func fenced(lang, code string) string {
	longest, run := 0, 0
	for _, r := range code {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	lang = strings.TrimSpace(strings.ReplaceAll(oneLine(lang), "`", ""))
	return fence + lang + "\n" + strings.TrimRight(code, "\n") + "\n" + fence
}
