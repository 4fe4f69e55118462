package tui

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// prompt is a one-line text field the App shows under the screen that
// opened it (search on a page, a content search), like a pager's command
// line. It is a component: Update, View, SetSize and help.KeyMap. The
// callbacks run in Update: change after every edit, submit on enter,
// cancel on esc.
type prompt struct {
	c      *common
	input  textinput.Model
	change func(v string) tea.Cmd
	submit func(v string) tea.Cmd
	cancel func() tea.Cmd
}

// newPrompt returns a prompt showing label and starting with value.
func newPrompt(c *common, label, placeholder, value string) *prompt {
	ti := textinput.New()
	ti.Prompt = label
	ti.Placeholder = placeholder
	ti.CharLimit = 256
	p := &prompt{c: c, input: ti}
	p.restyle()
	p.input.SetValue(value)
	p.input.CursorEnd()
	return p
}

func (p *prompt) restyle() { styleInput(&p.input, p.c.styles) }

// Init focuses the field.
func (p *prompt) Init() tea.Cmd { return p.input.Focus() }

// SetSize gives the field its width.
func (p *prompt) SetSize(w, _ int) { p.input.SetWidth(max(10, w-len([]rune(p.input.Prompt))-2)) }

// Update handles a key; it reports whether the prompt closed.
func (p *prompt) Update(msg tea.Msg) (tea.Cmd, bool) {
	if _, ok := msg.(themeMsg); ok {
		p.restyle()
		return nil, false
	}
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	k := p.c.keys.Modal
	switch {
	case key.Matches(km, k.Submit):
		p.input.Blur()
		if p.submit != nil {
			return p.submit(p.input.Value()), true
		}
		return nil, true
	case key.Matches(km, k.Cancel):
		p.input.Blur()
		if p.cancel != nil {
			return p.cancel(), true
		}
		return nil, true
	}
	old := p.input.Value()
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	if v := p.input.Value(); v != old && p.change != nil {
		cmd = tea.Batch(cmd, p.change(v))
	}
	return cmd, false
}

// View draws the field.
func (p *prompt) View() string { return p.input.View() }

// ShortHelp implements help.KeyMap.
func (p *prompt) ShortHelp() []key.Binding {
	return []key.Binding{p.c.keys.Modal.Submit, p.c.keys.Modal.Cancel}
}

// FullHelp implements help.KeyMap.
func (p *prompt) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// openPromptCmd shows p under the current screen.
func openPromptCmd(p *prompt) tea.Cmd { return func() tea.Msg { return openPromptMsg{p} } }

// openPromptMsg asks the App to show a prompt under the screen.
type openPromptMsg struct{ p *prompt }
