package pages

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/dustin/go-humanize"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/shorten"
	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/components/list"
	"github.com/smcp-browse/smcp-browse/tui/keymap"
	"github.com/smcp-browse/smcp-browse/tui/live"
)

// searchScreen searches the content of a Computer's documents through the
// protocol (client:search_finder, this project's Finder extension). The
// Computer answers a bounded step at a time with a cursor, best matches
// first (ranked by its document servers' full-text indexes); the screen
// asks for the next step until it has a screenful and more (and again when
// the cursor nears the end of what it has), shows its progress, and stops
// when the user presses esc (nothing more is asked). While an index is
// being built it says how far ("indexing 3,214/9,580, about 40 s left")
// and that the answer is partly from the index, partly scanned, and runs
// the search again every few seconds until the index is complete, the
// new answer replacing the old. Results read "score ·
// document · path · page · matching line" with every match highlighted;
// enter opens the page with the match highlighted. ctrl+l switches to the
// literal search (every line holding the text, unranked) and back.
type searchScreen struct {
	c        *common.Common
	comp     string
	live     live.Tracker
	fileType string
	w, h     int

	input   textinput.Model
	editing bool

	query     string
	literal   bool // a literal search, not a ranked word search
	seq       int  // bumped by every new search and by a stop
	running   bool // a step is on its way
	stopped   bool // the user stopped it
	paused    bool // it has what it wants for now; more when the cursor nears the end
	want      int  // matches to collect before pausing
	complete  bool
	indexing  *protocol.SearchIndexing
	indexNote string // why part of the answer was scanned with no index coming
	indexed   int
	cursor    string
	scanned   int
	total     int
	unread    int
	results   []protocol.SearchMatch
	capped    bool
	err       string
	nav       list.Nav
	steps     int
	docsFound map[string]bool
	// refresh: the search runs again because an index was being built;
	// its first step replaces the results shown.
	refresh bool
}

// Bounds of the matches one search collects: it pauses after
// searchBatch more (a few screens) and stops at searchMaxResults.
const (
	searchBatch      = 100
	searchMaxResults = 1000
	// searchRecheck is how often a search answered while an index was
	// being built runs again, until the index is complete.
	searchRecheck = 3 * time.Second
)

// searchRecheckMsg says it is time to run search seq again (the index
// was being built when it was answered).
type searchRecheckMsg struct {
	owner *searchScreen
	seq   int
}

// recheckCmd asks for the search to run again in searchRecheck.
func (s *searchScreen) recheckCmd() tea.Cmd {
	owner, seq := s, s.seq
	return s.c.Tick(searchRecheck, func(time.Time) tea.Msg { return searchRecheckMsg{owner: owner, seq: seq} })
}

// rerun runs the search again from its start, keeping the results shown
// until its first step replaces them.
func (s *searchScreen) rerun() tea.Cmd {
	s.seq++
	s.cursor, s.refresh, s.running, s.paused, s.complete = "", true, true, false, false
	s.want = searchBatch
	return s.stepCmd()
}

type searchStepMsg struct {
	owner *searchScreen
	seq   int
	ret   *protocol.SearchFinderRet
	err   error
}

// NewSearch returns the content search of a computer's documents, limited
// to fileType when it is not empty.
func NewSearch(c *common.Common, computer, fileType string) *searchScreen {
	ti := textinput.New()
	ti.CharLimit = protocol.SearchMaxQuery
	s := &searchScreen{c: c, comp: computer, live: live.New(computer, false), fileType: fileType, input: ti, editing: true}
	s.setMode(false)
	s.styleInput()
	return s
}

// setMode chooses the ranked word search or the literal one.
func (s *searchScreen) setMode(literal bool) {
	s.literal = literal
	if literal {
		s.input.Prompt = "find literally: "
		s.input.Placeholder = "text in the documents' lines, as typed"
	} else {
		s.input.Prompt = "search for: "
		s.input.Placeholder = `words, "a phrase", pre* (ctrl+l: literal)`
	}
}

func (s *searchScreen) styleInput() { s.c.Styles.StyleInput(&s.input) }

func (s *searchScreen) Init() tea.Cmd { return s.input.Focus() }

func (s *searchScreen) SetSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	s.input.SetWidth(max(10, w-16))
	s.nav.SetHeight(max(h-4, 1))
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
	s.paused, s.want, s.indexing, s.indexed, s.indexNote = false, searchBatch, nil, 0, ""
	s.docsFound = map[string]bool{}
	s.nav = list.Nav{}
	s.nav.SetHeight(max(s.h-4, 1))
	return s.stepCmd()
}

// stepCmd asks the Computer for the next step of the search.
func (s *searchScreen) stepCmd() tea.Cmd {
	q := protocol.SearchQuery{Query: s.query, Literal: s.literal, FileType: s.fileType, Cursor: s.cursor}
	comp, seq, owner := s.comp, s.seq, s
	return common.Call(s.c, func(ctx context.Context, b common.Backend) (*protocol.SearchFinderRet, error) {
		ret, err := b.SearchFinder(ctx, comp, q)
		if ret != nil {
			c := *ret
			c.Matches = common.Mapped(ret.Matches, common.SanitizeMatch)
			ret = &c
		}
		return ret, err
	}, func(ret *protocol.SearchFinderRet, err error) tea.Msg {
		return searchStepMsg{owner: owner, seq: seq, ret: ret, err: err}
	})
}

func (s *searchScreen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case searchStepMsg:
		if msg.owner != s || msg.seq != s.seq {
			return nil // an older search, or one the user stopped
		}
		return s.onStep(msg)
	case searchRecheckMsg:
		if msg.owner != s || msg.seq != s.seq || s.running || s.stopped {
			return nil
		}
		return s.rerun()
	case common.ThemeMsg:
		s.styleInput()
	case common.LeaveOfficeMsg, common.EnterOfficeMsg:
		s.live.Observe(msg) // the title says when the computer left
	case tea.KeyPressMsg:
		return s.key(msg)
	case tea.MouseWheelMsg:
		s.nav.Update(msg, s.c.Keys)
		return s.more()
	}
	return nil
}

func (s *searchScreen) onStep(msg searchStepMsg) tea.Cmd {
	s.running = false
	s.steps++
	if msg.err != nil {
		s.err = common.DescribeError(msg.err, common.OpSearch)
		return nil
	}
	ret := msg.ret
	if s.refresh {
		s.refresh = false
		s.results, s.docsFound, s.capped, s.steps = nil, map[string]bool{}, false, 1
	}
	s.scanned, s.total, s.unread = ret.ScannedDocuments, ret.TotalDocuments, ret.Unreadable
	s.indexing, s.indexed, s.indexNote = ret.Indexing, ret.IndexedDocuments, common.OneLine(ret.IndexNote)
	for _, m := range ret.Matches {
		if len(s.results) >= searchMaxResults {
			s.capped = true
			break
		}
		s.results = append(s.results, m)
		s.docsFound[m.URI] = true
	}
	s.nav.SetLen(len(s.results))
	s.cursor = ret.NextCursor
	if s.cursor == "" {
		s.complete = true
		return s.recheckIfIndexing()
	}
	if s.capped {
		return s.recheckIfIndexing()
	}
	if len(s.results) >= s.want {
		s.paused = true
		return s.recheckIfIndexing()
	}
	s.running = true
	return s.stepCmd()
}

// recheckIfIndexing runs the search again later when its answer came
// while an index was being built (a literal search scans everything:
// the index changes nothing of it).
func (s *searchScreen) recheckIfIndexing() tea.Cmd {
	if s.indexing == nil || s.literal {
		return nil
	}
	return s.recheckCmd()
}

// more asks for the next matches of a paused search when the cursor nears
// the end of those it has.
func (s *searchScreen) more() tea.Cmd {
	from, to := s.nav.Visible()
	if !s.paused || s.nav.Cursor < len(s.results)-max(to-from, 10) {
		return nil
	}
	s.paused, s.running = false, true
	s.want = len(s.results) + searchBatch
	return s.stepCmd()
}

func (s *searchScreen) key(msg tea.KeyPressMsg) tea.Cmd {
	k := s.c.Keys
	if key.Matches(msg, k.Search.Literal) {
		s.setMode(!s.literal)
		s.c.Notice = "word search: ranked, whole words"
		if s.literal {
			s.c.Notice = "literal search: every line holding the text"
		}
		if s.editing || s.query == "" {
			return nil
		}
		return s.start(s.query)
	}
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
				return common.PopCmd
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
			s.c.Notice = "search stopped"
			return nil
		}
		return common.PopCmd
	case key.Matches(msg, k.Nav.Enter):
		if s.nav.Cursor < len(s.results) {
			return s.openCmd(s.results[s.nav.Cursor])
		}
		return nil
	case key.Matches(msg, k.Global.Refresh):
		if s.query != "" {
			return s.start(s.query)
		}
		return nil
	}
	s.nav.Update(msg, k)
	return s.more()
}

// openCmd opens the page of a match with what matched highlighted at it
// (the query itself for a literal search; the word found, say "Budget"
// for "budget" or "reading" for "read*", for a word search).
func (s *searchScreen) openCmd(m protocol.SearchMatch) tea.Cmd {
	u, err := dpe.Parse(m.URI)
	if err != nil || u.Level() != dpe.LevelPage {
		s.c.Notice = "the match has no page URI: " + common.OneLine(m.URI)
		return nil
	}
	comp, query := s.comp, s.query
	if !s.literal && m.Start < m.End && m.End <= len(m.Line) {
		query = m.Line[m.Start:m.End]
	}
	c := s.c
	return common.Call(s.c, func(ctx context.Context, b common.Backend) (common.FollowedMsg, error) {
		doc, err := b.ReadDocument(ctx, comp, u.DocumentURI())
		if err != nil {
			return common.FollowedMsg{}, err
		}
		info := docInfo{uri: u.DocumentURI(), title: common.OneLine(doc.Title), path: m.Path, fileURI: doc.FileURI, pages: doc.PageCount}
		p := newPageScreen(c, comp, info, u.Page)
		p.highlight, p.highlightAt, p.jumpTo = query, m.Line, m.ElementID
		return common.FollowedMsg{Screen: p}, nil
	}, func(fm common.FollowedMsg, err error) tea.Msg {
		if err != nil {
			return common.FollowedMsg{Notice: "cannot open the match: " + common.DescribeError(err, common.OpDocument)}
		}
		return fm
	})
}

func (s *searchScreen) View() string {
	st := s.c.Styles
	title := st.Title.Render("Search") + st.Muted.Render(" · "+common.OneLine(s.comp))
	if s.fileType != "" {
		title += "  " + st.Keyword.Render("type:"+s.fileType)
	}
	if s.live.Gone() {
		title += "  " + st.Error.Render("computer left the office")
	}
	lines := []string{title}
	if s.editing {
		lines = append(lines, s.input.View())
	} else {
		lines = append(lines, st.Prompt.Render(s.input.Prompt)+st.Keyword.Render(s.query))
	}
	lines = append(lines, s.progressLine())
	if s.err != "" {
		lines = append(lines, st.Error.Render("✗ "+s.err))
	}
	if s.query != "" && len(s.results) == 0 && !s.running && s.err == "" {
		lines = append(lines, "", st.Muted.Render("  No document contains “"+s.query+"”."))
	}
	from, to := s.nav.Visible()
	scoreW, titleW, pathW, lineW := s.columns()
	var paths []string
	if pathW > 0 {
		for _, m := range s.results[from:to] {
			paths = append(paths, common.OneLine(m.Path))
		}
		paths = shorten.Paths(paths, pathW)
	}
	for i := from; i < to; i++ {
		path := ""
		if pathW > 0 {
			path = common.Cell(paths[i-from], pathW) + " "
		}
		lines = append(lines, s.row(s.results[i], i == s.nav.Cursor, scoreW, titleW, path, lineW))
	}
	return strings.Join(common.PadLines(lines, s.h), "\n")
}

// progressLine says how far the search got, and how far the index is
// built while it is.
func (s *searchScreen) progressLine() string {
	st := s.c.Styles
	if s.query == "" {
		return st.Muted.Render("The Computer searches the text of its documents, best matches first; esc stops.")
	}
	docs := common.Count(len(s.docsFound), "page")
	n := common.Count(len(s.results), "match")
	if len(s.results) != 1 {
		n = common.Itoa(len(s.results)) + " matches"
	}
	of := common.Itoa(s.scanned) + "/" + common.Itoa(s.total) + " documents"
	var line string
	switch {
	case s.running:
		line = "searching… " + of + " · " + n + " on " + docs
	case s.complete:
		line = "done: " + common.Itoa(s.total) + " documents searched · " + n + " on " + docs
	case s.capped:
		line = "stopped at the first " + common.Itoa(searchMaxResults) + " matches (" + of + ")"
	case s.paused:
		line = "best " + n + " · " + of + " · more as you scroll"
	case s.stopped:
		line = "stopped: " + of + " · " + n + " on " + docs
	default:
		line = of + " · " + n
	}
	if s.unread > 0 {
		line += " · " + common.Count(s.unread, "document") + " could not be read"
	}
	out := st.Muted.Render(line)
	if ix := s.indexing; ix != nil && !s.literal {
		// The pages the index does not hold yet were scanned: they come
		// last, unranked (·).
		left := ""
		if ix.RemainingMs > 0 {
			left = ", about " + shorten.Duration(time.Duration(ix.RemainingMs)*time.Millisecond) + " left"
		}
		what := "indexing " + thousands(ix.Indexed) + "/" + thousands(ix.Total) + left
		if ix.Total == 0 {
			what = "opening the index" // nothing counted yet
		}
		out += st.Muted.Render(" · ") + st.Warning.Render(what+", partly from the index")
	}
	if s.indexNote != "" && !s.literal {
		out += st.Muted.Render(" · ") + st.Warning.Render("unranked: "+s.indexNote)
	}
	return out
}

// thousands writes n with comma separators (9,580).
func thousands(n int) string { return humanize.Comma(int64(n)) }

// whereW is the width of a result's "p. N" column.
const whereW = 7

// scoreW is the width of a result's score column.
const scoreW = 6

// columns returns the widths of the results' score (0 when no result is
// ranked: a literal search), title, path (0 when no result has a path) and
// line columns.
func (s *searchScreen) columns() (scoreCol, titleW, pathW, lineW int) {
	w := s.w - 2
	titleW = min(max(w/4, 10), 36)
	if slices.ContainsFunc(s.results, func(m protocol.SearchMatch) bool { return m.Path != "" }) {
		// The path says more than a title (READMEs, main.go): it gets
		// the more room.
		titleW, pathW = min(max(w/6, 10), 28), min(max(w/4, 12), 40)
	}
	if slices.ContainsFunc(s.results, func(m protocol.SearchMatch) bool { return m.Score > 0 }) {
		scoreCol = scoreW
	}
	lineW = w - titleW - whereW - 2
	if pathW > 0 {
		lineW -= pathW + 1
	}
	if scoreCol > 0 {
		lineW -= scoreCol + 1
	}
	return scoreCol, titleW, pathW, max(lineW, 10)
}

// row draws a result: its score (· for a page found by scanning),
// document title, its path (already cut to its column, with the space
// after it), page, and the line with every match highlighted.
func (s *searchScreen) row(m protocol.SearchMatch, sel bool, scoreCol, titleW int, path string, lineW int) string {
	st := s.c.Styles
	where := common.CellLeft("p. "+common.Itoa(m.PageIndex+1), whereW)
	title := common.OneLine(m.Title)
	if title == "" {
		title = m.DocRef
	}
	score := ""
	if scoreCol > 0 {
		sc := "·"
		if m.Score > 0 {
			sc = strconv.FormatFloat(m.Score, 'f', 2, 64)
		}
		score = common.CellLeft(sc, scoreCol) + " "
	}
	spans := m.Highlights
	if len(spans) == 0 && m.Start < m.End {
		spans = [][2]int{{m.Start, m.End}}
	}
	text, cells := matchWindow(oneLineKeep(m.Line), spans, lineW)
	shown := common.Cell(text, lineW)
	if len(cells) > 0 {
		var ranges []lipgloss.Range
		for _, c := range cells {
			ranges = append(ranges, lipgloss.NewRange(c[0], c[1], st.Match))
		}
		shown = lipgloss.StyleRanges(shown, ranges...)
	}
	row := st.Muted.Render(score) + common.Cell(title, titleW) + " " + st.Muted.Render(path+where) + " " + shown
	if sel {
		return st.Selected.Render("▸ "+ansi.Strip(score+common.Cell(title, titleW)+" "+path+where+" ")) + shown
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

// matchWindow cuts line to at most w cells around the first match and
// returns the cell ranges of the matches (byte offsets [start, end) in
// line) that show in the cut.
func matchWindow(line string, spans [][2]int, w int) (string, [][2]int) {
	spans = slices.DeleteFunc(slices.Clone(spans), func(sp [2]int) bool {
		return sp[0] < 0 || sp[1] > len(line) || sp[0] >= sp[1]
	})
	if len(spans) == 0 {
		return ansi.Truncate(line, w, "…"), nil
	}
	first := spans[0][0]
	pre, cut := line[:first], 0
	// Keep about a third of the room before the first match.
	if ansi.StringWidth(pre) > w/3 {
		r := []rune(pre)
		for len(r) > 0 && ansi.StringWidth(string(r)) > w/3-1 {
			r = r[1:]
		}
		cut = first - len(string(r))
		pre = "…" + string(r)
	}
	out := ansi.Truncate(pre+line[first:], w, "…")
	shift := ansi.StringWidth(pre) - ansi.StringWidth(line[cut:first])
	var cells [][2]int
	for _, sp := range spans {
		if sp[0] < cut {
			continue
		}
		a := shift + ansi.StringWidth(line[cut:sp[0]])
		b := a + ansi.StringWidth(line[sp[0]:sp[1]])
		if a >= w {
			break
		}
		cells = append(cells, [2]int{a, min(b, w)})
	}
	return out, cells
}

func (s *searchScreen) Crumb() string {
	if s.query == "" {
		return "search"
	}
	return "search “" + s.query + "”"
}

func (s *searchScreen) Keys() help.KeyMap {
	k := s.c.Keys
	if s.editing {
		h := k.ModalHelp()
		h.Short = append(h.Short, k.Search.Literal)
		return h
	}
	stop := k.Nav.Back
	if s.running {
		stop = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop"))
	}
	edit := key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "new search"))
	return keymap.HelpKeys{
		Short: []key.Binding{k.Nav.Up, k.Nav.Down, k.Nav.Enter, stop, edit, k.Search.Literal, k.Global.Refresh, k.Global.Help, k.Global.Quit},
		Full:  [][]key.Binding{k.ListHelp(), {edit, k.Search.Literal, k.Global.Refresh}},
	}
}

func (s *searchScreen) URI() string {
	if s.nav.Cursor < len(s.results) {
		return s.results[s.nav.Cursor].URI
	}
	return ""
}

func (s *searchScreen) Capturing() bool  { return s.editing }
func (s *searchScreen) Computer() string { return s.comp }

func (s *searchScreen) Status() string {
	if len(s.results) == 0 {
		return ""
	}
	return "match " + common.Itoa(s.nav.Cursor+1) + "/" + common.Itoa(len(s.results))
}
