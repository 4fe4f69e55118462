package pages

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/live"
)

// Tools lists a Computer's MCP tools (client:get_tools): name, the tags
// of its a2c_tool_meta and description. enter opens a tool's call form;
// it re-reads on notify:update_tool_list, keeping the cursor on the same
// name.
type Tools struct {
	rowList[protocol.SMCPTool]
}

// NewTools returns the screen of a computer's tools.
func NewTools(c *common.Common, computer string) *Tools {
	return &Tools{newRowList(c, computer, live.NewTools(computer), rowSpec[protocol.SMCPTool]{
		title: "Tools", noun: "tool", empty: "This computer offers no tools.", op: common.OpTools,
		name: func(t protocol.SMCPTool) string { return t.Name },
		fetch: func(ctx context.Context, b common.Backend, comp string) ([]protocol.SMCPTool, error) {
			ret, err := b.GetTools(ctx, comp)
			if err != nil || ret == nil {
				return nil, err
			}
			return ret.Tools, nil
		},
		open: func(t protocol.SMCPTool) tea.Cmd { return common.PushCmd(NewToolCall(c, computer, t)) },
	})}
}

// toolTags are the tags of a tool's a2c_tool_meta.
func toolTags(t protocol.SMCPTool) []string {
	m, _ := t.ToolMeta()
	return m.Tags
}

func (s *Tools) View() string {
	nameW := min(max(s.w/4, 12), 36)
	tagW := min(max(s.w/6, 6), 20)
	heads := common.Cell("NAME", nameW) + " " + common.Cell("TAGS", tagW) + " DESCRIPTION"
	return s.view(heads, func(t protocol.SMCPTool) string {
		return common.Cell(common.OneLine(t.Name), nameW) + " " +
			common.Cell(common.OneLine(strings.Join(toolTags(t), ",")), tagW) + " " + common.OneLine(t.Description)
	})
}

func (s *Tools) Crumb() string { return "tools" }
func (s *Tools) URI() string   { return "" }
