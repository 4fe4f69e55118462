package dpe

import (
	"strings"

	"github.com/mattn/go-runewidth"
)

// OneLine folds every run of white space (line breaks and tabs included)
// into one space and trims the ends, for titles, cells and labels that must
// stay on one line.
func OneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n\t\v\f") && !strings.Contains(s, "  ") && strings.TrimSpace(s) == s {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// ExpandTabs replaces every tab with the spaces that reach the next
// multiple of width columns (8 when width < 1), line by line, counting wide
// characters as two columns, so text keeps its layout on a screen that
// does not interpret tabs.
func ExpandTabs(s string, width int) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	if width < 1 {
		width = 8
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := width - col%width
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n', '\r':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col += runewidth.RuneWidth(r)
		}
	}
	return b.String()
}
