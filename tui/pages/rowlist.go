package pages

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/components/list"
	"github.com/smcp-browse/smcp-browse/tui/keymap"
	"github.com/smcp-browse/smcp-browse/tui/live"
)

// rowList is what the screens listing one computer's things by name (its
// SKILLs, its tools) share: the read and its live re-reads, the cursor
// kept on the same name across them, and the frame of title, error line,
// column heads and rows. The screen embedding it says what a row shows
// and what enter opens.
type rowList[T any] struct {
	c       *common.Common
	comp    string
	live    live.Tracker
	spec    rowSpec[T]
	rows    []T
	nav     list.Nav
	w, h    int
	req     uint64
	loading bool
	loaded  bool
	err     string
}

// rowSpec is what a listing screen says of its rows.
type rowSpec[T any] struct {
	title string // the screen's title
	noun  string // one row, "skill"
	empty string // the sentence for no rows
	op    common.Operation
	// name identifies a row across re-reads.
	name func(T) string
	// fetch reads the rows (in a command).
	fetch func(ctx context.Context, b common.Backend, computer string) ([]T, error)
	// open is what enter on a row does.
	open func(T) tea.Cmd
}

// rowsMsg answers a rowList's read.
type rowsMsg[T any] struct {
	req  uint64
	rows []T
	err  error
}

func newRowList[T any](c *common.Common, computer string, lt live.Tracker, spec rowSpec[T]) rowList[T] {
	return rowList[T]{c: c, comp: computer, live: lt, spec: spec}
}

func (s *rowList[T]) Init() tea.Cmd { return s.loadCmd() }

func (s *rowList[T]) loadCmd() tea.Cmd {
	req := s.c.Req()
	s.req, s.loading = req, true
	comp, fetch := s.comp, s.spec.fetch
	return common.Call(s.c, func(ctx context.Context, b common.Backend) ([]T, error) {
		return fetch(ctx, b, comp)
	}, func(rows []T, err error) tea.Msg { return rowsMsg[T]{req: req, rows: rows, err: err} })
}

func (s *rowList[T]) SetSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	s.nav.SetHeight(max(h-s.headLines(), 1))
	return nil
}

// headLines is the number of lines above the list.
func (s *rowList[T]) headLines() int {
	if s.err != "" || s.live.Gone() {
		return 3
	}
	return 2
}

func (s *rowList[T]) relayout() tea.Cmd { return s.SetSize(s.w, s.h) }

func (s *rowList[T]) Update(msg tea.Msg) tea.Cmd {
	if cmd, ok := s.live.Handle(msg, s.relayout, s.loadCmd); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case rowsMsg[T]:
		if msg.req != s.req {
			return nil
		}
		s.loading = false
		if s.live.Done() {
			return s.loadCmd()
		}
		s.apply(msg)
		return s.relayout()
	case tea.KeyPressMsg:
		k := s.c.Keys
		switch {
		case key.Matches(msg, k.Nav.Back):
			return common.PopCmd
		case key.Matches(msg, k.Global.Refresh):
			return s.live.RereadCmd(s.loadCmd)
		case key.Matches(msg, k.Nav.Enter):
			if r, ok := s.selected(); ok {
				return s.spec.open(r)
			}
			return nil
		}
		s.nav.Update(msg, k)
	case tea.MouseWheelMsg:
		s.nav.Update(msg, s.c.Keys)
	}
	return nil
}

// apply takes an answer, keeping the cursor on the row it was on.
func (s *rowList[T]) apply(msg rowsMsg[T]) {
	if msg.err != nil {
		s.err = common.DescribeError(msg.err, s.spec.op)
		return
	}
	prev, had := s.selected()
	s.err, s.loaded, s.rows = "", true, msg.rows
	s.nav.SetLen(len(s.rows))
	if had {
		for i, r := range s.rows {
			if s.spec.name(r) == s.spec.name(prev) {
				s.nav.Set(i)
			}
		}
	}
	s.c.Refreshed = s.c.Now()
}

func (s *rowList[T]) selected() (T, bool) {
	if s.nav.Cursor >= len(s.rows) {
		var zero T
		return zero, false
	}
	return s.rows[s.nav.Cursor], true
}

// view draws the title, the error line, the column heads and the visible
// rows, each cut to the width (the selected one highlighted).
func (s *rowList[T]) view(heads string, row func(T) string) string {
	st := s.c.Styles
	details := []string{common.OneLine(s.comp)}
	if s.loaded {
		details = append(details, common.Count(len(s.rows), s.spec.noun))
	}
	lines := computerHead(st, s.spec.title, details, s.loading, s.live.Gone(), s.err)
	if s.loaded && len(s.rows) == 0 {
		return strings.Join(append(lines, st.Muted.Render(s.spec.empty)), "\n")
	}
	lines = append(lines, st.ColumnHead.Render(common.Cell(heads, s.w)))
	from, to := s.nav.Visible()
	for i := from; i < to; i++ {
		line := common.Cell(row(s.rows[i]), s.w)
		if i == s.nav.Cursor {
			line = st.Selected.Render(line)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

func (s *rowList[T]) Keys() help.KeyMap {
	k := s.c.Keys
	return keymap.HelpKeys{
		Short: []key.Binding{k.Nav.Up, k.Nav.Down, k.Nav.Enter, k.Nav.Back, k.Global.Refresh, k.Global.Help, k.Global.Quit},
		Full:  [][]key.Binding{k.ListHelp(), {k.Nav.Enter, k.Nav.Back, k.Global.Refresh}},
	}
}

func (s *rowList[T]) Capturing() bool  { return false }
func (s *rowList[T]) Computer() string { return s.comp }

func (s *rowList[T]) Status() string {
	if len(s.rows) == 0 {
		return ""
	}
	return s.spec.noun + " " + common.Itoa(s.nav.Cursor+1) + "/" + common.Itoa(len(s.rows))
}
