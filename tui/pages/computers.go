package pages

import (
	"context"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/components/list"
	"github.com/smcp-browse/smcp-browse/tui/keymap"
)

// computersScreen lists the Computers in the office (server:list_room) with
// what a person can use: the name, how many documents each offers, and how
// long it has been in the office; it follows enter/leave notifications.
// A computer is addressed by its real name (the one the Server routes by),
// whatever characters it holds; only the display is sanitized.
type computersScreen struct {
	c       *common.Common
	list    []computerRow
	nav     list.Nav
	req     uint64
	loading bool
	loaded  bool
	err     string
	w, h    int

	// since is when each computer was first seen: at its enter
	// notification (exact), or at the first listing that held it (then it
	// was in the office at least since then).
	since map[string]seen
	// docs holds each computer's document count (get_finder total_count),
	// asked only while the screen is on top (active): a browser opened on a
	// catalog does not query every computer.
	docs   map[string]docCount
	active bool
}

type computerRow struct {
	name    string // the real name, for requests
	display string // sanitized, for the screen
	version string
}

type seen struct {
	at    time.Time
	exact bool
}

type docCount struct {
	n       int
	err     string
	pending bool
}

// roomMsg answers server:list_room.
type roomMsg struct {
	req      uint64
	sessions []protocol.SessionInfo
	err      error
}

// docCountMsg answers the count of a computer's documents.
type docCountMsg struct {
	owner *computersScreen
	name  string
	n     int
	err   error
}

// NewComputers returns the screen of the office's computers; active asks
// for their document counts at once (it is the first screen shown).
func NewComputers(c *common.Common, active bool) *computersScreen {
	return &computersScreen{c: c, since: map[string]seen{}, docs: map[string]docCount{}, active: active}
}

// Activate runs when the screen is on top again: the counts not known are
// asked for.
func (s *computersScreen) Activate() tea.Cmd {
	s.active = true
	var cmds []tea.Cmd
	for _, r := range s.list {
		if _, ok := s.docs[r.name]; !ok {
			cmds = append(cmds, s.countCmd(r.name))
		}
	}
	return tea.Batch(cmds...)
}

func (s *computersScreen) Init() tea.Cmd { return s.loadCmd() }

func (s *computersScreen) loadCmd() tea.Cmd {
	s.req = s.c.Req()
	s.loading = true
	req := s.req
	return common.Call(s.c, func(ctx context.Context, b common.Backend) ([]protocol.SessionInfo, error) {
		return b.ListRoom(ctx)
	}, func(v []protocol.SessionInfo, err error) tea.Msg { return roomMsg{req: req, sessions: v, err: err} })
}

// countCmd asks a computer how many documents it has (a get_finder of one
// row: its total_count).
func (s *computersScreen) countCmd(name string) tea.Cmd {
	s.docs[name] = docCount{pending: true}
	owner := s
	return common.Call(s.c, func(ctx context.Context, b common.Backend) (int, error) {
		ret, err := b.GetFinder(ctx, name, protocol.FinderQuery{Limit: 1})
		if err != nil {
			return 0, err
		}
		return ret.TotalCount, nil
	}, func(n int, err error) tea.Msg { return docCountMsg{owner: owner, name: name, n: n, err: err} })
}

func (s *computersScreen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case roomMsg:
		if msg.req != s.req {
			return nil
		}
		return s.onRoom(msg)
	case docCountMsg:
		if msg.owner != s {
			return nil
		}
		dc := docCount{n: msg.n}
		if msg.err != nil {
			dc.err = "?"
			if protocol.CodeOf(msg.err) == protocol.CodeNotFound {
				dc.err = "no Finder"
			}
		}
		s.docs[msg.name] = dc
	case common.EnterOfficeMsg:
		if msg.Role == string(protocol.RoleComputer) {
			s.since[msg.Name] = seen{at: s.c.Now(), exact: true}
			delete(s.docs, msg.Name)
			return s.loadCmd()
		}
	case common.LeaveOfficeMsg:
		if msg.Role == string(protocol.RoleComputer) {
			delete(s.since, msg.Name)
			delete(s.docs, msg.Name)
			return s.loadCmd()
		}
	case common.UpdateFinderMsg:
		if _, ok := s.docs[msg.Computer]; ok {
			if !s.active {
				delete(s.docs, msg.Computer) // asked again when shown
				return nil
			}
			return s.countCmd(msg.Computer)
		}
	case common.ReconnectedMsg:
		s.docs = map[string]docCount{}
		return s.loadCmd()
	case tea.KeyPressMsg:
		k := s.c.Keys
		switch {
		case key.Matches(msg, k.Nav.Enter):
			if c := s.selected(); c != "" {
				s.active = false
				return common.PushCmd(NewCatalog(s.c, c))
			}
		case key.Matches(msg, k.Global.Refresh):
			s.docs = map[string]docCount{}
			return s.loadCmd()
		default:
			s.nav.Update(msg, k)
		}
	case tea.MouseWheelMsg:
		s.nav.Update(msg, s.c.Keys)
	}
	return nil
}

func (s *computersScreen) onRoom(msg roomMsg) tea.Cmd {
	s.loading = false
	if msg.err != nil {
		s.err = common.DescribeError(msg.err, common.OpListRoom)
		return nil
	}
	s.err, s.loaded = "", true
	s.c.Refreshed = s.c.Now()
	sel := s.selected()
	s.list = s.list[:0]
	var cmds []tea.Cmd
	for _, si := range msg.sessions {
		if si.Role != protocol.RoleComputer {
			continue
		}
		s.list = append(s.list, computerRow{name: si.Name, display: common.OneLine(si.Name), version: common.OneLine(si.A2CVersion)})
		if _, ok := s.since[si.Name]; !ok {
			s.since[si.Name] = seen{at: s.c.Now()}
		}
		if _, ok := s.docs[si.Name]; !ok && s.active {
			cmds = append(cmds, s.countCmd(si.Name))
		}
	}
	slices.SortFunc(s.list, func(a, b computerRow) int { return strings.Compare(a.display, b.display) })
	s.nav.SetLen(len(s.list))
	for i, r := range s.list {
		if r.name == sel {
			s.nav.Set(i)
		}
	}
	return tea.Batch(cmds...)
}

// selected returns the real name of the highlighted computer.
func (s *computersScreen) selected() string {
	if s.nav.Cursor < len(s.list) {
		return s.list[s.nav.Cursor].name
	}
	return ""
}

func (s *computersScreen) SetSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	s.nav.SetHeight(h - 3)
	return nil
}

// inOffice says how long a computer has been in the office: exactly when
// its arrival was seen, "≥ …" when it was there before the browser looked.
func (s *computersScreen) inOffice(name string) string {
	sn, ok := s.since[name]
	if !ok {
		return ""
	}
	d := duration(s.c.Now().Sub(sn.at))
	if sn.exact {
		return d
	}
	return "≥ " + d
}

// duration is a short, human length of time.
func duration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return common.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return common.Itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		return common.Itoa(int(d/time.Hour)) + "h " + common.Itoa(int(d%time.Hour/time.Minute)) + "m"
	}
	return common.Itoa(int(d/(24*time.Hour))) + "d"
}

func (s *computersScreen) docsLabel(name string) string {
	dc, ok := s.docs[name]
	switch {
	case !ok || dc.pending:
		return "…"
	case dc.err != "":
		return dc.err
	}
	return common.Itoa(dc.n)
}

func (s *computersScreen) View() string {
	st := s.c.Styles
	title := st.Title.Render("Computers in " + common.OneLine(s.c.Office))
	if s.loaded {
		title += st.Muted.Render("  " + common.Itoa(len(s.list)) + " online")
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
	lines = append(lines, st.ColumnHead.Render(common.Cell("  Name", nameW+2)+" "+common.CellLeft("Documents", 10)+"  "+common.Cell("In office", 12)+" "+common.Cell("Protocol", 10)))
	from, to := s.nav.Visible()
	for i := from; i < to; i++ {
		r := s.list[i]
		row := common.Cell(r.display, nameW) + " " + common.CellLeft(s.docsLabel(r.name), 10) + "  " + common.Cell(s.inOffice(r.name), 12) + " " + common.Cell(r.version, 10)
		if i == s.nav.Cursor {
			lines = append(lines, st.Selected.Render("▸ "+row))
		} else {
			lines = append(lines, "  "+row)
		}
	}
	return strings.Join(lines, "\n")
}

func (s *computersScreen) Crumb() string { return s.c.Office }

func (s *computersScreen) Keys() help.KeyMap {
	k := s.c.Keys
	return keymap.HelpKeys{
		Short: []key.Binding{k.Nav.Up, k.Nav.Down, k.Nav.Enter, k.Global.Refresh, k.Global.Desktop, k.Global.Help, k.Global.Quit},
		Full:  [][]key.Binding{k.ListHelp(), {k.Global.Refresh}},
	}
}

func (s *computersScreen) URI() string      { return "" }
func (s *computersScreen) Capturing() bool  { return false }
func (s *computersScreen) Computer() string { return s.selected() }

func (s *computersScreen) Status() string {
	if len(s.list) == 0 {
		return ""
	}
	return common.Itoa(s.nav.Cursor+1) + "/" + common.Itoa(len(s.list))
}
