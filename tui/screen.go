package tui

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
)

// screen is one page of the browser. Screens are pointers mutated by update;
// the App owns the stack and routes messages: keys and mouse to the top
// screen, everything else (responses, live events) to every screen, each of
// which ignores what it did not ask for.
type screen interface {
	// init starts the screen's first requests.
	init() tea.Cmd
	// update handles a message; it never blocks.
	update(msg tea.Msg) tea.Cmd
	// setSize gives the body's size.
	setSize(w, h int) tea.Cmd
	// view draws the body: at most h lines of at most w cells.
	view() string
	// crumb is the screen's part of the breadcrumbs.
	crumb() string
	// keys lists the bindings for the help views.
	keys() help.KeyMap
	// uri is what `y` copies; "" when there is nothing.
	uri() string
	// capturing reports that a text field or picker has the keyboard, so
	// global keys (q, ?, y ...) are typed into it instead.
	capturing() bool
	// status is the screen's part of the status bar (filters, position).
	status() string
	// computer is the Computer the screen shows ("" when none).
	computer() string
}

// pushCmd opens s on top of the current screen.
func pushCmd(s screen) tea.Cmd { return func() tea.Msg { return pushMsg{s} } }

// popCmd goes back to the previous screen.
func popCmd() tea.Msg { return popMsg{} }

// themeMsg tells screens the palette changed, so cached renders are stale.
type themeMsg struct{}

// reconnectedMsg asks every screen to re-read what it shows.
type reconnectedMsg struct{}

// activator is a screen that wants to know when it is on top again.
type activator interface {
	activate() tea.Cmd
}

// linkCrumber is a screen with its own crumb for when a link opened it
// (the screens that would say which document are not on the stack then).
type linkCrumber interface {
	linkCrumb() string
}

// noticeMsg sets the status bar's notice.
type noticeMsg string

// followedMsg carries the screen a followed link opens, or why it cannot.
type followedMsg struct {
	s      screen
	notice string
}

// Navigation messages screens return to the App.
type (
	pushMsg struct{ s screen }
	popMsg  struct{}
)
