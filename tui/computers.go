package tui

import (
	"context"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// computersScreen lists the Computers in the office (server:list_room) with
// what a person can use: the name, how many documents each offers, and how
// long it has been in the office; it follows enter/leave notifications.
// A computer is addressed by its real name (the one the Server routes by),
// whatever characters it holds; only the display is sanitized.
type computersScreen struct {
	c       *common
	list    []computerRow
	nav     listNav
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

func newComputersScreen(c *common, active bool) *computersScreen {
	return &computersScreen{c: c, since: map[string]seen{}, docs: map[string]docCount{}, active: active}
}

// activate runs when the screen is on top again: the counts not known are
// asked for.
func (s *computersScreen) activate() tea.Cmd {
	s.active = true
	var cmds []tea.Cmd
	for _, r := range s.list {
		if _, ok := s.docs[r.name]; !ok {
			cmds = append(cmds, s.countCmd(r.name))
		}
	}
	return tea.Batch(cmds...)
}

func (s *computersScreen) init() tea.Cmd { return s.loadCmd() }

func (s *computersScreen) loadCmd() tea.Cmd {
	s.req = s.c.req()
	s.loading = true
	req := s.req
	return call(s.c, func(ctx context.Context, b Backend) ([]protocol.SessionInfo, error) {
		return b.ListRoom(ctx)
	}, func(v []protocol.SessionInfo, err error) tea.Msg { return roomMsg{req: req, sessions: v, err: err} })
}

// countCmd asks a computer how many documents it has (a get_finder of one
// row: its total_count).
func (s *computersScreen) countCmd(name string) tea.Cmd {
	s.docs[name] = docCount{pending: true}
	owner := s
	return call(s.c, func(ctx context.Context, b Backend) (int, error) {
		ret, err := b.GetFinder(ctx, name, protocol.FinderQuery{Limit: 1})
		if err != nil {
			return 0, err
		}
		return ret.TotalCount, nil
	}, func(n int, err error) tea.Msg { return docCountMsg{owner: owner, name: name, n: n, err: err} })
}

func (s *computersScreen) update(msg tea.Msg) tea.Cmd {
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
	case EnterOfficeMsg:
		if msg.Role == string(protocol.RoleComputer) {
			s.since[msg.Name] = seen{at: s.c.now(), exact: true}
			delete(s.docs, msg.Name)
			return s.loadCmd()
		}
	case LeaveOfficeMsg:
		if msg.Role == string(protocol.RoleComputer) {
			delete(s.since, msg.Name)
			delete(s.docs, msg.Name)
			return s.loadCmd()
		}
	case UpdateFinderMsg:
		if _, ok := s.docs[msg.Computer]; ok {
			if !s.active {
				delete(s.docs, msg.Computer) // asked again when shown
				return nil
			}
			return s.countCmd(msg.Computer)
		}
	case reconnectedMsg:
		s.docs = map[string]docCount{}
		return s.loadCmd()
	case tea.KeyPressMsg:
		k := s.c.keys
		switch {
		case key.Matches(msg, k.Nav.Enter):
			if c := s.selected(); c != "" {
				s.active = false
				return pushCmd(newCatalogScreen(s.c, c))
			}
		case key.Matches(msg, k.Global.Refresh):
			s.docs = map[string]docCount{}
			return s.loadCmd()
		default:
			s.nav.update(msg, k)
		}
	case tea.MouseWheelMsg:
		s.nav.update(msg, s.c.keys)
	}
	return nil
}

func (s *computersScreen) onRoom(msg roomMsg) tea.Cmd {
	s.loading = false
	if msg.err != nil {
		s.err = describeError(msg.err, opListRoom)
		return nil
	}
	s.err, s.loaded = "", true
	s.c.refreshed = s.c.now()
	sel := s.selected()
	s.list = s.list[:0]
	var cmds []tea.Cmd
	for _, si := range msg.sessions {
		if si.Role != protocol.RoleComputer {
			continue
		}
		s.list = append(s.list, computerRow{name: si.Name, display: oneLine(si.Name), version: oneLine(si.A2CVersion)})
		if _, ok := s.since[si.Name]; !ok {
			s.since[si.Name] = seen{at: s.c.now()}
		}
		if _, ok := s.docs[si.Name]; !ok && s.active {
			cmds = append(cmds, s.countCmd(si.Name))
		}
	}
	slices.SortFunc(s.list, func(a, b computerRow) int { return strings.Compare(a.display, b.display) })
	s.nav.setLen(len(s.list))
	for i, r := range s.list {
		if r.name == sel {
			s.nav.set(i)
		}
	}
	return tea.Batch(cmds...)
}

// selected returns the real name of the highlighted computer.
func (s *computersScreen) selected() string {
	if s.nav.cursor < len(s.list) {
		return s.list[s.nav.cursor].name
	}
	return ""
}

func (s *computersScreen) setSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	s.nav.setHeight(h - 3)
	return nil
}

// inOffice says how long a computer has been in the office: exactly when
// its arrival was seen, "≥ …" when it was there before the browser looked.
func (s *computersScreen) inOffice(name string) string {
	sn, ok := s.since[name]
	if !ok {
		return ""
	}
	d := duration(s.c.now().Sub(sn.at))
	if sn.exact {
		return d
	}
	return "≥ " + d
}

// duration is a short, human length of time.
func duration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		return itoa(int(d/time.Hour)) + "h " + itoa(int(d%time.Hour/time.Minute)) + "m"
	}
	return itoa(int(d/(24*time.Hour))) + "d"
}

func (s *computersScreen) docsLabel(name string) string {
	dc, ok := s.docs[name]
	switch {
	case !ok || dc.pending:
		return "…"
	case dc.err != "":
		return dc.err
	}
	return itoa(dc.n)
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
	lines = append(lines, st.ColumnHead.Render(cell("  Name", nameW+2)+" "+cellLeft("Documents", 10)+"  "+cell("In office", 12)+" "+cell("Protocol", 10)))
	from, to := s.nav.visible()
	for i := from; i < to; i++ {
		r := s.list[i]
		row := cell(r.display, nameW) + " " + cellLeft(s.docsLabel(r.name), 10) + "  " + cell(s.inOffice(r.name), 12) + " " + cell(r.version, 10)
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

func (s *computersScreen) uri() string      { return "" }
func (s *computersScreen) capturing() bool  { return false }
func (s *computersScreen) computer() string { return s.selected() }

func (s *computersScreen) status() string {
	if len(s.list) == 0 {
		return ""
	}
	return itoa(s.nav.cursor+1) + "/" + itoa(len(s.list))
}
