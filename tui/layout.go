package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

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

// overlay draws box centred (a third of the way down) over body.
func overlay(body, box string, w, h int) string {
	bw, bh := lipgloss.Width(box), lipgloss.Height(box)
	x, y := max(0, (w-bw)/2), max(0, (h-bh)/3)
	c := lipgloss.NewCanvas(w, h)
	c.Compose(lipgloss.NewCompositor(lipgloss.NewLayer(body), lipgloss.NewLayer(box).X(x).Y(y).Z(1)))
	return c.Render()
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
