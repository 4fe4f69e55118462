package tui

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
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

// rangeLabel is the "21–40 of 312" indicator for rows [from, to).
func rangeLabel(from, to, total int) string {
	if total == 0 {
		return "0 of 0"
	}
	return itoa(from+1) + "–" + itoa(to) + " of " + itoa(total)
}
