package tui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"github.com/smcp-browse/smcp-browse/tui/keymap"
)

// Overlays are hosted by the App (as crush and mcptui do): a screen asks
// for one with picker.OpenCmd or prompt.OpenCmd, the App draws it over (a
// picker) or under (a prompt) the screen and gives it the keyboard until it
// closes.

// sizeOverlays gives the open overlays the body's size.
func (a *App) sizeOverlays() {
	w, h := a.bodySize()
	if a.picker != nil {
		a.picker.SetSize(w, h)
	}
	if a.prompt != nil {
		a.prompt.SetSize(w, h)
	}
}

// shortHelp is the help line: the open overlay's keys, else the screen's.
func (a *App) shortHelp() []key.Binding {
	return a.activeKeys().ShortHelp()
}

// activeKeys is the key map of whatever has the keyboard.
func (a *App) activeKeys() help.KeyMap {
	switch {
	case a.showHelp && a.helpPg.MaxY() > 0:
		n := a.c.Keys.Nav
		return keymap.HelpKeys{Short: []key.Binding{helpClose, n.Up, n.Down, n.PageDown, n.Top}}
	case a.picker != nil:
		return a.picker
	case a.prompt != nil:
		return a.prompt
	}
	return a.top().Keys()
}

// helpClose is what the help line says while the full help is open.
var helpClose = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close"))
