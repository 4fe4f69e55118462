package tui

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// desktopScreen shows a Computer's Desktop (client:get_desktop): its windows
// in the organizer's order, each a title bar (the window:// URI) and its
// text. It re-reads on notify:update_desktop, keeping the scroll offset.
type desktopScreen struct {
	c       *common
	comp    string
	live    liveTracker
	windows []string
	starts  []int // first line of each window in the pager
	sel     int   // the selected window: `y` copies its URI
	w, h    int
	req     uint64
	loading bool
	loaded  bool
	err     string
	pg      pager
}

type desktopMsg struct {
	req uint64
	ret *protocol.GetDeskTopRet
	err error
}

func newDesktopScreen(c *common, computer string) *desktopScreen {
	return &desktopScreen{c: c, comp: computer, live: newLiveTracker(computer, true), pg: newPager()}
}

func (s *desktopScreen) init() tea.Cmd { return s.loadCmd() }

func (s *desktopScreen) loadCmd() tea.Cmd {
	req := s.c.req()
	s.req, s.loading = req, true
	comp, size := s.comp, s.c.opts.DesktopSize
	return call(s.c, func(ctx context.Context, b Backend) (*protocol.GetDeskTopRet, error) {
		ret, err := b.GetDesktop(ctx, comp, size, "")
		if ret != nil {
			c := *ret
			c.Desktops = sanitizeStrings(ret.Desktops)
			ret = &c
		}
		return ret, err
	}, func(ret *protocol.GetDeskTopRet, err error) tea.Msg { return desktopMsg{req: req, ret: ret, err: err} })
}

func (s *desktopScreen) setSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	s.layout()
	return nil
}

func (s *desktopScreen) layout() {
	extra := 1
	if s.err != "" || s.live.isGone() {
		extra++
	}
	s.pg.setSize(s.w, max(s.h-extra, 1))
	s.renderWindows()
}

// renderWindows lays the windows out for the current width. Desktops are
// small (desktop_size bounds them), so this runs in Update.
func (s *desktopScreen) renderWindows() {
	if s.w <= 0 {
		return
	}
	st := s.c.styles
	var lines []string
	s.starts = s.starts[:0]
	for i, d := range s.windows {
		uri, body, _ := strings.Cut(d, "\n\n")
		s.starts = append(s.starts, len(lines))
		bar := st.Window
		if i == s.sel && len(s.windows) > 1 {
			bar = st.Selected
		}
		lines = append(lines, bar.Render(cell(" ▣ "+oneLine(uri), s.w)))
		if strings.TrimSpace(body) != "" {
			lines = append(lines, strings.Split(wrapPlain(body, s.w), "\n")...)
		}
		lines = append(lines, "")
	}
	y := s.pg.y
	s.pg.setContent(strings.Join(lines, "\n"))
	s.pg.setY(y)
}

// relayout fits the windows under a header that changed.
func (s *desktopScreen) relayout() tea.Cmd {
	s.layout()
	return nil
}

func (s *desktopScreen) update(msg tea.Msg) tea.Cmd {
	if cmd, ok := s.live.handle(msg, s.relayout, s.loadCmd); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case desktopMsg:
		if msg.req != s.req {
			return nil
		}
		s.loading = false
		if s.live.done() {
			return s.loadCmd() // the desktop changed again meanwhile
		}
		if msg.err != nil {
			s.err = describeError(msg.err, opDesktop)
		} else {
			s.err, s.loaded = "", true
			s.windows = nil
			if msg.ret != nil {
				s.windows = msg.ret.Desktops
			}
			s.sel = min(s.sel, max(len(s.windows)-1, 0))
			s.c.refreshed = s.c.now()
		}
		s.layout()
	case themeMsg:
		s.renderWindows()
	case tea.KeyPressMsg:
		k := s.c.keys
		switch {
		case key.Matches(msg, k.Nav.Back):
			return popCmd
		case key.Matches(msg, k.Global.Refresh):
			return s.live.rereadCmd(s.loadCmd)
		case key.Matches(msg, k.Desktop.NextWindow):
			s.jump(1)
			return nil
		case key.Matches(msg, k.Desktop.PrevWindow):
			s.jump(-1)
			return nil
		}
		s.pg.update(msg, k)
	case tea.MouseWheelMsg:
		s.pg.update(msg, s.c.keys)
	}
	return nil
}

// current is the index of the selected window.
func (s *desktopScreen) current() int { return s.sel }

// jump selects the next (1) or previous (-1) window and scrolls to it.
func (s *desktopScreen) jump(d int) {
	if len(s.starts) == 0 {
		return
	}
	s.sel = min(max(s.sel+d, 0), len(s.starts)-1)
	s.renderWindows()
	s.pg.setY(s.starts[s.sel])
}

func (s *desktopScreen) view() string {
	st := s.c.styles
	head := st.Title.Render("Desktop") + st.Muted.Render(" · "+oneLine(s.comp))
	if s.loaded {
		head += st.Muted.Render(" · " + itoa(len(s.windows)) + " windows")
	}
	if s.loading {
		head += st.Muted.Render(" · loading…")
	}
	lines := []string{head}
	if s.live.isGone() {
		lines = append(lines, st.Error.Render("✗ computer left the office"))
	} else if s.err != "" {
		lines = append(lines, st.Error.Render("✗ "+s.err))
	}
	if s.loaded && len(s.windows) == 0 {
		lines = append(lines, st.Muted.Render("This computer's desktop is empty."))
	} else {
		lines = append(lines, s.pg.view(st))
	}
	return strings.Join(lines, "\n")
}

func (s *desktopScreen) crumb() string { return "desktop" }

func (s *desktopScreen) keys() help.KeyMap {
	k := s.c.keys
	next := k.Desktop.NextWindow
	return helpKeys{
		short: []key.Binding{k.Nav.Up, k.Nav.Down, next, k.Nav.Back, k.Global.Refresh, k.Global.Copy, k.Global.Help, k.Global.Quit},
		full:  [][]key.Binding{{k.Nav.Up, k.Nav.Down, k.Nav.PageUp, k.Nav.PageDown, k.Nav.Top, k.Nav.Bottom, next, k.Nav.Back, k.Global.Refresh}},
	}
}

func (s *desktopScreen) uri() string {
	if len(s.windows) == 0 {
		return ""
	}
	u, _, _ := strings.Cut(s.windows[s.current()], "\n\n")
	return oneLine(u)
}

func (s *desktopScreen) capturing() bool  { return false }
func (s *desktopScreen) computer() string { return s.comp }

func (s *desktopScreen) status() string {
	if len(s.windows) == 0 {
		return ""
	}
	return "window " + itoa(s.current()+1) + "/" + itoa(len(s.windows))
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

func (s *desktopScreen) export() (exportJob, bool) {
	if len(s.windows) == 0 {
		return exportJob{}, false
	}
	var b strings.Builder
	b.WriteString("# Desktop of " + oneLine(s.comp) + "\n")
	for _, d := range s.windows {
		uri, body, _ := strings.Cut(d, "\n\n")
		f := fence(body)
		b.WriteString("\n## " + oneLine(uri) + "\n\n" + f + "\n" + body + "\n" + f + "\n")
	}
	return staticExport("desktop-"+s.comp, "the desktop", b.String()), true
}
