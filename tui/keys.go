package tui

import "charm.land/bubbles/v2/key"

// KeyMap holds every key binding of the browser. Screens pick the bindings
// they use; DefaultKeyMap gives the standard set.
type KeyMap struct {
	Up, Down         key.Binding
	PageUp, PageDown key.Binding
	HalfUp, HalfDown key.Binding
	Top, Bottom      key.Binding
	Enter, Back      key.Binding

	Filter, FileType, Refresh key.Binding
	Categories, Mode          key.Binding
	PrevPage, NextPage        key.Binding
	NextMatch, PrevMatch      key.Binding
	Elements, Focus           key.Binding
	Toggle, Clear             key.Binding

	Help, Copy, Save, Pager, Desktop, Quit key.Binding
	// ForceQuit quits even while a text field has the keyboard.
	ForceQuit key.Binding
	// Submit and Cancel end a text field or a picker.
	Submit, Cancel key.Binding
}

// DefaultKeyMap returns the browser's standard bindings (vi keys and arrows).
func DefaultKeyMap() KeyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Up:       b([]string{"up", "k"}, "↑/k", "up"),
		Down:     b([]string{"down", "j"}, "↓/j", "down"),
		PageUp:   b([]string{"pgup", "b", "ctrl+b"}, "pgup/b", "page up"),
		PageDown: b([]string{"pgdown", "f", "ctrl+f", "space"}, "pgdn/f", "page down"),
		HalfUp:   b([]string{"ctrl+u", "u"}, "ctrl+u", "half page up"),
		HalfDown: b([]string{"ctrl+d"}, "ctrl+d", "half page down"),
		Top:      b([]string{"g", "home"}, "g/home", "top"),
		Bottom:   b([]string{"G", "end"}, "G/end", "bottom"),
		Enter:    b([]string{"enter", "right", "l"}, "enter/→/l", "open"),
		Back:     b([]string{"esc", "left", "h", "backspace"}, "esc/←/h", "back"),

		Filter:     b([]string{"/"}, "/", "filter"),
		FileType:   b([]string{"t"}, "t", "file type"),
		Refresh:    b([]string{"r"}, "r", "refresh"),
		Categories: b([]string{"c"}, "c", "categories"),
		Mode:       b([]string{"m"}, "m", "rendered/json/text"),
		PrevPage:   b([]string{"["}, "[", "prev page"),
		NextPage:   b([]string{"]"}, "]", "next page"),
		NextMatch:  b([]string{"n"}, "n", "next match"),
		PrevMatch:  b([]string{"N"}, "N", "prev match"),
		Elements:   b([]string{"e"}, "e", "elements"),
		Focus:      b([]string{"tab"}, "tab", "switch focus"),
		Toggle:     b([]string{"space", "x"}, "space", "toggle"),
		Clear:      b([]string{"a"}, "a", "all"),

		Help:      b([]string{"?"}, "?", "help"),
		Copy:      b([]string{"y"}, "y", "copy URI"),
		Save:      b([]string{"s"}, "s", "save .md"),
		Pager:     b([]string{"o"}, "o", "open in $PAGER"),
		Desktop:   b([]string{"d"}, "d", "desktop"),
		Quit:      b([]string{"q", "ctrl+c"}, "q", "quit"),
		ForceQuit: b([]string{"ctrl+c"}, "ctrl+c", "quit"),
		Submit:    b([]string{"enter"}, "enter", "apply"),
		Cancel:    b([]string{"esc"}, "esc", "cancel"),
	}
}

// helpKeys adapts a screen's chosen bindings to help.KeyMap.
type helpKeys struct {
	short []key.Binding
	full  [][]key.Binding
}

func (h helpKeys) ShortHelp() []key.Binding  { return h.short }
func (h helpKeys) FullHelp() [][]key.Binding { return h.full }

// globalKeys are the bindings every screen shares, as one help column.
func (k KeyMap) globalKeys() []key.Binding {
	return []key.Binding{k.Help, k.Copy, k.Save, k.Pager, k.Desktop, k.Quit}
}

// navKeys are the list-movement bindings, as one help column.
func (k KeyMap) navKeys() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Enter, k.Back}
}
