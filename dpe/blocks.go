package dpe

import (
	"strconv"
	"strings"

	"github.com/mattn/go-runewidth"
)

// maxPaddedWidth bounds the natural width a table column is padded to in
// Markdown; wider columns are left ragged rather than padding every row.
const maxPaddedWidth = 40

// markdownTable renders a table element: headers, rows (or their rich
// forms headers_markdown and rows_markdown), column alignment from align,
// cells padded to each column's natural width.
func markdownTable(c content) string {
	headers, rows := c.strings("headers"), c.rows("rows")
	hmd, rmd := c.strings("headers_markdown"), c.rows("rows_markdown")
	cols := len(headers)
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	if cols == 0 {
		return ""
	}
	cellMD := func(plain []string, rich []string, i int) string {
		if i < len(rich) && len(rich) == len(plain) {
			return cellEscaper.Replace(OneLine(rich[i]))
		}
		if i < len(plain) {
			return cellEscaper.Replace(escapeCell(plain[i]))
		}
		return ""
	}
	grid := make([][]string, 0, len(rows)+1)
	row := make([]string, cols)
	for i := range cols {
		row[i] = cellMD(headers, hmd, i)
	}
	grid = append(grid, row)
	for ri, r := range rows {
		var rich []string
		if ri < len(rmd) {
			rich = rmd[ri]
		}
		row := make([]string, cols)
		for i := range cols {
			row[i] = cellMD(r, rich, i)
		}
		grid = append(grid, row)
	}
	align := c.strings("align")
	widths := make([]int, cols)
	for i := range cols {
		widths[i] = 3
		for _, r := range grid {
			widths[i] = max(widths[i], runewidth.StringWidth(r[i]))
		}
		widths[i] = min(widths[i], maxPaddedWidth)
	}
	var b strings.Builder
	writeRow := func(cells []string) {
		b.WriteByte('|')
		for i, cell := range cells {
			b.WriteByte(' ')
			b.WriteString(pad(cell, widths[i], alignOf(align, i)))
			b.WriteString(" |")
		}
		b.WriteByte('\n')
	}
	writeRow(grid[0])
	b.WriteByte('|')
	for i := range cols {
		b.WriteByte(' ')
		a := alignOf(align, i)
		w := widths[i]
		switch a {
		case "left":
			b.WriteString(":" + strings.Repeat("-", w-1))
		case "right":
			b.WriteString(strings.Repeat("-", w-1) + ":")
		case "center":
			b.WriteString(":" + strings.Repeat("-", w-2) + ":")
		default:
			b.WriteString(strings.Repeat("-", w))
		}
		b.WriteString(" |")
	}
	b.WriteByte('\n')
	for _, r := range grid[1:] {
		writeRow(r)
	}
	return strings.TrimRight(b.String(), "\n")
}

// escapeCell escapes a plain-text cell; its line breaks become <br>.
func escapeCell(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = EscapeSpan(strings.TrimSpace(l))
	}
	return strings.Join(lines, "<br>")
}

var cellEscaper = strings.NewReplacer("\r\n", "<br>", "\n", "<br>", "\r", "<br>")

func alignOf(align []string, i int) string {
	if i < len(align) {
		return strings.ToLower(align[i])
	}
	return ""
}

// pad pads s to w columns, on the side its alignment calls for.
func pad(s string, w int, align string) string {
	n := w - runewidth.StringWidth(s)
	if n <= 0 {
		return s
	}
	switch align {
	case "right":
		return strings.Repeat(" ", n) + s
	case "center":
		return strings.Repeat(" ", n/2) + s + strings.Repeat(" ", n-n/2)
	}
	return s + strings.Repeat(" ", n)
}

// textTable renders a table as tab-separated lines.
func textTable(headers []string, rows [][]string) string {
	var b strings.Builder
	write := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(OneLine(c))
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

// listLevel is the nesting level of item i (content key "levels").
func listLevel(c content, i int) int {
	if lv := c.ints("levels"); i < len(lv) {
		return clamp(lv[i], 0, 16)
	}
	return 0
}

// marker is the Markdown list marker of item i: its own from "markers", or
// "1." counted from start for an ordered list, or "-".
func marker(c content, i int) string {
	if m := c.strings("markers"); i < len(m) && validMarker(m[i]) {
		return m[i]
	}
	if c.bool("ordered") && (len(c.ints("levels")) == 0 || listLevel(c, i) == 0) {
		return strconv.Itoa(max(c.int("start", 1), 0)+topIndex(c, i)) + "."
	}
	return "-"
}

// topIndex counts the top-level items before item i.
func topIndex(c content, i int) int {
	if len(c.ints("levels")) == 0 {
		return i
	}
	n := 0
	for j := 0; j < i; j++ {
		if listLevel(c, j) == 0 {
			n++
		}
	}
	return n
}

// validMarker accepts "-", "*", "+" and "N." / "N)" with up to 9 digits.
func validMarker(m string) bool {
	switch m {
	case "-", "*", "+":
		return true
	}
	if len(m) < 2 || len(m) > 10 || (m[len(m)-1] != '.' && m[len(m)-1] != ')') {
		return false
	}
	for _, r := range m[:len(m)-1] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// textMarker is the plain-text marker of item i: the number of an ordered
// item, a bullet otherwise.
func textMarker(c content, i int) string {
	m := marker(c, i)
	if m == "-" || m == "*" || m == "+" {
		return "•"
	}
	return m
}

// markdownList renders a list element: each item after its marker,
// nested items indented four columns per level (enough for markers up to
// "99." to keep them inside their parent), continuation lines of an item
// indented to its text.
func markdownList(c content) string {
	items := c.strings("items")
	rich := c.strings("items_markdown")
	if len(rich) != len(items) {
		rich = nil
	}
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteByte('\n')
		}
		indent := strings.Repeat(" ", 4*listLevel(c, i))
		m := marker(c, i)
		body := ""
		if rich != nil {
			body = strings.TrimSpace(rich[i])
		} else {
			body = EscapeInline(it)
		}
		cont := "\n" + indent + strings.Repeat(" ", len(m)+1)
		b.WriteString(indent + m + " " + strings.ReplaceAll(body, "\n", cont))
	}
	return b.String()
}

// fenced wraps code in a fence longer than any backtick run inside it.
func fenced(lang, code string) string {
	fence := strings.Repeat("`", max(3, longestRun(code, '`')+1))
	lang = strings.TrimSpace(strings.ReplaceAll(OneLine(lang), "`", ""))
	return fence + lang + "\n" + strings.TrimSuffix(code, "\n") + "\n" + fence
}
