package pages

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/live"
)

// Skills lists a Computer's SKILLs (client:get_skills): name, source,
// tags and description. enter opens one's SKILL.md; it re-reads on
// notify:update_skills, keeping the cursor on the same name.
type Skills struct {
	rowList[protocol.A2CSkillRef]
}

// NewSkills returns the screen of a computer's SKILLs.
func NewSkills(c *common.Common, computer string) *Skills {
	return &Skills{newRowList(c, computer, live.NewSkills(computer), rowSpec[protocol.A2CSkillRef]{
		title: "Skills", noun: "skill", empty: "This computer offers no skills.", op: common.OpSkills,
		name: func(r protocol.A2CSkillRef) string { return r.Name },
		fetch: func(ctx context.Context, b common.Backend, comp string) ([]protocol.A2CSkillRef, error) {
			ret, err := b.GetSkills(ctx, comp)
			if err != nil || ret == nil {
				return nil, err
			}
			return ret.Skills, nil
		},
		open: func(r protocol.A2CSkillRef) tea.Cmd { return common.PushCmd(NewSkillDoc(c, computer, r)) },
	})}
}

func (s *Skills) View() string {
	nameW := min(max(s.w/4, 12), 32)
	srcW := min(max(s.w/6, 8), 20)
	tagW := min(max(s.w/6, 6), 20)
	heads := common.Cell("NAME", nameW) + " " + common.Cell("SOURCE", srcW) + " " + common.Cell("TAGS", tagW) + " DESCRIPTION"
	return s.view(heads, func(r protocol.A2CSkillRef) string {
		return common.Cell(common.OneLine(r.Name), nameW) + " " + common.Cell(common.OneLine(r.Source), srcW) + " " +
			common.Cell(common.OneLine(strings.Join(r.Tags, ",")), tagW) + " " + common.OneLine(r.Description)
	})
}

func (s *Skills) Crumb() string { return "skills" }

// URI is the selected SKILL's skill:// URI (MCP SKILLs have one).
func (s *Skills) URI() string {
	r, _ := s.selected()
	return common.OneLine(r.URI)
}
