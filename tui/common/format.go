package common

import (
	"strconv"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/smcp-browse/smcp-browse/tui/styles"
)

// Itoa formats n in decimal.
func Itoa(n int) string { return strconv.Itoa(n) }

// Count is "1 page", "3 pages": n and the noun, plural with an s.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// ParseTime reads an ISO 8601 timestamp; the zero time when it cannot.
func ParseTime(s string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// RelTime says how long ago t was, in the short form of file managers.
func RelTime(t, now time.Time) string {
	if t.IsZero() {
		return "—"
	}
	d := now.Sub(t)
	switch {
	case d < -time.Minute:
		return "in future"
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return Itoa(int(d/time.Minute)) + "m ago"
	case d < 24*time.Hour:
		return Itoa(int(d/time.Hour)) + "h ago"
	case d < 30*24*time.Hour:
		return Itoa(int(d/(24*time.Hour))) + "d ago"
	case d < 365*24*time.Hour:
		return Itoa(int(d/(30*24*time.Hour))) + "mo ago"
	}
	return Itoa(int(d/(365*24*time.Hour))) + "y ago"
}

// Cell truncates s to w cells and pads it to exactly w.
func Cell(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if sw := ansi.StringWidth(s); sw <= w {
		return s + strings.Repeat(" ", w-sw)
	}
	t := ansi.Truncate(s, w, "…")
	return t + strings.Repeat(" ", max(0, w-ansi.StringWidth(t)))
}

// CellLeft right-aligns s in w cells.
func CellLeft(s string, w int) string {
	if sw := ansi.StringWidth(s); sw < w {
		return strings.Repeat(" ", w-sw) + s
	}
	return Cell(s, w)
}

// WrapText word-wraps plain text to w cells, at most maxLines lines (0 = no
// limit), the last one ending in … when text was cut.
func WrapText(s string, w, maxLines int) []string {
	if w <= 0 {
		return nil
	}
	lines := strings.Split(ansi.Wrap(s, w, ""), "\n")
	if maxLines > 0 && len(lines) > maxLines {
		lines = lines[:maxLines]
		last := lines[maxLines-1]
		lines[maxLines-1] = ansi.Truncate(last, w-1, "") + "…"
	}
	return lines
}

// PadLines returns exactly h lines: lines cut or padded with empty ones.
func PadLines(lines []string, h int) []string {
	if h <= 0 {
		return nil
	}
	if len(lines) > h {
		return lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return lines
}

// RangeLabel is the "21–40 of 312" indicator for rows [from, to).
func RangeLabel(from, to, total int) string {
	if total == 0 {
		return "0 of 0"
	}
	return Itoa(from+1) + "–" + Itoa(to) + " of " + Itoa(total)
}

// JoinColumns puts right beside left (padded to leftW cells), h lines.
func JoinColumns(left, right string, leftW, h int) string {
	l := PadLines(strings.Split(left, "\n"), h)
	r := PadLines(strings.Split(right, "\n"), h)
	out := make([]string, h)
	for i := range out {
		out[i] = Cell(l[i], leftW) + " " + r[i]
	}
	return strings.Join(out, "\n")
}

// WrapStyledLines word-wraps plain text to w cells (at most maxLines) and
// styles every line.
func WrapStyledLines(st lipgloss.Style, text string, w, maxLines int) []string {
	lines := WrapText(text, w, maxLines)
	for i, l := range lines {
		lines[i] = st.Render(l)
	}
	return lines
}

// KeywordLines shows keywords as "# a  # b" wrapped to w cells; a "#"
// stays with its keyword when the line wraps.
func KeywordLines(st lipgloss.Style, keywords []string, w, maxLines int) []string {
	tags := make([]string, len(keywords))
	for i, k := range keywords {
		tags[i] = "#\u00a0" + OneLine(k)
	}
	lines := WrapText(strings.Join(tags, "  "), w, maxLines)
	for i, l := range lines {
		lines[i] = st.Render(strings.ReplaceAll(l, "\u00a0", " "))
	}
	return lines
}

// Fit truncates a styled line to w cells.
func Fit(s string, w int) string {
	// A cell takes at least one byte, so a line of at most w bytes fits
	// without measuring it.
	if len(s) <= w || ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// BadgeFor renders a file type as a fixed-width badge such as "PDF ".
func BadgeFor(s styles.Styles, fileType string) string {
	ft := strings.ToLower(OneLine(fileType))
	label := strings.ToUpper(ft)
	if label == "" {
		label = "?"
	}
	label = ansi.Truncate(label, 4, "…") // "APA…" for apache-2.0: cut, and seen to be
	st := s.Badge
	if col, ok := s.Badges[ft]; ok {
		st = st.Foreground(col)
	}
	return st.Render(label) + strings.Repeat(" ", max(0, 4-ansi.StringWidth(label)))
}

// Bytes is a byte count for people: "812 B", "3.4 KiB", "11.2 MiB".
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return strconv.FormatFloat(float64(n)/float64(div), 'f', 1, 64) + " " + string("KMGTP"[exp]) + "iB"
}
