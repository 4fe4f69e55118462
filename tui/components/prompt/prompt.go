// Package prompt is the one-line text field the App shows under a screen.
package prompt

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/tui/common"
)

// Model is a one-line text field the App shows under the screen that
// opened it (search on a page, a content search), like a pager's command
// line. It is a component: Update, View, SetSize and help.KeyMap. The
// callbacks run in Update: Change after every edit, Submit on enter,
// Cancel on esc.
type Model struct {
	c      *common.Common
	input  textinput.Model
	Change func(v string) tea.Cmd
	Submit func(v string) tea.Cmd
	Cancel func() tea.Cmd
}

// New returns a prompt showing label and starting with value.
func New(c *common.Common, label, placeholder, value string) *Model {
	ti := textinput.New()
	ti.Prompt = label
	ti.Placeholder = placeholder
	ti.CharLimit = 256
	p := &Model{c: c, input: ti}
	p.restyle()
	p.input.SetValue(value)
	p.input.CursorEnd()
	return p
}

func (p *Model) restyle() { p.c.Styles.StyleInput(&p.input) }

// Init focuses the field.
func (p *Model) Init() tea.Cmd { return p.input.Focus() }

// SetSize gives the field its width.
func (p *Model) SetSize(w, _ int) { p.input.SetWidth(max(10, w-len([]rune(p.input.Prompt))-2)) }

// Update handles a key; it reports whether the prompt closed.
func (p *Model) Update(msg tea.Msg) (tea.Cmd, bool) {
	if _, ok := msg.(common.ThemeMsg); ok {
		p.restyle()
		return nil, false
	}
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	k := p.c.Keys.Modal
	switch {
	case key.Matches(km, k.Submit):
		p.input.Blur()
		if p.Submit != nil {
			return p.Submit(p.input.Value()), true
		}
		return nil, true
	case key.Matches(km, k.Cancel):
		p.input.Blur()
		if p.Cancel != nil {
			return p.Cancel(), true
		}
		return nil, true
	}
	old := p.input.Value()
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	if v := p.input.Value(); v != old && p.Change != nil {
		cmd = tea.Batch(cmd, p.Change(v))
	}
	return cmd, false
}

// View draws the field.
func (p *Model) View() string { return p.input.View() }

// ShortHelp implements help.KeyMap.
func (p *Model) ShortHelp() []key.Binding {
	return []key.Binding{p.c.Keys.Modal.Submit, p.c.Keys.Modal.Cancel}
}

// FullHelp implements help.KeyMap.
func (p *Model) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// OpenCmd shows p under the current screen.
func OpenCmd(p *Model) tea.Cmd { return func() tea.Msg { return OpenMsg{p} } }

// OpenMsg asks the App to show a prompt under the screen.
type OpenMsg struct{ Prompt *Model }
