package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// navMove is what a movement key or the mouse wheel asks for: a step of by
// rows (a whole page when page is set), or a jump to the top or bottom.
type navMove struct {
	by                int
	page, top, bottom bool
}

// navMoveOf reads msg as a movement in a view h rows high.
func navMoveOf(msg tea.Msg, k KeyMap, h int) (navMove, bool) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, k.Nav.Down):
			return navMove{by: 1}, true
		case key.Matches(msg, k.Nav.Up):
			return navMove{by: -1}, true
		case key.Matches(msg, k.Nav.PageDown):
			return navMove{by: max(1, h), page: true}, true
		case key.Matches(msg, k.Nav.PageUp):
			return navMove{by: -max(1, h), page: true}, true
		case key.Matches(msg, k.Nav.HalfDown):
			return navMove{by: max(1, h/2)}, true
		case key.Matches(msg, k.Nav.HalfUp):
			return navMove{by: -max(1, h/2)}, true
		case key.Matches(msg, k.Nav.Top):
			return navMove{top: true}, true
		case key.Matches(msg, k.Nav.Bottom):
			return navMove{bottom: true}, true
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelDown:
			return navMove{by: 3}, true
		case tea.MouseWheelUp:
			return navMove{by: -3}, true
		}
	}
	return navMove{}, false
}
