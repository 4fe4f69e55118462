package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// pickerItem is one row of a picker.
type pickerItem struct {
	label  string
	detail string // shown muted after the label (a page number, a URL)
	indent int    // nesting level (outline headings)
}

// picker is a modal list the App shows over the screen that opened it: a
// single choice (file type, sort, a heading to jump to, a link to follow)
// or several (element categories). A filterable picker narrows its rows to
// those containing every typed word. It is a component: Update, View,
// SetSize and help.KeyMap; apply receives the chosen rows.
type picker struct {
	c          *common
	title      string
	items      []pickerItem
	multi      bool
	filterable bool
	chosen     map[int]bool
	current    int // the row marked "you are here" (-1: none)
	nav        listNav
	w, h       int

	query string
	shown []int // indexes of the rows the filter keeps

	apply func(sel []int) tea.Cmd
}

// newPicker returns a picker over items with the cursor on cursor; apply
// runs (in Update) with the chosen indexes when the user confirms.
func newPicker(c *common, title string, items []pickerItem, cursor int, apply func(sel []int) tea.Cmd) *picker {
	p := &picker{c: c, title: title, items: items, chosen: map[int]bool{}, current: -1, apply: apply}
	p.refilter()
	p.nav.setHeight(1)
	p.nav.set(cursor)
	return p
}

// refilter recomputes the rows the filter keeps, keeping the cursor on the
// same item when it survives.
func (p *picker) refilter() {
	was := -1
	if p.nav.cursor < len(p.shown) {
		was = p.shown[p.nav.cursor]
	}
	words := strings.Fields(strings.ToLower(p.query))
	p.shown = p.shown[:0]
	for i, it := range p.items {
		if matchesAll(it.label+" "+it.detail, words) {
			p.shown = append(p.shown, i)
		}
	}
	p.nav.setLen(len(p.shown))
	for j, i := range p.shown {
		if i == was {
			p.nav.set(j)
			return
		}
	}
	p.nav.set(0)
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
func (p *picker) SetSize(w, h int) { p.w, p.h = w, h }

// Update handles a key; it reports whether the picker closed, and the
// command apply returned when it closed with a choice.
func (p *picker) Update(msg tea.Msg) (tea.Cmd, bool) {
	k := p.c.keys
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		p.nav.update(msg, k)
		return nil, false
	}
	switch {
	case key.Matches(km, k.Modal.Submit):
		var sel []int
		if p.multi {
			sel = p.selected()
		} else if p.nav.cursor < len(p.shown) {
			sel = []int{p.shown[p.nav.cursor]}
		} else {
			return nil, true // nothing left to choose
		}
		return p.apply(sel), true
	case key.Matches(km, k.Modal.Cancel):
		return nil, true
	case p.filterable && km.Code == tea.KeyBackspace:
		if p.query != "" {
			r := []rune(p.query)
			p.query = string(r[:len(r)-1])
			p.refilter()
		}
	case p.filterable && km.Text != "" && km.Mod&^tea.ModShift == 0 && !(p.multi && km.Code == tea.KeySpace):
		p.query += km.Text
		p.refilter()
	case !p.filterable && key.Matches(km, k.Nav.Back):
		return nil, true
	case p.multi && key.Matches(km, k.Modal.Toggle) && p.nav.cursor < len(p.shown):
		i := p.shown[p.nav.cursor]
		p.chosen[i] = !p.chosen[i]
	case p.multi && !p.filterable && key.Matches(km, k.Modal.Clear):
		p.chosen = map[int]bool{}
	default:
		if p.filterable {
			// Letters are typed into the filter: only the arrows and
			// paging keys move.
			switch km.Code {
			case tea.KeyUp, tea.KeyDown, tea.KeyPgUp, tea.KeyPgDown, tea.KeyHome, tea.KeyEnd:
			default:
				return nil, false
			}
		}
		p.nav.update(msg, k)
	}
	return nil, false
}

// selected returns the chosen indexes in order.
func (p *picker) selected() []int {
	var out []int
	for i := range p.items {
		if p.chosen[i] {
			out = append(out, i)
		}
	}
	return out
}

func (p *picker) hint() string {
	switch {
	case p.multi:
		return "space toggle · " + p.c.keys.Modal.Clear.Help().Key + " all · enter apply · esc cancel"
	case p.filterable:
		return "type to filter · ↑/↓ move · enter choose · esc cancel"
	}
	return "enter choose · esc cancel"
}

// View draws the picker as a box of at most w×h cells.
func (p *picker) View() string {
	st := p.c.styles
	hint := p.hint()
	widest := 0
	for _, it := range p.items {
		wi := ansi.StringWidth(it.label) + 2*it.indent
		if it.detail != "" {
			wi += ansi.StringWidth(it.detail) + 2
		}
		widest = max(widest, wi)
	}
	innerW := max(24, widest+8, ansi.StringWidth(p.title), ansi.StringWidth(hint))
	innerW = min(innerW, max(p.w-4, 10))
	extra := 5
	if p.filterable {
		extra++
	}
	rows := max(1, min(len(p.items), p.h-extra))
	p.nav.setHeight(rows)
	lines := []string{st.Title.Render(cell(p.title, innerW))}
	if p.filterable {
		q := st.Prompt.Render("› ") + p.query
		if p.query == "" {
			q = st.Prompt.Render("› ") + st.Muted.Render("type to filter")
		}
		lines = append(lines, cell(q, innerW))
	}
	if len(p.shown) == 0 {
		lines = append(lines, st.Muted.Render(cell("  nothing matches", innerW)))
	}
	from, to := p.nav.visible()
	for j := from; j < to; j++ {
		i := p.shown[j]
		it := p.items[i]
		mark := ""
		if p.multi {
			mark = "[ ] "
			if p.chosen[i] {
				mark = "[x] "
			}
		}
		if i == p.current {
			mark += "● "
		}
		text := strings.Repeat("  ", it.indent) + mark + it.label
		var line string
		if it.detail != "" {
			dw := min(ansi.StringWidth(it.detail), max((innerW-2)/3, 4))
			line = cell(text, innerW-3-dw) + " " + cellLeft(ansi.Truncate(it.detail, dw, "…"), dw)
		} else {
			line = cell(text, innerW-2)
		}
		if j == p.nav.cursor {
			line = st.Selected.Render("▸ " + ansi.Strip(line))
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	lines = append(lines, st.Muted.Render(cell(hint, innerW)))
	return st.PaneFocused.Width(innerW + 4).Render(strings.Join(lines, "\n"))
}

// ShortHelp implements help.KeyMap.
func (p *picker) ShortHelp() []key.Binding {
	m := p.c.keys.Modal
	if p.multi {
		return []key.Binding{m.Toggle, m.Clear, m.Submit, m.Cancel}
	}
	return []key.Binding{p.c.keys.Nav.Up, p.c.keys.Nav.Down, m.Submit, m.Cancel}
}

// FullHelp implements help.KeyMap.
func (p *picker) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// openPickerCmd shows p over the current screen.
func openPickerCmd(p *picker) tea.Cmd { return func() tea.Msg { return openPickerMsg{p} } }

// openPickerMsg asks the App to show a picker over the screen.
type openPickerMsg struct{ p *picker }
