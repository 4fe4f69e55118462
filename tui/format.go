package tui

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

func itoa(n int) string { return strconv.Itoa(n) }

// count is "1 page", "3 pages": n and the noun, plural with an s.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// parseTime reads an ISO 8601 timestamp; the zero time when it cannot.
func parseTime(s string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// relTime says how long ago t was, in the short form of file managers.
func relTime(t, now time.Time) string {
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
		return itoa(int(d/time.Minute)) + "m ago"
	case d < 24*time.Hour:
		return itoa(int(d/time.Hour)) + "h ago"
	case d < 30*24*time.Hour:
		return itoa(int(d/(24*time.Hour))) + "d ago"
	case d < 365*24*time.Hour:
		return itoa(int(d/(30*24*time.Hour))) + "mo ago"
	}
	return itoa(int(d/(365*24*time.Hour))) + "y ago"
}

// cell truncates s to w cells and pads it to exactly w.
func cell(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if sw := ansi.StringWidth(s); sw <= w {
		return s + strings.Repeat(" ", w-sw)
	}
	t := ansi.Truncate(s, w, "…")
	return t + strings.Repeat(" ", max(0, w-ansi.StringWidth(t)))
}

// cellLeft right-aligns s in w cells.
func cellLeft(s string, w int) string {
	if sw := ansi.StringWidth(s); sw < w {
		return strings.Repeat(" ", w-sw) + s
	}
	return cell(s, w)
}

// wrapText word-wraps plain text to w cells, at most maxLines lines (0 = no
// limit), the last one ending in … when text was cut.
func wrapText(s string, w, maxLines int) []string {
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

// padLines returns exactly h lines: lines cut or padded with empty ones.
func padLines(lines []string, h int) []string {
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

// rangeLabel is the "21–40 of 312" indicator for rows [from, to).
func rangeLabel(from, to, total int) string {
	if total == 0 {
		return "0 of 0"
	}
	return itoa(from+1) + "–" + itoa(to) + " of " + itoa(total)
}

// joinColumns puts right beside left (padded to leftW cells), h lines.
func joinColumns(left, right string, leftW, h int) string {
	l := padLines(strings.Split(left, "\n"), h)
	r := padLines(strings.Split(right, "\n"), h)
	out := make([]string, h)
	for i := range out {
		out[i] = cell(l[i], leftW) + " " + r[i]
	}
	return strings.Join(out, "\n")
}

// plainRow removes a row's own styling so that the selection style covers
// it evenly.
func ansiStripForSelect(s string) string { return ansi.Strip(s) }

// wrapStyledLines word-wraps plain text to w cells (at most maxLines) and
// styles every line.
func wrapStyledLines(st lipgloss.Style, text string, w, maxLines int) []string {
	lines := wrapText(text, w, maxLines)
	for i, l := range lines {
		lines[i] = st.Render(l)
	}
	return lines
}

// keywordLines shows keywords as "# a  # b" wrapped to w cells; a "#"
// stays with its keyword when the line wraps.
func keywordLines(st lipgloss.Style, keywords []string, w, maxLines int) []string {
	tags := make([]string, len(keywords))
	for i, k := range keywords {
		tags[i] = "#\u00a0" + oneLine(k)
	}
	lines := wrapText(strings.Join(tags, "  "), w, maxLines)
	for i, l := range lines {
		lines[i] = st.Render(strings.ReplaceAll(l, "\u00a0", " "))
	}
	return lines
}

// fit truncates a styled line to w cells.
func fit(s string, w int) string {
	// A cell takes at least one byte, so a line of at most w bytes fits
	// without measuring it.
	if len(s) <= w || ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// badgeFor renders a file type as a fixed-width badge such as "PDF ".
func badgeFor(s Styles, fileType string) string {
	ft := strings.ToLower(oneLine(fileType))
	label := strings.ToUpper(ft)
	if label == "" {
		label = "?"
	}
	label = ansi.Truncate(label, 4, "…") // "APA…" for apache-2.0: cut, and seen to be
	st := s.Badge
	if col, ok := s.badges[ft]; ok {
		st = st.Foreground(col)
	}
	return st.Render(label) + strings.Repeat(" ", max(0, 4-ansi.StringWidth(label)))
}

// styleInput gives a text field the theme's prompt and placeholder styles
// and a steady cursor.
func styleInput(ti *textinput.Model, s Styles) {
	st := ti.Styles()
	st.Focused.Prompt, st.Blurred.Prompt = s.Prompt, s.Prompt
	st.Focused.Placeholder, st.Blurred.Placeholder = s.Muted, s.Muted
	st.Cursor.Blink = false
	ti.SetStyles(st)
}
