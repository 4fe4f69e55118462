// Package pager is a scrollable view over pre-rendered lines, with search
// and pinned table headers.
package pager

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/keymap"
	"github.com/smcp-browse/smcp-browse/tui/styles"
)

// Model is a scrollable view over pre-rendered lines with in-text search. It
// only slices: the content is rendered once (per width) by its owner, and a
// frame touches just the visible lines. (bubbles' viewport places search
// highlights by walking the ANSI-stripped text while indexing the styled one,
// which misplaces them on glamour output; this pager matches on stripped lines
// and styles cell ranges.)
type Model struct {
	lines []string // styled content lines
	wide  []int8   // per line: 0 not measured, 1 fits, 2 wider than w
	plain []string // ANSI-stripped lines, built on the first search
	y     int      // first visible line
	w, h  int

	query   string
	matches []match
	cur     int // index of the current match, -1 when none

	// sticky pins a table's header row (and its rule) at the top while the
	// view is inside the table's body (rendered Markdown).
	sticky bool
	tables []tableSpan // found on the first frame that needs them
	found  bool        // tables has been computed for these lines
	id     *string     // changes with the content (for callers' caches)
}

// tableSpan is a rendered table: its header line, the rule under it and
// its last line.
type tableSpan struct{ head, rule, end int }

// match is a search hit: a cell range on one line.
type match struct{ line, start, end int }

// New returns an empty pager.
func New() Model { return Model{cur: -1} }

// SetContent replaces the content, keeping the scroll offset where it can and
// re-running the current search.
func (p *Model) SetContent(s string) {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		p.lines = nil
	} else {
		p.lines = strings.Split(s, "\n")
	}
	p.plain = nil
	p.wide = nil
	p.tables, p.found = nil, false
	p.id = new(string)
	p.clampY()
	if p.query != "" {
		p.Search(p.query)
	}
}

// SetSize gives the view its width and height, keeping the offset in range.
func (p *Model) SetSize(w, h int) {
	if w != p.w {
		p.wide = nil
	}
	p.w, p.h = max(w, 0), max(h, 0)
	p.clampY()
}

// MaxY is the largest scroll offset: the last line at the bottom of the view.
func (p *Model) MaxY() int { return max(0, len(p.lines)-p.h) }

func (p *Model) clampY() { p.y = min(max(p.y, 0), p.MaxY()) }

// SetY scrolls so that line n is the first visible one (clamped).
func (p *Model) SetY(n int) {
	p.y = n
	p.clampY()
}

func (p *Model) scroll(n int) { p.SetY(p.y + n) }

// Update handles the scrolling keys and the mouse wheel; it reports whether
// msg was one of them.
func (p *Model) Update(msg tea.Msg, k keymap.KeyMap) bool {
	m, ok := keymap.MoveOf(msg, k, p.h)
	if !ok {
		return false
	}
	switch {
	case m.Top:
		p.SetY(0)
	case m.Bottom:
		p.SetY(p.MaxY())
	default:
		p.scroll(m.By)
	}
	return true
}

// Search finds every case-insensitive occurrence of q, makes the first one
// at or below the top of the view current and scrolls to it. It returns the
// number of matches; an empty q clears the search.
func (p *Model) Search(q string) int {
	p.query, p.matches, p.cur = q, nil, -1
	if q == "" {
		return 0
	}
	lowQ := strings.ToLower(q)
	p.PlainLines()
	for i, l := range p.plain {
		hay, needle := strings.ToLower(l), lowQ
		if len(hay) != len(l) || len(needle) != len(q) {
			hay, needle = l, q // case mapping changed byte lengths: match exactly
		}
		for off := 0; off < len(hay); {
			j := strings.Index(hay[off:], needle)
			if j < 0 {
				break
			}
			start, end := off+j, off+j+len(needle)
			p.matches = append(p.matches, match{
				line:  i,
				start: ansi.StringWidth(l[:start]),
				end:   ansi.StringWidth(l[:end]),
			})
			off = end
		}
	}
	if len(p.matches) == 0 {
		return 0
	}
	p.cur = 0
	for i, m := range p.matches {
		if m.line >= p.y {
			p.cur = i
			break
		}
	}
	p.reveal()
	return len(p.matches)
}

// PlainLines returns the content without its styling, line by line.
func (p *Model) PlainLines() []string {
	if p.plain == nil {
		p.plain = make([]string, len(p.lines))
		for i, l := range p.lines {
			p.plain[i] = ansi.Strip(l)
		}
	}
	return p.plain
}

// ContentID identifies the current content: it changes with setContent.
func (p *Model) ContentID() *string { return p.id }

// NearLine makes the first match at or after line l current and reveals
// it (l < 0 leaves the search as it is).
func (p *Model) NearLine(l int) {
	if l < 0 || len(p.matches) == 0 {
		return
	}
	for i, m := range p.matches {
		if m.line >= l {
			p.cur = i
			break
		}
	}
	p.reveal()
}

// stickyHeader returns the table whose header is pinned at scroll offset
// y: the header line has scrolled off and table rows still fill the view
// under it.
func (p *Model) stickyHeader() (tableSpan, bool) {
	if !p.sticky || p.h < 6 {
		return tableSpan{}, false
	}
	if !p.found {
		p.tables = findTables(p.PlainLines())
		p.found = true
	}
	for _, t := range p.tables {
		if p.y > t.head && p.y+2 <= t.end {
			return t, true
		}
	}
	return tableSpan{}, false
}

// findTables finds the tables glamour drew: a rule of '─' and '┼' (or
// ASCII '-' and '|') under a header line, and the rows of '│' after it.
func findTables(lines []string) []tableSpan {
	var out []tableSpan
	for i := 1; i < len(lines); i++ {
		if !isRule(lines[i]) || !strings.ContainsAny(lines[i-1], "│|") {
			continue
		}
		end := i
		for end+1 < len(lines) && strings.ContainsAny(lines[end+1], "│|") && !isRule(lines[end+1]) {
			end++
		}
		if end > i {
			out = append(out, tableSpan{head: i - 1, rule: i, end: end})
		}
		i = end
	}
	return out
}

// isRule reports whether a line is a table's header rule.
func isRule(l string) bool {
	t := strings.TrimSpace(l)
	if !strings.ContainsAny(t, "┼+|") || len(t) < 3 {
		return false
	}
	for _, r := range t {
		switch r {
		case '─', '┼', '-', '+', '|', ':', ' ', '━', '╋':
		default:
			return false
		}
	}
	return true
}

// Next moves to the following match (wrapping); delta -1 moves back.
func (p *Model) Next(delta int) {
	if len(p.matches) == 0 {
		return
	}
	p.cur = (p.cur + delta + len(p.matches)) % len(p.matches)
	p.reveal()
}

// reveal scrolls the current match into view, a third from the top.
func (p *Model) reveal() {
	if p.cur < 0 {
		return
	}
	l := p.matches[p.cur].line
	if l < p.y || l >= p.y+p.h {
		p.SetY(l - p.h/3)
	}
}

// MatchStatus describes the search for the status line ("3/17 'foo'").
func (p *Model) MatchStatus() string {
	if p.query == "" {
		return ""
	}
	if len(p.matches) == 0 {
		return "no match for “" + p.query + "”"
	}
	return "match " + common.Itoa(p.cur+1) + "/" + common.Itoa(len(p.matches)) + " “" + p.query + "”"
}

// View renders exactly h lines of at most w cells.
func (p *Model) View(st styles.Styles) string {
	if p.h <= 0 {
		return ""
	}
	end := min(len(p.lines), p.y+p.h)
	out := make([]string, 0, p.h)
	from := p.y
	if t, ok := p.stickyHeader(); ok {
		out = append(out, p.styledLine(t.head, nil), p.styledLine(t.rule, nil))
		from += 2 // the rows scrolled under the pinned header
	}
	mi := 0
	for mi < len(p.matches) && p.matches[mi].line < from {
		mi++
	}
	for i := from; i < end; i++ {
		var ranges []lipgloss.Range
		for ; mi < len(p.matches) && p.matches[mi].line == i; mi++ {
			stl := st.Match
			if mi == p.cur {
				stl = st.MatchActive
			}
			m := p.matches[mi]
			ranges = append(ranges, lipgloss.NewRange(m.start, m.end, stl))
		}
		out = append(out, p.styledLine(i, ranges))
	}
	for len(out) < p.h {
		out = append(out, "")
	}
	return strings.Join(out, "\n")
}

// styledLine returns line i with the match ranges styled, cut to the
// pager's width.
func (p *Model) styledLine(i int, ranges []lipgloss.Range) string {
	line := p.lines[i]
	if len(ranges) > 0 {
		line = lipgloss.StyleRanges(line, ranges...)
	}
	if p.isWide(i) {
		line = ansi.Truncate(line, p.w, "…")
	}
	return line
}

// isWide reports whether line i is wider than the pager, measuring a line
// the first time it is shown at a width.
func (p *Model) isWide(i int) bool {
	if p.wide == nil {
		p.wide = make([]int8, len(p.lines))
	}
	if p.wide[i] == 0 {
		l := p.lines[i]
		p.wide[i] = 1
		if len(l) > p.w && ansi.StringWidth(l) > p.w {
			p.wide[i] = 2
		}
	}
	return p.wide[i] == 2
}

// Percent is how far down the view is, for the status line.
func (p *Model) Percent() int {
	if p.MaxY() == 0 {
		return 100
	}
	return p.y * 100 / p.MaxY()
}

// YOffset is the first visible line.
func (p *Model) YOffset() int { return p.y }

// Height is how many lines the view shows.
func (p *Model) Height() int { return p.h }

// IsEmpty reports whether there is no content.
func (p *Model) IsEmpty() bool { return p.lines == nil }

// SearchQuery is the search in force ("" when none).
func (p *Model) SearchQuery() string { return p.query }

// SetSticky pins table headers (rendered Markdown) while scrolling through
// the table's rows.
func (p *Model) SetSticky(on bool) { p.sticky = on }
