package pages

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/components/pager"
	"github.com/smcp-browse/smcp-browse/tui/components/render"
	"github.com/smcp-browse/smcp-browse/tui/keymap"
	"github.com/smcp-browse/smcp-browse/tui/live"
)

// SkillDoc shows a SKILL's SKILL.md (client:get_skill, without its front
// matter) rendered with glamour, under the SKILL's description and
// metadata. It re-reads on notify:update_skills.
type SkillDoc struct {
	c       *common.Common
	comp    string
	ref     protocol.A2CSkillRef
	live    live.Tracker
	body    string // sanitized Markdown
	w, h    int
	req     uint64
	loading bool
	loaded  bool
	err     string
	pg      pager.Model
}

type skillDocMsg struct {
	req uint64
	ret *protocol.GetSkillRet
	err error
}

// NewSkillDoc returns the screen of the SKILL ref's SKILL.md.
func NewSkillDoc(c *common.Common, computer string, ref protocol.A2CSkillRef) *SkillDoc {
	return &SkillDoc{c: c, comp: computer, ref: ref, live: live.NewSkills(computer), pg: pager.New()}
}

func (s *SkillDoc) Init() tea.Cmd { return s.loadCmd() }

func (s *SkillDoc) loadCmd() tea.Cmd {
	req := s.c.Req()
	s.req, s.loading = req, true
	comp, name := s.comp, s.ref.Name
	return common.Call(s.c, func(ctx context.Context, b common.Backend) (*protocol.GetSkillRet, error) {
		return b.GetSkill(ctx, comp, name, "")
	}, func(ret *protocol.GetSkillRet, err error) tea.Msg { return skillDocMsg{req: req, ret: ret, err: err} })
}

func (s *SkillDoc) SetSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	s.layout()
	return nil
}

func (s *SkillDoc) layout() {
	extra := 1
	if s.err != "" || s.live.Gone() {
		extra++
	}
	s.pg.SetSize(s.w, max(s.h-extra, 1))
	s.render()
}

// render lays the SKILL out for the current width.
func (s *SkillDoc) render() {
	if s.w <= 0 {
		return
	}
	st := s.c.Styles
	var b strings.Builder
	b.WriteString(st.Muted.Render(common.Sanitize(s.ref.Description)) + "\n")
	meta := []string{"source " + s.ref.Source}
	if len(s.ref.Tags) > 0 {
		meta = append(meta, "tags "+strings.Join(s.ref.Tags, ", "))
	}
	if s.ref.License != "" {
		meta = append(meta, "license "+s.ref.License)
	}
	if len(s.ref.AllowedTools) > 0 {
		meta = append(meta, "allowed tools "+strings.Join(s.ref.AllowedTools, ", "))
	}
	b.WriteString(st.Label.Render(common.OneLine(strings.Join(meta, " · "))) + "\n")
	if s.body != "" {
		b.WriteString("\n" + render.Markdown(s.body, s.w, s.c.Styles.Glamour))
	}
	y := s.pg.YOffset()
	s.pg.SetContent(b.String())
	s.pg.SetY(y)
}

func (s *SkillDoc) relayout() tea.Cmd {
	s.layout()
	return nil
}

func (s *SkillDoc) Update(msg tea.Msg) tea.Cmd {
	if cmd, ok := s.live.Handle(msg, s.relayout, s.loadCmd); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case skillDocMsg:
		if msg.req != s.req {
			return nil
		}
		s.loading = false
		if s.live.Done() {
			return s.loadCmd()
		}
		switch {
		case msg.err != nil:
			s.err = common.DescribeError(msg.err, common.OpSkills)
		case msg.ret.Body == nil:
			s.err = "SKILL.md comes as a blob handle (" + common.Itoa(int(msg.ret.TotalSize)) + " bytes), which this browser does not read yet"
		default:
			s.err, s.loaded, s.body = "", true, common.Sanitize(*msg.ret.Body)
			s.c.Refreshed = s.c.Now()
		}
		s.layout()
	case common.ThemeMsg:
		s.render()
	case tea.KeyPressMsg:
		k := s.c.Keys
		switch {
		case key.Matches(msg, k.Nav.Back):
			return common.PopCmd
		case key.Matches(msg, k.Global.Refresh):
			return s.live.RereadCmd(s.loadCmd)
		}
		s.pg.Update(msg, k)
	case tea.MouseWheelMsg:
		s.pg.Update(msg, s.c.Keys)
	}
	return nil
}

func (s *SkillDoc) View() string {
	st := s.c.Styles
	head := st.Title.Render(common.OneLine(s.ref.Name)) + st.Muted.Render(" · SKILL.md")
	if s.loading {
		head += st.Muted.Render(" · loading…")
	}
	lines := []string{head}
	if s.live.Gone() {
		lines = append(lines, st.Error.Render("✗ computer left the office"))
	} else if s.err != "" {
		lines = append(lines, st.Error.Render("✗ "+s.err))
	}
	lines = append(lines, s.pg.View(st))
	return strings.Join(lines, "\n")
}

func (s *SkillDoc) Crumb() string { return common.OneLine(s.ref.Name) }

func (s *SkillDoc) Keys() help.KeyMap {
	k := s.c.Keys
	return keymap.HelpKeys{
		Short: []key.Binding{k.Nav.Up, k.Nav.Down, k.Nav.Back, k.Global.Refresh, k.Global.Help, k.Global.Quit},
		Full:  [][]key.Binding{{k.Nav.Up, k.Nav.Down, k.Nav.PageUp, k.Nav.PageDown, k.Nav.Top, k.Nav.Bottom, k.Nav.Back, k.Global.Refresh}},
	}
}

func (s *SkillDoc) URI() string      { return common.OneLine(s.ref.URI) }
func (s *SkillDoc) Capturing() bool  { return false }
func (s *SkillDoc) Computer() string { return s.comp }
func (s *SkillDoc) Status() string   { return "" }
