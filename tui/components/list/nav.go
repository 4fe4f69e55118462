// Package list is the cursor and scroll offset of a list drawn a window of
// rows at a time.
package list

import tea "charm.land/bubbletea/v2"
import (
	"github.com/smcp-browse/smcp-browse/tui/keymap"
)

// Nav is the cursor and scroll offset of a list of n rows shown h at a
// time. Only rows [top, top+h) are ever rendered.
type Nav struct {
	Cursor, top, n, h int
}

// SetLen sets the number of rows, keeping the cursor on one.
func (l *Nav) SetLen(n int) {
	l.n = max(n, 0)
	l.clamp()
}

// SetHeight sets how many rows are shown at a time.
func (l *Nav) SetHeight(h int) {
	l.h = max(h, 1)
	l.clamp()
}

func (l *Nav) clamp() {
	l.Cursor = min(max(l.Cursor, 0), max(l.n-1, 0))
	if l.Cursor < l.top {
		l.top = l.Cursor
	}
	if l.h > 0 && l.Cursor >= l.top+l.h {
		l.top = l.Cursor - l.h + 1
	}
	l.top = min(max(l.top, 0), max(l.n-l.h, 0))
}

// Set moves the cursor to i.
func (l *Nav) Set(i int) {
	l.Cursor = i
	l.clamp()
}

func (l *Nav) move(d int) { l.Set(l.Cursor + d) }

// Visible returns the range of rows on screen.
func (l Nav) Visible() (from, to int) {
	return l.top, min(l.n, l.top+l.h)
}

// Update handles the movement keys and the mouse wheel.
func (l *Nav) Update(msg tea.Msg, k keymap.KeyMap) bool {
	m, ok := keymap.MoveOf(msg, k, l.h)
	if !ok {
		return false
	}
	switch {
	case m.Top:
		l.Set(0)
	case m.Bottom:
		l.Set(l.n - 1)
	default:
		if m.Page {
			l.top += m.By // a page key turns the page, not only the cursor
		}
		l.move(m.By)
	}
	return true
}
