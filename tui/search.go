package tui

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// searchScreen searches the content of a Computer's documents through the
// protocol (client:search_finder, this project's Finder extension). The
// Computer answers a bounded step at a time with a cursor; the screen asks
// for the next step until the search is complete, shows its progress, and
// stops when the user presses esc (nothing more is asked). Results read
// "document · page · matching line"; enter opens the page with the match
// highlighted.
type searchScreen struct {
	c        *common
	comp     string
	live     liveTracker
	fileType string
	w, h     int

	input   textinput.Model
	editing bool

	query     string
	seq       int  // bumped by every new search and by a stop
	running   bool // a step is on its way
	stopped   bool // the user stopped it
	complete  bool
	cursor    string
	scanned   int
	total     int
	unread    int
	results   []protocol.SearchMatch
	capped    bool
	err       string
	nav       listNav
	steps     int
	docsFound map[string]bool
}

// searchMaxResults bounds the matches one search collects.
const searchMaxResults = 1000

type searchStepMsg struct {
	owner *searchScreen
	seq   int
	ret   *protocol.SearchFinderRet
	err   error
}

func newSearchScreen(c *common, computer, fileType string) *searchScreen {
	ti := textinput.New()
	ti.Prompt = "search for: "
	ti.Placeholder = "words or a phrase in the documents' text"
	ti.CharLimit = protocol.SearchMaxQuery
	s := &searchScreen{c: c, comp: computer, live: newLiveTracker(computer, false), fileType: fileType, input: ti, editing: true}
	s.styleInput()
	return s
}

func (s *searchScreen) styleInput() { styleInput(&s.input, s.c.styles) }

func (s *searchScreen) init() tea.Cmd { return s.input.Focus() }

func (s *searchScreen) setSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	s.input.SetWidth(max(10, w-16))
	s.nav.setHeight(max(h-4, 1))
	return nil
}

// start begins a search for q.
func (s *searchScreen) start(q string) tea.Cmd {
	q = strings.TrimSpace(q)
	if q == "" {
		return nil
	}
	s.query = q
	s.seq++
	s.results, s.cursor, s.scanned, s.total, s.unread, s.steps = nil, "", 0, 0, 0, 0
	s.running, s.stopped, s.complete, s.capped, s.err = true, false, false, false, ""
	s.docsFound = map[string]bool{}
	s.nav = listNav{}
	s.nav.setHeight(max(s.h-4, 1))
	return s.stepCmd()
}

// stepCmd asks the Computer for the next step of the search.
func (s *searchScreen) stepCmd() tea.Cmd {
	q := protocol.SearchQuery{Query: s.query, FileType: s.fileType, Cursor: s.cursor}
	comp, seq, owner := s.comp, s.seq, s
	return call(s.c, func(ctx context.Context, b Backend) (*protocol.SearchFinderRet, error) {
		ret, err := b.SearchFinder(ctx, comp, q)
		if ret != nil {
			c := *ret
			c.Matches = mapped(ret.Matches, sanitizeMatch)
			ret = &c
		}
		return ret, err
	}, func(ret *protocol.SearchFinderRet, err error) tea.Msg {
		return searchStepMsg{owner: owner, seq: seq, ret: ret, err: err}
	})
}

func (s *searchScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case searchStepMsg:
		if msg.owner != s || msg.seq != s.seq {
			return nil // an older search, or one the user stopped
		}
		return s.onStep(msg)
	case themeMsg:
		s.styleInput()
	case LeaveOfficeMsg, EnterOfficeMsg:
		s.live.observe(msg) // the title says when the computer left
	case tea.KeyPressMsg:
		return s.key(msg)
	case tea.MouseWheelMsg:
		s.nav.update(msg, s.c.keys)
	}
	return nil
}

func (s *searchScreen) onStep(msg searchStepMsg) tea.Cmd {
	s.running = false
	s.steps++
	if msg.err != nil {
		s.err = describeError(msg.err, opSearch)
		return nil
	}
	ret := msg.ret
	s.scanned, s.total, s.unread = ret.ScannedDocuments, ret.TotalDocuments, ret.Unreadable
	for _, m := range ret.Matches {
		if len(s.results) >= searchMaxResults {
			s.capped = true
			break
		}
		s.results = append(s.results, m)
		s.docsFound[m.URI] = true
	}
	s.nav.setLen(len(s.results))
	s.cursor = ret.NextCursor
	if s.cursor == "" {
		s.complete = true
		return nil
	}
	if s.capped {
		return nil
	}
	s.running = true
	return s.stepCmd()
}

func (s *searchScreen) key(msg tea.KeyPressMsg) tea.Cmd {
	k := s.c.keys
	if s.editing {
		switch {
		case key.Matches(msg, k.Modal.Submit):
			if strings.TrimSpace(s.input.Value()) == "" {
				return nil
			}
			s.editing = false
			s.input.Blur()
			return s.start(s.input.Value())
		case key.Matches(msg, k.Modal.Cancel):
			s.editing = false
			s.input.Blur()
			if s.query == "" {
				return popCmd
			}
			s.input.SetValue(s.query)
			return nil
		}
		var cmd tea.Cmd
		s.input, cmd = s.input.Update(msg)
		return cmd
	}
	switch {
	case key.Matches(msg, k.Catalog.Filter), key.Matches(msg, k.Catalog.Search):
		s.editing = true
		s.input.SetValue(s.query)
		s.input.CursorEnd()
		return s.input.Focus()
	case key.Matches(msg, k.Nav.Back):
		if s.running {
			// Stop: the step on its way is ignored and no other is asked.
			s.seq++
			s.running, s.stopped = false, true
			s.c.notice = "search stopped"
			return nil
		}
		return popCmd
	case key.Matches(msg, k.Nav.Enter):
		if s.nav.cursor < len(s.results) {
			return s.openCmd(s.results[s.nav.cursor])
		}
		return nil
	case key.Matches(msg, k.Global.Refresh):
		if s.query != "" {
			return s.start(s.query)
		}
		return nil
	}
	s.nav.update(msg, k)
	return nil
}

// openCmd opens the page of a match with the query highlighted at it.
func (s *searchScreen) openCmd(m protocol.SearchMatch) tea.Cmd {
	u, err := dpe.Parse(m.URI)
	if err != nil || u.Level() != dpe.LevelPage {
		s.c.notice = "the match has no page URI: " + oneLine(m.URI)
		return nil
	}
	comp, query := s.comp, s.query
	c := s.c
	return call(s.c, func(ctx context.Context, b Backend) (followedMsg, error) {
		doc, err := b.ReadDocument(ctx, comp, u.DocumentURI())
		if err != nil {
			return followedMsg{}, err
		}
		info := docInfo{uri: u.DocumentURI(), title: oneLine(doc.Title), path: m.Path, fileURI: doc.FileURI, pages: doc.PageCount}
		p := newPageScreen(c, comp, info, u.Page)
		p.highlight, p.highlightAt, p.jumpTo = query, m.Line, m.ElementID
		return followedMsg{s: p}, nil
	}, func(fm followedMsg, err error) tea.Msg {
		if err != nil {
			return followedMsg{notice: "cannot open the match: " + describeError(err, opDocument)}
		}
		return fm
	})
}

func (s *searchScreen) view() string {
	st := s.c.styles
	title := st.Title.Render("Search") + st.Muted.Render(" · "+oneLine(s.comp))
	if s.fileType != "" {
		title += "  " + st.Keyword.Render("type:"+s.fileType)
	}
	if s.live.isGone() {
		title += "  " + st.Error.Render("computer left the office")
	}
	lines := []string{title}
	if s.editing {
		lines = append(lines, s.input.View())
	} else {
		lines = append(lines, st.Prompt.Render("search for: ")+st.Keyword.Render(s.query))
	}
	lines = append(lines, s.progressLine())
	if s.err != "" {
		lines = append(lines, st.Error.Render("✗ "+s.err))
	}
	if s.query != "" && len(s.results) == 0 && !s.running && s.err == "" {
		lines = append(lines, "", st.Muted.Render("  No document contains “"+s.query+"”."))
	}
	from, to := s.nav.visible()
	for i := from; i < to; i++ {
		lines = append(lines, s.row(s.results[i], i == s.nav.cursor))
	}
	return strings.Join(padLines(lines, s.h), "\n")
}

// progressLine says how far the search got.
func (s *searchScreen) progressLine() string {
	st := s.c.styles
	if s.query == "" {
		return st.Muted.Render("The Computer searches the text of its documents, a bounded step at a time; esc stops.")
	}
	docs := count(len(s.docsFound), "page")
	n := count(len(s.results), "match")
	if len(s.results) != 1 {
		n = itoa(len(s.results)) + " matches"
	}
	of := itoa(s.scanned) + "/" + itoa(s.total) + " documents"
	var line string
	switch {
	case s.running:
		line = "searching… " + of + " · " + n + " on " + docs
	case s.complete:
		line = "done: " + itoa(s.total) + " documents searched · " + n + " on " + docs
	case s.capped:
		line = "stopped at the first " + itoa(searchMaxResults) + " matches (" + of + ")"
	case s.stopped:
		line = "stopped: " + of + " · " + n + " on " + docs
	default:
		line = of + " · " + n
	}
	if s.unread > 0 {
		line += " · " + count(s.unread, "document") + " could not be read"
	}
	return st.Muted.Render(line)
}

// row draws a result: document title, page, and the line with the match
// highlighted.
func (s *searchScreen) row(m protocol.SearchMatch, sel bool) string {
	st := s.c.styles
	w := s.w - 2
	titleW := min(max(w/4, 10), 36)
	where := cellLeft("p. "+itoa(m.PageIndex+1), 7)
	lineW := max(w-titleW-len([]rune(where))-2, 10)
	title := oneLine(m.Title)
	if title == "" {
		title = m.DocRef
	}
	text, start, end := matchWindow(oneLineKeep(m.Line), m.Start, m.End, lineW)
	var shown string
	if start < end {
		shown = lipgloss.StyleRanges(cell(text, lineW), lipgloss.NewRange(start, end, st.Match))
	} else {
		shown = cell(text, lineW)
	}
	row := cell(title, titleW) + " " + st.Muted.Render(where) + " " + shown
	if sel {
		return st.Selected.Render("▸ "+ansi.Strip(cell(title, titleW)+" "+where+" ")) + shown
	}
	return "  " + row
}

// oneLineKeep folds line breaks and tabs into spaces without moving the
// byte offsets of the other characters (a match's offsets stay valid).
func oneLineKeep(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

// matchWindow cuts line to at most w cells around the match at byte
// offsets [start, end) and returns the cell range of the match in the cut.
func matchWindow(line string, start, end, w int) (string, int, int) {
	if start < 0 || end > len(line) || start >= end {
		return ansi.Truncate(line, w, "…"), 0, 0
	}
	pre := line[:start]
	// Keep about a third of the room before the match.
	if ansi.StringWidth(pre) > w/3 {
		r := []rune(pre)
		for len(r) > 0 && ansi.StringWidth(string(r)) > w/3-1 {
			r = r[1:]
		}
		pre = "…" + string(r)
	}
	out := pre + line[start:]
	s := ansi.StringWidth(pre)
	e := s + ansi.StringWidth(line[start:end])
	out = ansi.Truncate(out, w, "…")
	return out, min(s, w), min(e, w)
}

func (s *searchScreen) crumb() string {
	if s.query == "" {
		return "search"
	}
	return "search “" + s.query + "”"
}

func (s *searchScreen) keys() help.KeyMap {
	k := s.c.keys
	if s.editing {
		return k.modalHelp()
	}
	stop := k.Nav.Back
	if s.running {
		stop = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop"))
	}
	edit := key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "new search"))
	return helpKeys{
		short: []key.Binding{k.Nav.Up, k.Nav.Down, k.Nav.Enter, stop, edit, k.Global.Refresh, k.Global.Help, k.Global.Quit},
		full:  [][]key.Binding{k.listHelp(), {edit, k.Global.Refresh}},
	}
}

func (s *searchScreen) uri() string {
	if s.nav.cursor < len(s.results) {
		return s.results[s.nav.cursor].URI
	}
	return ""
}

func (s *searchScreen) capturing() bool  { return s.editing }
func (s *searchScreen) computer() string { return s.comp }

func (s *searchScreen) status() string {
	if len(s.results) == 0 {
		return ""
	}
	return "match " + itoa(s.nav.cursor+1) + "/" + itoa(len(s.results))
}
