package common

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
)

// Screen is one page of the browser. Screens are pointers mutated by update;
// the App owns the stack and routes messages: keys and mouse to the top
// screen, everything else (responses, live events) to every screen, each of
// which ignores what it did not ask for.
type Screen interface {
	// Init starts the screen's first requests.
	Init() tea.Cmd
	// Update handles a message; it never blocks.
	Update(msg tea.Msg) tea.Cmd
	// SetSize gives the body's size.
	SetSize(w, h int) tea.Cmd
	// View draws the body: at most h lines of at most w cells.
	View() string
	// Crumb is the screen's part of the breadcrumbs.
	Crumb() string
	// Keys lists the bindings for the help views.
	Keys() help.KeyMap
	// URI is what `y` copies; "" when there is nothing.
	URI() string
	// Capturing reports that a text field or picker has the keyboard, so
	// global keys (q, ?, y ...) are typed into it instead.
	Capturing() bool
	// Status is the screen's part of the status bar (filters, position).
	Status() string
	// Computer is the Computer the screen shows ("" when none).
	Computer() string
}

// PushCmd opens s on top of the current screen.
func PushCmd(s Screen) tea.Cmd { return func() tea.Msg { return PushMsg{s} } }

// PopCmd goes back to the previous screen.
func PopCmd() tea.Msg { return PopMsg{} }

// ThemeMsg tells screens the palette changed, so cached renders are stale.
type ThemeMsg struct{}

// ReconnectedMsg asks every screen to re-read what it shows.
type ReconnectedMsg struct{}

// Activator is a screen that wants to know when it is on top again.
type Activator interface {
	Activate() tea.Cmd
}

// LinkCrumber is a screen with its own crumb for when a link opened it
// (the screens that would say which document are not on the stack then).
type LinkCrumber interface {
	LinkCrumb() string
}

// NoticeMsg sets the status bar's notice.
type NoticeMsg string

// FollowedMsg carries the screen a followed link opens, or why it cannot.
type FollowedMsg struct {
	Screen Screen
	Notice string
}

// Navigation messages screens return to the App.
type (
	PushMsg struct{ Screen Screen }
	PopMsg  struct{}
)
