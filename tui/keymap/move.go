package keymap

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Move is what a movement key or the mouse wheel asks for: a step of by
// rows (a whole page when page is set), or a jump to the top or bottom.
type Move struct {
	By                int
	Page, Top, Bottom bool
}

// MoveOf reads msg as a movement in a view h rows high.
func MoveOf(msg tea.Msg, k KeyMap, h int) (Move, bool) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, k.Nav.Down):
			return Move{By: 1}, true
		case key.Matches(msg, k.Nav.Up):
			return Move{By: -1}, true
		case key.Matches(msg, k.Nav.PageDown):
			return Move{By: max(1, h), Page: true}, true
		case key.Matches(msg, k.Nav.PageUp):
			return Move{By: -max(1, h), Page: true}, true
		case key.Matches(msg, k.Nav.HalfDown):
			return Move{By: max(1, h/2)}, true
		case key.Matches(msg, k.Nav.HalfUp):
			return Move{By: -max(1, h/2)}, true
		case key.Matches(msg, k.Nav.Top):
			return Move{Top: true}, true
		case key.Matches(msg, k.Nav.Bottom):
			return Move{Bottom: true}, true
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelDown:
			return Move{By: 3}, true
		case tea.MouseWheelUp:
			return Move{By: -3}, true
		}
	}
	return Move{}, false
}
