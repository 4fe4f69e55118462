package pages

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/keymap"
	"github.com/smcp-browse/smcp-browse/tui/live"
)

// toolCallGrace is added to a tool's own timeout for the wait of its
// call: the agent waits the timeout and the Server's grace (and cancels
// the call when that runs out), so its answer comes first.
const toolCallGrace = 15 * time.Second

// formParams is the most parameter lines the form lists.
const formParams = 5

// ToolCall is the call form of one of a Computer's tools: its name, the
// computer and the timeout in the header (calling a tool is an action on
// that computer), its description and parameters, and a text field of
// JSON arguments that starts with the arguments its schema requires.
// Tools.Call (ctrl+s) calls it (client:tool_call) and opens the result;
// arguments that are not a JSON object are said so and nothing is called.
type ToolCall struct {
	c       *common.Common
	comp    string
	tool    protocol.SMCPTool
	params  []toolParam
	live    live.Tracker
	ta      textarea.Model
	w, h    int
	req     uint64
	calling bool
	err     string
	// covered is set while the result this form opened is on top: a paste
	// is for that screen, not for this field.
	covered bool
}

// toolAnswer is a tool's result and its items as the result screen shows
// them (built in the command: inline blobs are decoded there).
type toolAnswer struct {
	res   *protocol.CallToolResult
	items []resultItem
}

type toolCallMsg struct {
	req    uint64
	answer toolAnswer
	err    error
}

// NewToolCall returns the call form of tool on computer.
func NewToolCall(c *common.Common, computer string, tool protocol.SMCPTool) *ToolCall {
	s := &ToolCall{c: c, comp: computer, tool: tool, params: toolParams(tool.ParamsSchema), live: live.NewTools(computer), ta: textarea.New()}
	s.ta.CharLimit = 0
	s.ta.Placeholder = "{}"
	s.restyle()
	s.ta.SetValue(argsSkeleton(tool.ParamsSchema))
	s.ta.MoveToBegin()
	return s
}

func (s *ToolCall) restyle() { s.c.Styles.StyleTextArea(&s.ta) }

func (s *ToolCall) Init() tea.Cmd { return s.ta.Focus() }

// Activate runs when the form is on top again (back from its result).
func (s *ToolCall) Activate() tea.Cmd {
	s.covered = false
	return nil
}

// head is the lines above the text field.
func (s *ToolCall) head() []string {
	st := s.c.Styles
	lines := computerHead(st, "Call "+common.OneLine(s.tool.Name), []string{"on " + common.OneLine(s.comp), "timeout " + s.c.Opts.Timeout.String()},
		false, s.live.Gone(), "")
	if d := strings.TrimSpace(common.Sanitize(s.tool.Description)); d != "" {
		lines = append(lines, common.WrapStyledLines(st.Muted, d, s.w, 2)...)
	}
	if len(s.params) == 0 {
		return append(lines, st.Label.Render("Arguments (JSON object): this tool takes none"))
	}
	lines = append(lines, st.Label.Render("Arguments (JSON object):"))
	shown := s.params[:min(len(s.params), formParams)]
	for _, p := range shown {
		lines = append(lines, common.Fit("  "+common.OneLine(p.label()), s.w))
	}
	if rest := s.params[len(shown):]; len(rest) > 0 {
		names := make([]string, len(rest))
		for i, p := range rest {
			names[i] = common.OneLine(p.name)
		}
		lines = append(lines, st.Muted.Render(common.Fit("  … and "+strings.Join(names, ", "), s.w)))
	}
	return lines
}

func (s *ToolCall) SetSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	s.layout()
	return nil
}

// layout gives the text field the lines the head and the message line
// leave.
func (s *ToolCall) layout() {
	s.ta.SetWidth(max(s.w, 10))
	s.ta.SetHeight(max(s.h-len(s.head())-1, 3))
}

func (s *ToolCall) Update(msg tea.Msg) tea.Cmd {
	if ev := s.live.Observe(msg); ev == live.Left || ev == live.Entered {
		s.layout()
		return nil
	}
	switch msg := msg.(type) {
	case toolCallMsg:
		if msg.req != s.req || !s.calling {
			return nil
		}
		s.calling = false
		if msg.err != nil {
			s.err = common.DescribeError(msg.err, common.OpTools)
			return nil
		}
		s.covered = true
		return common.PushCmd(NewToolResult(s.c, s.comp, s.tool.Name, msg.answer))
	case common.ThemeMsg:
		s.restyle()
	case tea.PasteMsg:
		if !s.covered {
			var cmd tea.Cmd
			s.ta, cmd = s.ta.Update(msg)
			return cmd
		}
	case tea.KeyPressMsg:
		k := s.c.Keys.Tools
		switch {
		case key.Matches(msg, k.Back):
			return common.PopCmd
		case key.Matches(msg, k.Call):
			return s.callCmd()
		case key.Matches(msg, k.Skeleton):
			s.ta.SetValue(argsSkeleton(s.tool.ParamsSchema))
			s.ta.MoveToBegin()
			s.err = ""
			return nil
		}
		old := s.ta.Value()
		var cmd tea.Cmd
		s.ta, cmd = s.ta.Update(msg)
		if s.ta.Value() != old {
			s.err = ""
		}
		return cmd
	}
	return nil
}

// callCmd calls the tool with the field's arguments, or says why they
// cannot be sent (then nothing is called).
func (s *ToolCall) callCmd() tea.Cmd {
	if s.calling {
		s.c.Notice = "the call is still running"
		return nil
	}
	args, err := parseArgs(s.ta.Value())
	if err != nil {
		s.err = err.Error()
		return nil
	}
	req := s.c.Req()
	s.req, s.calling, s.err = req, true, ""
	comp, name, timeout := s.comp, s.tool.Name, s.c.Opts.Timeout
	return common.CallWithin(s.c, timeout+toolCallGrace, func(ctx context.Context, b common.Backend) (toolAnswer, error) {
		res, err := b.CallTool(ctx, comp, name, args, timeout)
		if err != nil {
			return toolAnswer{}, err
		}
		if res == nil {
			return toolAnswer{}, protocol.Errorf(protocol.CodeInternalError, "the computer answered %s with no result", name)
		}
		return toolAnswer{res: res, items: resultItems(res)}, nil
	}, func(a toolAnswer, err error) tea.Msg { return toolCallMsg{req: req, answer: a, err: err} })
}

func (s *ToolCall) View() string {
	st := s.c.Styles
	lines := append(s.head(), s.ta.View())
	switch {
	case s.calling:
		lines = append(lines, st.Muted.Render("calling "+common.OneLine(s.tool.Name)+"…"))
	case s.err != "":
		lines = append(lines, st.Error.Render("✗ "+s.err))
	default:
		call := s.c.Keys.Tools.Call.Help().Key
		lines = append(lines, st.Muted.Render(call+" calls "+common.OneLine(s.tool.Name)+" on "+common.OneLine(s.comp)+" with these arguments"))
	}
	return strings.Join(lines, "\n")
}

func (s *ToolCall) Crumb() string { return common.OneLine(s.tool.Name) }

func (s *ToolCall) Keys() help.KeyMap {
	k := s.c.Keys
	t := k.Tools
	return keymap.HelpKeys{
		Short: []key.Binding{t.Call, t.Skeleton, t.Back, k.Global.ForceQuit},
		Full:  [][]key.Binding{{t.Call, t.Skeleton, t.Back, k.Global.ForceQuit}},
	}
}

func (s *ToolCall) URI() string      { return "" }
func (s *ToolCall) Capturing() bool  { return true }
func (s *ToolCall) Computer() string { return s.comp }

func (s *ToolCall) Status() string {
	return "line " + common.Itoa(s.ta.Line()+1) + "/" + common.Itoa(s.ta.LineCount())
}
