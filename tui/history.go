package tui

import tea "charm.land/bubbletea/v2"

// historyEntry is a screen left by going back, kept for going forward.
type historyEntry struct {
	s      screen
	linked bool
}

// maxForward bounds the screens kept for going forward.
const maxForward = 50

// pushScreen opens s on top of the stack; linked marks a screen opened by a
// link; start runs its first requests (a screen brought back by going
// forward keeps what it shows).
func (a *App) pushScreen(s screen, linked, start bool) tea.Cmd {
	a.showHelp = false
	a.stack = append(a.stack, s)
	a.linked = append(a.linked, linked)
	w, h := a.bodySize()
	cmd := s.setSize(w, h)
	if start {
		cmd = tea.Batch(cmd, s.init())
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
	if ac, ok := a.top().(activator); ok {
		return ac.activate()
	}
	return nil
}

// crumbOf is the crumb of stack entry i.
func (a *App) crumbOf(i int) string { return crumbFor(a.stack[i], a.linked[i]) }

// crumbFor is a screen's crumb: "↪ " marks one a link opened.
func crumbFor(s screen, linked bool) string {
	if !linked {
		return s.crumb()
	}
	if lc, ok := s.(linkCrumber); ok {
		return "↪ " + lc.linkCrumb()
	}
	return "↪ " + s.crumb()
}
