package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// picker is a small modal list: single choice (file type) or several
// (element categories).
type picker struct {
	title  string
	items  []string
	multi  bool
	chosen map[int]bool
	nav    listNav
}

func newPicker(title string, items []string, multi bool, chosen map[int]bool, cursor int) *picker {
	if chosen == nil {
		chosen = map[int]bool{}
	}
	p := &picker{title: title, items: items, multi: multi, chosen: chosen}
	p.nav.setHeight(1)
	p.nav.setLen(len(items))
	p.nav.set(cursor)
	return p
}

// pickerResult is what a key did to a picker.
type pickerResult int

const (
	pickerOpen     pickerResult = iota // still open
	pickerApplied                      // closed with a choice
	pickerCanceled                     // closed without one
)

func (p *picker) update(msg tea.Msg, k KeyMap) pickerResult {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		p.nav.update(msg, k)
		return pickerOpen
	}
	switch {
	case key.Matches(km, k.Modal.Submit):
		if !p.multi {
			p.chosen = map[int]bool{p.nav.cursor: true}
		}
		return pickerApplied
	case key.Matches(km, k.Modal.Cancel, k.Nav.Back):
		return pickerCanceled
	case p.multi && key.Matches(km, k.Modal.Toggle):
		p.chosen[p.nav.cursor] = !p.chosen[p.nav.cursor]
	case p.multi && key.Matches(km, k.Modal.Clear):
		p.chosen = map[int]bool{}
	default:
		p.nav.update(msg, k)
	}
	return pickerOpen
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

// view draws the picker in a pane of at most w×h cells.
func (p *picker) view(w, h int, st Styles, k KeyMap) string {
	hint := "enter choose · esc cancel"
	if p.multi {
		hint = "space toggle · " + k.Modal.Clear.Help().Key + " all · enter apply · esc cancel"
	}
	innerW := max(24, longest(p.items)+8, ansi.StringWidth(p.title), ansi.StringWidth(hint))
	innerW = min(innerW, max(w-4, 10))
	rows := max(1, min(len(p.items), h-5))
	p.nav.setHeight(rows)
	lines := []string{st.Title.Render(cell(p.title, innerW))}
	from, to := p.nav.visible()
	for i := from; i < to; i++ {
		mark := ""
		if p.multi {
			mark = "[ ] "
			if p.chosen[i] {
				mark = "[x] "
			}
		}
		line := cell(mark+p.items[i], innerW-2)
		if i == p.nav.cursor {
			line = st.Selected.Render("▸ " + line)
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	lines = append(lines, st.Muted.Render(cell(hint, innerW)))
	return st.PaneFocused.Width(innerW + 4).Render(strings.Join(lines, "\n"))
}

func longest(items []string) int {
	n := 0
	for _, s := range items {
		n = max(n, len([]rune(s)))
	}
	return n
}
