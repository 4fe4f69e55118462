package pages

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/components/list"
	"github.com/smcp-browse/smcp-browse/tui/keymap"
	"github.com/smcp-browse/smcp-browse/tui/live"
)

// Skills lists a Computer's SKILLs (client:get_skills): name, source,
// tags and description. enter opens one's SKILL.md; it re-reads on
// notify:update_skills, keeping the cursor on the same name.
type Skills struct {
	c       *common.Common
	comp    string
	live    live.Tracker
	skills  []protocol.A2CSkillRef
	nav     list.Nav
	w, h    int
	req     uint64
	loading bool
	loaded  bool
	err     string
}

type skillsMsg struct {
	req uint64
	ret *protocol.GetSkillsRet
	err error
}

// NewSkills returns the screen of a computer's SKILLs.
func NewSkills(c *common.Common, computer string) *Skills {
	return &Skills{c: c, comp: computer, live: live.NewSkills(computer)}
}

func (s *Skills) Init() tea.Cmd { return s.loadCmd() }

func (s *Skills) loadCmd() tea.Cmd {
	req := s.c.Req()
	s.req, s.loading = req, true
	comp := s.comp
	return common.Call(s.c, func(ctx context.Context, b common.Backend) (*protocol.GetSkillsRet, error) {
		return b.GetSkills(ctx, comp)
	}, func(ret *protocol.GetSkillsRet, err error) tea.Msg { return skillsMsg{req: req, ret: ret, err: err} })
}

func (s *Skills) SetSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	s.nav.SetHeight(max(h-s.headLines(), 1))
	return nil
}

// headLines is the number of lines above the list.
func (s *Skills) headLines() int {
	if s.err != "" || s.live.Gone() {
		return 3
	}
	return 2
}

func (s *Skills) relayout() tea.Cmd { return s.SetSize(s.w, s.h) }

func (s *Skills) Update(msg tea.Msg) tea.Cmd {
	if cmd, ok := s.live.Handle(msg, s.relayout, s.loadCmd); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case skillsMsg:
		if msg.req != s.req {
			return nil
		}
		s.loading = false
		if s.live.Done() {
			return s.loadCmd()
		}
		s.apply(msg)
		return s.relayout()
	case tea.KeyPressMsg:
		k := s.c.Keys
		switch {
		case key.Matches(msg, k.Nav.Back):
			return common.PopCmd
		case key.Matches(msg, k.Global.Refresh):
			return s.live.RereadCmd(s.loadCmd)
		case key.Matches(msg, k.Nav.Enter):
			if r, ok := s.selected(); ok {
				return common.PushCmd(NewSkillDoc(s.c, s.comp, r))
			}
			return nil
		}
		s.nav.Update(msg, k)
	case tea.MouseWheelMsg:
		s.nav.Update(msg, s.c.Keys)
	}
	return nil
}

// apply takes an answer, keeping the cursor on the SKILL it was on.
func (s *Skills) apply(msg skillsMsg) {
	if msg.err != nil {
		s.err = common.DescribeError(msg.err, common.OpSkills)
		return
	}
	prev, _ := s.selected()
	s.err, s.loaded, s.skills = "", true, nil
	if msg.ret != nil {
		s.skills = msg.ret.Skills
	}
	s.nav.SetLen(len(s.skills))
	for i, r := range s.skills {
		if r.Name == prev.Name {
			s.nav.Set(i)
		}
	}
	s.c.Refreshed = s.c.Now()
}

func (s *Skills) selected() (protocol.A2CSkillRef, bool) {
	if s.nav.Cursor >= len(s.skills) {
		return protocol.A2CSkillRef{}, false
	}
	return s.skills[s.nav.Cursor], true
}

func (s *Skills) View() string {
	st := s.c.Styles
	head := st.Title.Render("Skills") + st.Muted.Render(" · "+common.OneLine(s.comp))
	if s.loaded {
		head += st.Muted.Render(" · " + common.Itoa(len(s.skills)) + " skills")
	}
	if s.loading {
		head += st.Muted.Render(" · loading…")
	}
	lines := []string{head}
	if s.live.Gone() {
		lines = append(lines, st.Error.Render("✗ computer left the office"))
	} else if s.err != "" {
		lines = append(lines, st.Error.Render("✗ "+s.err))
	}
	if s.loaded && len(s.skills) == 0 {
		return strings.Join(append(lines, st.Muted.Render("This computer offers no skills.")), "\n")
	}
	nameW := min(max(s.w/4, 12), 32)
	srcW := min(max(s.w/6, 8), 20)
	tagW := min(max(s.w/6, 6), 20)
	lines = append(lines, st.ColumnHead.Render(common.Cell(common.Cell("NAME", nameW)+" "+common.Cell("SOURCE", srcW)+" "+common.Cell("TAGS", tagW)+" DESCRIPTION", s.w)))
	from, to := s.nav.Visible()
	for i := from; i < to; i++ {
		r := s.skills[i]
		row := common.Cell(common.OneLine(r.Name), nameW) + " " + common.Cell(common.OneLine(r.Source), srcW) + " " +
			common.Cell(common.OneLine(strings.Join(r.Tags, ",")), tagW) + " " + common.OneLine(r.Description)
		row = common.Cell(row, s.w)
		if i == s.nav.Cursor {
			row = st.Selected.Render(row)
		}
		lines = append(lines, row)
	}
	return strings.Join(lines, "\n")
}

func (s *Skills) Crumb() string { return "skills" }

func (s *Skills) Keys() help.KeyMap {
	k := s.c.Keys
	return keymap.HelpKeys{
		Short: []key.Binding{k.Nav.Up, k.Nav.Down, k.Nav.Enter, k.Nav.Back, k.Global.Refresh, k.Global.Help, k.Global.Quit},
		Full:  [][]key.Binding{k.ListHelp(), {k.Nav.Enter, k.Nav.Back, k.Global.Refresh}},
	}
}

// URI is the selected SKILL's skill:// URI (MCP SKILLs have one).
func (s *Skills) URI() string {
	r, _ := s.selected()
	return common.OneLine(r.URI)
}

func (s *Skills) Capturing() bool  { return false }
func (s *Skills) Computer() string { return s.comp }

func (s *Skills) Status() string {
	if len(s.skills) == 0 {
		return ""
	}
	return "skill " + common.Itoa(s.nav.Cursor+1) + "/" + common.Itoa(len(s.skills))
}
