// Package keymap holds the browser's one key map: every binding, grouped by
// where it applies, and the reading of movement keys.
package keymap

import "charm.land/bubbles/v2/key"

// KeyMap holds every key binding of the browser, grouped by where they
// apply. DefaultKeyMap gives the standard set.
type KeyMap struct {
	// Global keys work on every screen (unless a text field has the
	// keyboard).
	Global GlobalKeys
	// Nav moves in lists and pagers and opens or leaves a screen.
	Nav NavKeys
	// Catalog keys apply to a Computer's catalog.
	Catalog CatalogKeys
	// Search keys apply to the content search.
	Search SearchKeys
	// Document keys apply to a document's page index.
	Document DocumentKeys
	// Page keys apply to a rendered page.
	Page PageKeys
	// Desktop keys apply to a Computer's Desktop.
	Desktop DesktopKeys
	// Tools keys apply to a tool's call form and its result.
	Tools ToolKeys
	// Modal keys end pickers and prompts.
	Modal ModalKeys
}

// GlobalKeys are the bindings every screen shares.
type GlobalKeys struct {
	Help, Copy, Save, Pager, Edit, Desktop, Skills, Tools, Refresh, Quit key.Binding
	// HistoryBack and HistoryForward walk the history of screens left
	// (after a link or going back) like a web browser.
	HistoryBack, HistoryForward key.Binding
	// ForceQuit quits even while a text field has the keyboard.
	ForceQuit key.Binding
}

// NavKeys move through lists and pagers.
type NavKeys struct {
	Up, Down         key.Binding
	PageUp, PageDown key.Binding
	HalfUp, HalfDown key.Binding
	Top, Bottom      key.Binding
	Enter, Back      key.Binding
}

// CatalogKeys filter, sort and search a catalog.
type CatalogKeys struct {
	Filter, FileType, Sort, Search key.Binding
}

// SearchKeys act on the content search.
type SearchKeys struct {
	// Literal switches between the ranked word search and the literal
	// one.
	Literal key.Binding
}

// DocumentKeys act on a document's page index.
type DocumentKeys struct {
	Outline key.Binding
}

// PageKeys act on a rendered page.
type PageKeys struct {
	Search, NextMatch, PrevMatch key.Binding
	Elements, Focus              key.Binding
	Mode, Categories             key.Binding
	PrevPage, NextPage           key.Binding
	GoToPage                     key.Binding // ":" asks for a page; a count before G goes there too
	Outline, Links               key.Binding
}

// DesktopKeys move between a Desktop's windows.
type DesktopKeys struct {
	NextWindow, PrevWindow key.Binding
}

// ToolKeys act on a tool's call form and on its result.
type ToolKeys struct {
	// Call calls the tool with the form's arguments; Skeleton puts the
	// arguments the tool's schema requires back in the form; Back leaves
	// the form (whose text field takes the other keys of Nav.Back).
	Call, Skeleton, Back key.Binding
	// NextItem and PrevItem move between a result's content items.
	NextItem, PrevItem key.Binding
}

// ModalKeys end a picker or a prompt.
type ModalKeys struct {
	Submit, Cancel key.Binding
	// Toggle and Clear act on a multiple-choice picker.
	Toggle, Clear key.Binding
}

// DefaultKeyMap returns the browser's standard bindings (vi keys and arrows).
func DefaultKeyMap() KeyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Global: GlobalKeys{
			Help:           b([]string{"?"}, "?", "help"),
			Copy:           b([]string{"y"}, "y", "copy URI"),
			Save:           b([]string{"s"}, "s", "save .md"),
			Pager:          b([]string{"o"}, "o", "open in $PAGER"),
			Edit:           b([]string{"E"}, "E", "open in $EDITOR"),
			Desktop:        b([]string{"d"}, "d", "desktop"),
			Skills:         b([]string{"K"}, "K", "skills"),
			Tools:          b([]string{"M"}, "M", "MCP tools"),
			Refresh:        b([]string{"r"}, "r", "refresh"),
			Quit:           b([]string{"q", "ctrl+c"}, "q", "quit"),
			HistoryBack:    b([]string{"alt+left", "ctrl+o"}, "alt+←/ctrl+o", "history back"),
			HistoryForward: b([]string{"alt+right"}, "alt+→", "history forward"),
			ForceQuit:      b([]string{"ctrl+c"}, "ctrl+c", "quit"),
		},
		Nav: NavKeys{
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
		},
		Catalog: CatalogKeys{
			Filter:   b([]string{"/"}, "/", "filter"),
			FileType: b([]string{"t"}, "t", "file type"),
			Sort:     b([]string{"S"}, "S", "sort"),
			Search:   b([]string{"F"}, "F", "search content"),
		},
		Search: SearchKeys{
			Literal: b([]string{"ctrl+l"}, "ctrl+l", "words/literal"),
		},
		Document: DocumentKeys{
			Outline: b([]string{"T"}, "T", "outline"),
		},
		Page: PageKeys{
			Search:     b([]string{"/"}, "/", "search"),
			NextMatch:  b([]string{"n"}, "n", "next match"),
			PrevMatch:  b([]string{"N"}, "N", "prev match"),
			Elements:   b([]string{"e"}, "e", "elements"),
			Focus:      b([]string{"tab"}, "tab", "switch focus"),
			Mode:       b([]string{"m"}, "m", "rendered/json/text"),
			Categories: b([]string{"c"}, "c", "categories"),
			PrevPage:   b([]string{"["}, "[", "prev page"),
			NextPage:   b([]string{"]"}, "]", "next page"),
			GoToPage:   b([]string{":"}, ":/NG", "go to page N"),
			Outline:    b([]string{"T"}, "T", "outline"),
			Links:      b([]string{"L"}, "L", "links"),
		},
		Desktop: DesktopKeys{
			NextWindow: b([]string{"]"}, "]/[", "next/prev window"),
			PrevWindow: b([]string{"["}, "[", "prev window"),
		},
		Tools: ToolKeys{
			Call:     b([]string{"ctrl+s"}, "ctrl+s", "call the tool"),
			Skeleton: b([]string{"ctrl+r"}, "ctrl+r", "required arguments again"),
			Back:     b([]string{"esc"}, "esc", "back"),
			NextItem: b([]string{"]"}, "]/[", "next/prev item"),
			PrevItem: b([]string{"["}, "[", "prev item"),
		},
		Modal: ModalKeys{
			Submit: b([]string{"enter"}, "enter", "apply"),
			Cancel: b([]string{"esc"}, "esc", "cancel"),
			Toggle: b([]string{"space", "x"}, "space", "toggle"),
			Clear:  b([]string{"a"}, "a", "all"),
		},
	}
}

// HelpKeys adapts a screen's chosen bindings to help.KeyMap.
type HelpKeys struct {
	Short []key.Binding
	Full  [][]key.Binding
}

// ShortHelp implements help.KeyMap.
func (h HelpKeys) ShortHelp() []key.Binding { return h.Short }

// FullHelp implements help.KeyMap.
func (h HelpKeys) FullHelp() [][]key.Binding { return h.Full }

// GlobalHelp is the help column of the bindings every screen shares.
func (k KeyMap) GlobalHelp() []key.Binding {
	g := k.Global
	return []key.Binding{g.Help, g.Copy, g.Save, g.Pager, g.Edit, g.Desktop, g.Skills, g.Tools, g.HistoryBack, g.HistoryForward, g.Quit}
}

// ListHelp is the help column of the list-movement bindings.
func (k KeyMap) ListHelp() []key.Binding {
	n := k.Nav
	return []key.Binding{n.Up, n.Down, n.PageUp, n.PageDown, n.Top, n.Bottom, n.Enter, n.Back}
}

// ModalHelp is the short help of a text field.
func (k KeyMap) ModalHelp() HelpKeys {
	m := k.Modal
	return HelpKeys{Short: []key.Binding{m.Submit, m.Cancel}, Full: [][]key.Binding{{m.Submit, m.Cancel}}}
}
