// Package picker is the modal list the App shows over a screen: one choice
// or several, filterable.
package picker

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/smcp-browse/smcp-browse/internal/shorten"
	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/components/list"
)

// Item is one row of a picker.
type Item struct {
	Label  string
	Detail string // shown muted after the label (a page number, a URL)
	Indent int    // nesting level (outline headings)
}

// Model is a modal list the App shows over the screen that opened it: a
// single choice (file type, sort, a heading to jump to, a link to follow)
// or several (element categories). A filterable picker narrows its rows to
// those containing every typed word. It is a component: Update, View,
// SetSize and help.KeyMap; apply receives the chosen rows.
type Model struct {
	c          *common.Common
	title      string
	items      []Item
	Multi      bool
	Filterable bool
	Chosen     map[int]bool
	Current    int // the row marked "you are here" (-1: none)
	nav        list.Nav
	w, h       int

	query string
	shown []int // indexes of the rows the filter keeps

	apply func(sel []int) tea.Cmd
}

// New returns a picker over items with the cursor on cursor; apply
// runs (in Update) with the chosen indexes when the user confirms.
func New(c *common.Common, title string, items []Item, cursor int, apply func(sel []int) tea.Cmd) *Model {
	p := &Model{c: c, title: title, items: items, Chosen: map[int]bool{}, Current: -1, apply: apply}
	p.refilter()
	p.nav.SetHeight(1)
	p.nav.Set(cursor)
	return p
}

// refilter recomputes the rows the filter keeps, keeping the cursor on the
// same item when it survives.
func (p *Model) refilter() {
	was := -1
	if p.nav.Cursor < len(p.shown) {
		was = p.shown[p.nav.Cursor]
	}
	words := strings.Fields(strings.ToLower(p.query))
	p.shown = p.shown[:0]
	for i, it := range p.items {
		if matchesAll(it.Label+" "+it.Detail, words) {
			p.shown = append(p.shown, i)
		}
	}
	p.nav.SetLen(len(p.shown))
	for j, i := range p.shown {
		if i == was {
			p.nav.Set(j)
			return
		}
	}
	p.nav.Set(0)
}

// matchesAll reports whether s contains every lower-case word.
func matchesAll(s string, words []string) bool {
	if len(words) == 0 {
		return true
	}
	s = strings.ToLower(s)
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// SetSize gives the room the picker may take.
func (p *Model) SetSize(w, h int) { p.w, p.h = w, h }

// Update handles a key; it reports whether the picker closed, and the
// command apply returned when it closed with a choice.
func (p *Model) Update(msg tea.Msg) (tea.Cmd, bool) {
	k := p.c.Keys
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		p.nav.Update(msg, k)
		return nil, false
	}
	switch {
	case key.Matches(km, k.Modal.Submit):
		var sel []int
		if p.Multi {
			sel = p.selected()
		} else if p.nav.Cursor < len(p.shown) {
			sel = []int{p.shown[p.nav.Cursor]}
		} else {
			return nil, true // nothing left to choose
		}
		return p.apply(sel), true
	case key.Matches(km, k.Modal.Cancel):
		return nil, true
	case p.Filterable && km.Code == tea.KeyBackspace:
		if p.query != "" {
			r := []rune(p.query)
			p.query = string(r[:len(r)-1])
			p.refilter()
		}
	case p.Filterable && km.Text != "" && km.Mod&^tea.ModShift == 0 && !(p.Multi && km.Code == tea.KeySpace):
		p.query += km.Text
		p.refilter()
	case !p.Filterable && key.Matches(km, k.Nav.Back):
		return nil, true
	case p.Multi && key.Matches(km, k.Modal.Toggle) && p.nav.Cursor < len(p.shown):
		i := p.shown[p.nav.Cursor]
		p.Chosen[i] = !p.Chosen[i]
	case p.Multi && !p.Filterable && key.Matches(km, k.Modal.Clear):
		p.Chosen = map[int]bool{}
	default:
		if p.Filterable {
			// Letters are typed into the filter: only the arrows and
			// paging keys move.
			switch km.Code {
			case tea.KeyUp, tea.KeyDown, tea.KeyPgUp, tea.KeyPgDown, tea.KeyHome, tea.KeyEnd:
			default:
				return nil, false
			}
		}
		p.nav.Update(msg, k)
	}
	return nil, false
}

// selected returns the chosen indexes in order.
func (p *Model) selected() []int {
	var out []int
	for i := range p.items {
		if p.Chosen[i] {
			out = append(out, i)
		}
	}
	return out
}

func (p *Model) hint() string {
	switch {
	case p.Multi:
		return "space toggle · " + p.c.Keys.Modal.Clear.Help().Key + " all · enter apply · esc cancel"
	case p.Filterable:
		return "type to filter · ↑/↓ move · enter choose · esc cancel"
	}
	return "enter choose · esc cancel"
}

// labelFloor is the least a label keeps beside a wide detail column.
const labelFloor = 16

// View draws the picker as a box of at most w×h cells.
func (p *Model) View() string {
	st := p.c.Styles
	hint := p.hint()
	widest, labels, details := 0, 0, 0
	for _, it := range p.items {
		lw, dw := ansi.StringWidth(it.Label)+2*it.Indent, ansi.StringWidth(it.Detail)
		labels, details = max(labels, lw), max(details, dw)
		if dw > 0 {
			lw += dw + 2
		}
		widest = max(widest, lw)
	}
	innerW := max(24, widest+8, ansi.StringWidth(p.title), ansi.StringWidth(hint))
	innerW = min(innerW, max(p.w-4, 10))
	// The details (a link's target, a page number) are a column as wide as
	// the widest, before the labels get what is left down to labelFloor:
	// the target of a link is what its picker is for.
	dw := max(min(details, innerW-3-min(labels, labelFloor)), min(details, 4))
	extra := 5
	if p.Filterable {
		extra++
	}
	rows := max(1, min(len(p.items), p.h-extra))
	p.nav.SetHeight(rows)
	lines := []string{st.Title.Render(common.Cell(p.title, innerW))}
	if p.Filterable {
		q := st.Prompt.Render("› ") + p.query
		if p.query == "" {
			q = st.Prompt.Render("› ") + st.Muted.Render("type to filter")
		}
		lines = append(lines, common.Cell(q, innerW))
	}
	if len(p.shown) == 0 {
		lines = append(lines, st.Muted.Render(common.Cell("  nothing matches", innerW)))
	}
	from, to := p.nav.Visible()
	for j := from; j < to; j++ {
		i := p.shown[j]
		it := p.items[i]
		mark := ""
		if p.Multi {
			mark = "[ ] "
			if p.Chosen[i] {
				mark = "[x] "
			}
		}
		if i == p.Current {
			mark += "● "
		}
		text := strings.Repeat("  ", it.Indent) + mark + it.Label
		var line string
		if it.Detail != "" {
			line = common.Cell(text, innerW-3-dw) + " " + common.CellLeft(shorten.Middle(it.Detail, dw), dw)
		} else {
			line = common.Cell(text, innerW-2)
		}
		if j == p.nav.Cursor {
			line = st.Selected.Render("▸ " + ansi.Strip(line))
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	lines = append(lines, st.Muted.Render(common.Cell(hint, innerW)))
	return st.PaneFocused.Width(innerW + 4).Render(strings.Join(lines, "\n"))
}

// ShortHelp implements help.KeyMap.
func (p *Model) ShortHelp() []key.Binding {
	m := p.c.Keys.Modal
	if p.Multi {
		return []key.Binding{m.Toggle, m.Clear, m.Submit, m.Cancel}
	}
	return []key.Binding{p.c.Keys.Nav.Up, p.c.Keys.Nav.Down, m.Submit, m.Cancel}
}

// FullHelp implements help.KeyMap.
func (p *Model) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// OpenCmd shows p over the current screen.
func OpenCmd(p *Model) tea.Cmd { return func() tea.Msg { return OpenMsg{p} } }

// OpenMsg asks the App to show a picker over the screen.
type OpenMsg struct{ Picker *Model }
