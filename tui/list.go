package tui

import tea "charm.land/bubbletea/v2"

// listNav is the cursor and scroll offset of a list of n rows shown h at a
// time. Only rows [top, top+h) are ever rendered.
type listNav struct {
	cursor, top, n, h int
}

func (l *listNav) setLen(n int) {
	l.n = max(n, 0)
	l.clamp()
}

func (l *listNav) setHeight(h int) {
	l.h = max(h, 1)
	l.clamp()
}

func (l *listNav) clamp() {
	l.cursor = min(max(l.cursor, 0), max(l.n-1, 0))
	if l.cursor < l.top {
		l.top = l.cursor
	}
	if l.h > 0 && l.cursor >= l.top+l.h {
		l.top = l.cursor - l.h + 1
	}
	l.top = min(max(l.top, 0), max(l.n-l.h, 0))
}

// set moves the cursor to i.
func (l *listNav) set(i int) {
	l.cursor = i
	l.clamp()
}

func (l *listNav) move(d int) { l.set(l.cursor + d) }

// visible returns the range of rows on screen.
func (l listNav) visible() (from, to int) {
	return l.top, min(l.n, l.top+l.h)
}

// update handles the movement keys and the mouse wheel.
func (l *listNav) update(msg tea.Msg, k KeyMap) bool {
	m, ok := navMoveOf(msg, k, l.h)
	if !ok {
		return false
	}
	switch {
	case m.top:
		l.set(0)
	case m.bottom:
		l.set(l.n - 1)
	default:
		if m.page {
			l.top += m.by // a page key turns the page, not only the cursor
		}
		l.move(m.by)
	}
	return true
}
