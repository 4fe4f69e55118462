package tui

import (
	"context"
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// computersScreen lists the Computers in the office (server:list_room) and
// follows enter/leave notifications.
type computersScreen struct {
	c       *common
	list    []protocol.SessionInfo
	nav     listNav
	req     uint64
	loading bool
	loaded  bool
	err     string
	w, h    int
}

// roomMsg answers server:list_room.
type roomMsg struct {
	req      uint64
	sessions []protocol.SessionInfo
	err      error
}

func newComputersScreen(c *common) *computersScreen { return &computersScreen{c: c} }

func (s *computersScreen) init() tea.Cmd { return s.load() }

func (s *computersScreen) load() tea.Cmd {
	s.req = s.c.req()
	s.loading = true
	req := s.req
	return call(s.c, func(ctx context.Context, b Backend) ([]protocol.SessionInfo, error) {
		return b.ListRoom(ctx)
	}, func(v []protocol.SessionInfo, err error) tea.Msg { return roomMsg{req: req, sessions: v, err: err} })
}

func (s *computersScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case roomMsg:
		if msg.req != s.req {
			return nil
		}
		s.loading = false
		if msg.err != nil {
			s.err = describeError(msg.err, opListRoom)
			return nil
		}
		s.err, s.loaded = "", true
		s.c.refreshed = s.c.now()
		sel := s.selected()
		s.list = s.list[:0]
		for _, si := range msg.sessions {
			if si.Role == protocol.RoleComputer {
				si.Name, si.SID, si.OfficeID = oneLine(si.Name), oneLine(si.SID), oneLine(si.OfficeID)
				si.A2CVersion = oneLine(si.A2CVersion)
				s.list = append(s.list, si)
			}
		}
		slices.SortFunc(s.list, func(a, b protocol.SessionInfo) int { return strings.Compare(a.Name, b.Name) })
		s.nav.setLen(len(s.list))
		for i, si := range s.list {
			if si.Name == sel {
				s.nav.set(i)
			}
		}
	case EnterOfficeMsg:
		if msg.Role == string(protocol.RoleComputer) {
			return s.load()
		}
	case LeaveOfficeMsg:
		if msg.Role == string(protocol.RoleComputer) {
			return s.load()
		}
	case reconnectedMsg:
		return s.load()
	case tea.KeyPressMsg:
		k := s.c.keys
		switch {
		case key.Matches(msg, k.Nav.Enter):
			if c := s.selected(); c != "" {
				return push(newCatalogScreen(s.c, c))
			}
		case key.Matches(msg, k.Global.Refresh):
			return s.load()
		default:
			s.nav.update(msg, k)
		}
	case tea.MouseWheelMsg:
		s.nav.update(msg, s.c.keys)
	}
	return nil
}

func (s *computersScreen) selected() string {
	if s.nav.cursor < len(s.list) {
		return s.list[s.nav.cursor].Name
	}
	return ""
}

func (s *computersScreen) setSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	s.nav.setHeight(h - 3)
	return nil
}

func (s *computersScreen) view() string {
	st := s.c.styles
	title := st.Title.Render("Computers in " + oneLine(s.c.office))
	if s.loaded {
		title += st.Muted.Render("  " + itoa(len(s.list)) + " online")
	}
	lines := []string{title}
	switch {
	case s.err != "":
		lines = append(lines, st.Error.Render("✗ "+s.err))
	case s.loading && !s.loaded:
		lines = append(lines, st.Muted.Render("loading…"))
	default:
		lines = append(lines, "")
	}
	if s.loaded && len(s.list) == 0 {
		lines = append(lines, st.Muted.Render("No computer has joined this office yet; this list updates when one does."))
		return strings.Join(lines, "\n")
	}
	nameW := max(12, min(32, s.w/3))
	lines = append(lines, st.ColumnHead.Render(cell("  Name", nameW+2)+" "+cell("Session", 24)+" "+cell("Protocol", 10)))
	from, to := s.nav.visible()
	for i := from; i < to; i++ {
		si := s.list[i]
		row := cell(si.Name, nameW) + " " + cell(si.SID, 24) + " " + cell(si.A2CVersion, 10)
		if i == s.nav.cursor {
			lines = append(lines, st.Selected.Render("▸ "+row))
		} else {
			lines = append(lines, "  "+row)
		}
	}
	return strings.Join(lines, "\n")
}

func (s *computersScreen) crumb() string { return s.c.office }

func (s *computersScreen) keys() help.KeyMap {
	k := s.c.keys
	return helpKeys{
		short: []key.Binding{k.Nav.Up, k.Nav.Down, k.Nav.Enter, k.Global.Refresh, k.Global.Desktop, k.Global.Help, k.Global.Quit},
		full:  [][]key.Binding{k.listHelp(), {k.Global.Refresh}},
	}
}

func (s *computersScreen) uri() string     { return "" }
func (s *computersScreen) capturing() bool { return false }
func (s *computersScreen) computer() string {
	return s.selected()
}

func (s *computersScreen) status() string {
	if len(s.list) == 0 {
		return ""
	}
	return itoa(s.nav.cursor+1) + "/" + itoa(len(s.list))
}
