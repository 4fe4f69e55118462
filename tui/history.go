package tui

import tea "charm.land/bubbletea/v2"
import (
	"github.com/smcp-browse/smcp-browse/tui/common"
)

// historyEntry is a screen left by going back, kept for going forward.
type historyEntry struct {
	s      common.Screen
	linked bool
}

// maxForward bounds the screens kept for going forward.
const maxForward = 50

// pushScreen opens s on top of the stack; linked marks a screen opened by a
// link; start runs its first requests (a screen brought back by going
// forward keeps what it shows).
func (a *App) pushScreen(s common.Screen, linked, start bool) tea.Cmd {
	a.showHelp = false
	a.stack = append(a.stack, s)
	a.linked = append(a.linked, linked)
	w, h := a.bodySize()
	cmd := s.SetSize(w, h)
	if start {
		cmd = tea.Batch(cmd, s.Init())
	}
	return cmd
}

// popScreen goes back one screen (the root stays), keeping the screen left
// for going forward.
func (a *App) popScreen() tea.Cmd {
	n := len(a.stack)
	if n <= 1 {
		return nil
	}
	a.forward = append(a.forward, historyEntry{s: a.stack[n-1], linked: a.linked[n-1]})
	if len(a.forward) > maxForward {
		a.forward = a.forward[1:]
	}
	a.stack, a.linked = a.stack[:n-1], a.linked[:n-1]
	if ac, ok := a.top().(common.Activator); ok {
		return ac.Activate()
	}
	return nil
}

// crumbOf is the crumb of stack entry i.
func (a *App) crumbOf(i int) string { return crumbFor(a.stack[i], a.linked[i]) }

// crumbFor is a screen's crumb: "↪ " marks one a link opened.
func crumbFor(s common.Screen, linked bool) string {
	if !linked {
		return s.Crumb()
	}
	if lc, ok := s.(common.LinkCrumber); ok {
		return "↪ " + lc.LinkCrumb()
	}
	return "↪ " + s.Crumb()
}
