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

// Desktop shows a Computer's Desktop (client:get_desktop): its windows
// in the organizer's order, each a title bar (the window:// URI) and its
// text. It re-reads on notify:update_desktop, keeping the scroll offset.
type Desktop struct {
	c       *common.Common
	comp    string
	live    live.Tracker
	windows []string
	// sections holds the windows; the selected one is what `y` copies.
	sections
	w, h    int
	req     uint64
	loading bool
	loaded  bool
	err     string
}

type desktopMsg struct {
	req uint64
	ret *protocol.GetDeskTopRet
	err error
}

// NewDesktop returns the screen of a computer's Desktop.
func NewDesktop(c *common.Common, computer string) *Desktop {
	return &Desktop{c: c, comp: computer, live: live.New(computer, true), sections: sections{pg: pager.New()}}
}

func (s *Desktop) Init() tea.Cmd { return s.loadCmd() }

func (s *Desktop) loadCmd() tea.Cmd {
	req := s.c.Req()
	s.req, s.loading = req, true
	comp, size := s.comp, s.c.Opts.DesktopSize
	return common.Call(s.c, func(ctx context.Context, b common.Backend) (*protocol.GetDeskTopRet, error) {
		ret, err := b.GetDesktop(ctx, comp, size, "")
		if ret != nil {
			c := *ret
			c.Desktops = common.SanitizeStrings(ret.Desktops)
			ret = &c
		}
		return ret, err
	}, func(ret *protocol.GetDeskTopRet, err error) tea.Msg { return desktopMsg{req: req, ret: ret, err: err} })
}

func (s *Desktop) SetSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	s.layout()
	return nil
}

func (s *Desktop) layout() {
	extra := 1
	if s.err != "" || s.live.Gone() {
		extra++
	}
	s.pg.SetSize(s.w, max(s.h-extra, 1))
	s.renderWindows()
}

// renderWindows lays the windows out for the current width. Desktops are
// small (desktop_size bounds them), so this runs in Update.
func (s *Desktop) renderWindows() {
	if s.w <= 0 {
		return
	}
	secs := make([]section, len(s.windows))
	for i, d := range s.windows {
		uri, body, _ := strings.Cut(d, "\n\n")
		secs[i].title = common.OneLine(uri)
		if strings.TrimSpace(body) != "" {
			secs[i].body = strings.Split(render.Wrap(body, s.w), "\n")
		}
	}
	s.show(s.c.Styles, s.w, secs)
}

// relayout fits the windows under a header that changed.
func (s *Desktop) relayout() tea.Cmd {
	s.layout()
	return nil
}

func (s *Desktop) Update(msg tea.Msg) tea.Cmd {
	if cmd, ok := s.live.Handle(msg, s.relayout, s.loadCmd); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case desktopMsg:
		if msg.req != s.req {
			return nil
		}
		s.loading = false
		if s.live.Done() {
			return s.loadCmd() // the desktop changed again meanwhile
		}
		if msg.err != nil {
			s.err = common.DescribeError(msg.err, common.OpDesktop)
		} else {
			s.err, s.loaded = "", true
			s.windows = nil
			if msg.ret != nil {
				s.windows = msg.ret.Desktops
			}
			s.sel = min(s.sel, max(len(s.windows)-1, 0))
			s.c.Refreshed = s.c.Now()
		}
		s.layout()
	case common.ThemeMsg:
		s.renderWindows()
	case tea.KeyPressMsg:
		k := s.c.Keys
		switch {
		case key.Matches(msg, k.Nav.Back):
			return common.PopCmd
		case key.Matches(msg, k.Global.Refresh):
			return s.live.RereadCmd(s.loadCmd)
		case key.Matches(msg, k.Desktop.NextWindow):
			s.jump(1, s.renderWindows)
			return nil
		case key.Matches(msg, k.Desktop.PrevWindow):
			s.jump(-1, s.renderWindows)
			return nil
		}
		s.pg.Update(msg, k)
	case tea.MouseWheelMsg:
		s.pg.Update(msg, s.c.Keys)
	}
	return nil
}

// current is the index of the selected window.
func (s *Desktop) current() int { return s.sel }

func (s *Desktop) View() string {
	st := s.c.Styles
	details := []string{common.OneLine(s.comp)}
	if s.loaded {
		details = append(details, common.Itoa(len(s.windows))+" windows")
	}
	lines := computerHead(st, "Desktop", details, s.loading, s.live.Gone(), s.err)
	if s.loaded && len(s.windows) == 0 {
		lines = append(lines, st.Muted.Render("This computer's desktop is empty."))
	} else {
		lines = append(lines, s.pg.View(st))
	}
	return strings.Join(lines, "\n")
}

func (s *Desktop) Crumb() string { return "desktop" }

func (s *Desktop) Keys() help.KeyMap {
	k := s.c.Keys
	next := k.Desktop.NextWindow
	return keymap.HelpKeys{
		Short: []key.Binding{k.Nav.Up, k.Nav.Down, next, k.Nav.Back, k.Global.Refresh, k.Global.Copy, k.Global.Help, k.Global.Quit},
		Full:  [][]key.Binding{{k.Nav.Up, k.Nav.Down, k.Nav.PageUp, k.Nav.PageDown, k.Nav.Top, k.Nav.Bottom, next, k.Nav.Back, k.Global.Refresh}},
	}
}

func (s *Desktop) URI() string {
	if len(s.windows) == 0 {
		return ""
	}
	u, _, _ := strings.Cut(s.windows[s.current()], "\n\n")
	return common.OneLine(u)
}

func (s *Desktop) Capturing() bool  { return false }
func (s *Desktop) Computer() string { return s.comp }

func (s *Desktop) Status() string {
	if len(s.windows) == 0 {
		return ""
	}
	return "window " + common.Itoa(s.current()+1) + "/" + common.Itoa(len(s.windows))
}

// fence returns a code fence longer than any backtick run in body.
func fence(body string) string {
	longest, run := 0, 0
	for _, r := range body {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

func (s *Desktop) Export() (common.ExportJob, bool) {
	if len(s.windows) == 0 {
		return common.ExportJob{}, false
	}
	var b strings.Builder
	b.WriteString("# Desktop of " + common.OneLine(s.comp) + "\n")
	for _, d := range s.windows {
		uri, body, _ := strings.Cut(d, "\n\n")
		f := fence(body)
		b.WriteString("\n## " + common.OneLine(uri) + "\n\n" + f + "\n" + body + "\n" + f + "\n")
	}
	return common.StaticExport("desktop-"+s.comp, "the desktop", b.String()), true
}
