// Package overlay draws a box over a screen.
package overlay

import "charm.land/lipgloss/v2"

// Place draws box centred (a third of the way down) over body.
func Place(body, box string, w, h int) string {
	bw, bh := lipgloss.Width(box), lipgloss.Height(box)
	x, y := max(0, (w-bw)/2), max(0, (h-bh)/3)
	c := lipgloss.NewCanvas(w, h)
	c.Compose(lipgloss.NewCompositor(lipgloss.NewLayer(body), lipgloss.NewLayer(box).X(x).Y(y).Z(1)))
	return c.Render()
}
