// Package pages holds the browser's screens: the office's computers, a
// computer's catalog and content search, a document, a page, an element
// and the Desktop. Each implements common.Screen; the App in package tui
// stacks them.
package pages

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/components/picker"
	"github.com/smcp-browse/smcp-browse/tui/keymap"
	"github.com/smcp-browse/smcp-browse/tui/live"
)

// catalogScreen is a Computer's Finder catalog: the list (catalog_list.go),
// the preview pane of a wide terminal (catalog_preview.go) and live reloads
// that keep the selection on the same document (catalog_reload.go). It
// filters on the Computer (keywords that must all match, debounced; a file
// type), sorts there, and opens the content search.
type catalogScreen struct {
	c    *common.Common
	comp string
	live live.Tracker
	w, h int

	query   protocol.FinderQuery // keywords, type and sort (offsets per chunk)
	list    catalogList
	skipped catalogSkipped // what the document servers left out
	preview catalogPreview
	reload  *catalogReload
	err     string
	// waiting: err says the document servers are on their way up (a
	// 4014 naming them starting, listing or restarting); the catalog
	// asks again after retryIn, and on notify:update_finder.
	waiting   bool
	retryIn   time.Duration
	retrySeq  int
	unsorted  bool           // the Computer ignored the sort
	typeCount map[string]int // file_types of the last answer (the extension)

	input     textinput.Model
	filtering bool
	filterSeq int
	before    []string // keywords when `/` was pressed, restored by esc
}

type finderMsg struct {
	req   uint64
	chunk int
	ret   *protocol.GetFinderRet
	err   error
}

// catalogRetryMsg asks again for a catalog whose document servers were
// still on their way up.
type catalogRetryMsg struct {
	owner *catalogScreen
	seq   int
}

// Retry delays while the document servers start: the first, and the most
// (the delay doubles in between).
const (
	firstRetry = time.Second
	maxRetry   = 16 * time.Second
)

type filterTickMsg struct {
	owner *catalogScreen
	seq   int
}

// typeCountsMsg answers the probe of which file types the catalog holds.
type typeCountsMsg struct {
	owner  *catalogScreen
	counts map[string]int
	err    error
}

// NewCatalog returns the screen of a computer's Finder catalog.
func NewCatalog(c *common.Common, computer string) *catalogScreen {
	ti := textinput.New()
	ti.Prompt = "/ "
	ti.Placeholder = "words that must all match (space or comma separated)"
	ti.CharLimit = 256
	s := &catalogScreen{
		c: c, comp: computer, live: live.New(computer, false), input: ti,
		query:   protocol.FinderQuery{MatchAll: true},
		list:    newCatalogList(c),
		preview: newCatalogPreview(c, computer),
	}
	s.styleInput()
	return s
}

func (s *catalogScreen) styleInput() { s.c.Styles.StyleInput(&s.input) }

func (s *catalogScreen) Init() tea.Cmd { return s.ensureCmd() }

// filtered reports whether anything narrows or orders the catalog.
func (s *catalogScreen) filtered() bool {
	return len(s.query.Keywords) > 0 || s.query.FileType != "" || s.query.Sort != ""
}

// rowsHeight is how many catalog rows fit.
func (s *catalogScreen) rowsHeight() int {
	h := s.h - 2 // title line, column heads
	if s.filtering || s.filtered() {
		h--
	}
	listW, _ := s.listWidth()
	h -= len(s.errLines(listW))
	return max(h, 1)
}

func (s *catalogScreen) SetSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	s.input.SetWidth(max(10, w-4))
	s.list.nav.SetHeight(s.rowsHeight())
	return s.movedCmd()
}

// ensureCmd requests the chunks covering the visible rows that are neither
// loaded nor on their way.
func (s *catalogScreen) ensureCmd() tea.Cmd {
	from, to := s.list.nav.Visible()
	if !s.list.haveTotal || s.list.total == 0 {
		// Nothing known, or an empty catalog being reloaded: ask for the
		// first chunk (an empty list has no visible rows to fetch).
		from, to = 0, 1
	}
	var cmds []tea.Cmd
	for _, n := range s.list.docs.missing(from, to) {
		cmds = append(cmds, s.fetchCmd(n))
	}
	return tea.Batch(cmds...)
}

// fetchCmd reads chunk n of the catalog.
func (s *catalogScreen) fetchCmd(n int) tea.Cmd {
	req := s.c.Req()
	s.list.docs.ask(n, req)
	q := s.query
	q.Keywords = slices.Clone(q.Keywords)
	q.Offset, q.Limit = s.list.docs.offset(n), catalogChunk
	comp := s.comp
	return common.Call(s.c, func(ctx context.Context, b common.Backend) (*protocol.GetFinderRet, error) {
		ret, err := b.GetFinder(ctx, comp, q)
		if ret != nil {
			c := *ret
			c.Documents = common.Mapped(ret.Documents, common.SanitizeSummary)
			ret = &c
		}
		return ret, err
	}, func(ret *protocol.GetFinderRet, err error) tea.Msg {
		return finderMsg{req: req, chunk: n, ret: ret, err: err}
	})
}

// restartCmd drops what is loaded and queries again. keepRows shows the
// old rows until the new ones arrive (a refresh); a new query starts empty.
func (s *catalogScreen) restartCmd(keepRows bool) tea.Cmd {
	if keepRows {
		s.list.docs.restart(true)
	} else {
		s.list.clear()
		s.reload = nil
		s.live.Cancel() // a new query: a re-read of the old one is moot
		s.unsorted = false
	}
	if !s.waiting {
		s.err = "" // a wait for the servers stays said until answered
	}
	return s.ensureCmd()
}

func (s *catalogScreen) Update(msg tea.Msg) tea.Cmd {
	switch s.live.Observe(msg) {
	case live.Changed:
		s.preview.clear()
		return s.live.RereadCmd(s.notifiedCmd)
	case live.Reconnected, live.Entered:
		// An enter of this computer always re-reads: after a Server restart
		// the browser may have re-joined first and read a 404 without ever
		// seeing the computer leave.
		s.preview.clear()
		return s.live.RereadCmd(func() tea.Cmd { return s.refreshCmd(true) })
	case live.Left:
		return nil
	}
	switch msg := msg.(type) {
	case finderMsg:
		return s.onFinder(msg)
	case catalogRetryMsg:
		if msg.owner == s && msg.seq == s.retrySeq && s.waiting && !s.list.docs.waiting() {
			return s.refreshCmd(true)
		}
	case filterTickMsg:
		if msg.owner == s && msg.seq == s.filterSeq && s.filtering {
			return s.applyKeywordsCmd(parseKeywords(s.input.Value()))
		}
	case previewTickMsg, previewMsg:
		return s.preview.update(msg, s.list.selected)
	case skippedMsg:
		if msg.owner == s {
			s.skipped.put(msg)
		}
	case typeCountsMsg:
		if msg.owner == s {
			return s.openTypePickerCmd(msg.counts, msg.err)
		}
	case common.ThemeMsg:
		s.styleInput()
	case tea.KeyPressMsg:
		return s.key(msg)
	case tea.MouseWheelMsg:
		s.list.nav.Update(msg, s.c.Keys)
		return s.movedCmd()
	}
	return nil
}

// retryCmd schedules the next try while the document servers are on
// their way up (transient), backing off; otherwise it stops trying.
func (s *catalogScreen) retryCmd(transient bool) tea.Cmd {
	s.waiting = transient
	s.retrySeq++
	if !transient {
		s.retryIn = 0
		return nil
	}
	s.retryIn = min(max(2*s.retryIn, firstRetry), maxRetry)
	seq := s.retrySeq
	return s.c.Tick(s.retryIn, func(time.Time) tea.Msg { return catalogRetryMsg{owner: s, seq: seq} })
}

func (s *catalogScreen) onFinder(msg finderMsg) tea.Cmd {
	if !s.list.docs.answered(msg.chunk, msg.req) {
		return nil // stale: an older query or generation
	}
	if msg.err != nil {
		s.err = common.DescribeError(msg.err, common.OpFinder)
		s.list.nav.SetHeight(s.rowsHeight())
		if !s.list.docs.waiting() {
			s.reload = nil
			s.live.Cancel()
		}
		return s.retryCmd(common.UnavailableTransient(msg.err))
	}
	s.err, s.waiting, s.retryIn = "", false, 0
	ret := msg.ret
	if ret == nil {
		ret = &protocol.GetFinderRet{}
	}
	if ret.FileTypes != nil {
		s.typeCount = ret.FileTypes
	}
	if s.query.Sort != "" && !s.unsorted && !sortedBy(ret.Documents, s.query.Sort) {
		s.unsorted = true
		s.c.Notice = "this computer does not sort its catalog: shown in its own order"
	}
	s.list.put(msg.chunk, ret)
	s.list.nav.SetHeight(s.rowsHeight())
	s.c.Refreshed = s.c.Now()
	cmd := tea.Batch(s.followSelection(), s.ensureCmd(), s.skippedCmd(ret.Documents))
	if !s.list.docs.waiting() && s.reload != nil {
		s.finishReload()
		s.skipped.asked = nil // the next answers ask again: files may have come or gone
		if s.live.Done() {    // a burst of notifications: one more reload at the end
			cmd = tea.Batch(cmd, s.notifiedCmd())
		}
	}
	return tea.Batch(cmd, s.movedCmd())
}

// movedCmd runs after anything that may move the cursor: it loads what
// became visible and schedules the preview of the highlighted document.
func (s *catalogScreen) movedCmd() tea.Cmd {
	cmd := s.ensureCmd()
	if s.w < widePreview {
		return cmd
	}
	d, ok := s.list.selected()
	if !ok {
		return cmd
	}
	return tea.Batch(cmd, s.preview.want(d))
}

func (s *catalogScreen) key(msg tea.KeyPressMsg) tea.Cmd {
	k := s.c.Keys
	if s.filtering {
		return s.filterKey(msg)
	}
	switch {
	case key.Matches(msg, k.Catalog.Filter):
		s.filtering = true
		s.before = slices.Clone(s.query.Keywords)
		s.input.SetValue(strings.Join(s.query.Keywords, " "))
		s.input.CursorEnd()
		s.list.nav.SetHeight(s.rowsHeight())
		return s.input.Focus()
	case key.Matches(msg, k.Catalog.FileType):
		if s.typeCount != nil {
			return s.openTypePickerCmd(s.typeCount, nil)
		}
		return s.probeTypesCmd()
	case key.Matches(msg, k.Catalog.Sort):
		return s.openSortPickerCmd()
	case key.Matches(msg, k.Catalog.Search):
		return common.PushCmd(NewSearch(s.c, s.comp, s.query.FileType))
	case key.Matches(msg, k.Global.Refresh):
		return s.refreshCmd(false)
	case key.Matches(msg, k.Nav.Enter):
		if d, ok := s.list.selected(); ok {
			return common.PushCmd(NewDocument(s.c, s.comp, d))
		}
		return nil
	case key.Matches(msg, k.Nav.Back):
		if s.filtered() {
			// Esc clears what the filter line's hint says: keywords, type
			// and sort.
			s.query.Keywords, s.query.FileType, s.query.Sort = nil, "", ""
			s.input.SetValue("")
			s.list.nav.SetHeight(s.rowsHeight())
			return s.restartCmd(false)
		}
		return common.PopCmd
	}
	if s.list.nav.Update(msg, k) {
		s.reselect()
		return s.movedCmd()
	}
	return nil
}

// filterKey handles a key while the filter field has the keyboard.
func (s *catalogScreen) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	k := s.c.Keys
	switch {
	case key.Matches(msg, k.Modal.Submit):
		s.filtering = false
		s.input.Blur()
		s.list.nav.SetHeight(s.rowsHeight())
		return s.applyKeywordsCmd(parseKeywords(s.input.Value()))
	case key.Matches(msg, k.Modal.Cancel):
		s.filtering = false
		s.input.Blur()
		s.input.SetValue(strings.Join(s.before, " "))
		s.list.nav.SetHeight(s.rowsHeight())
		return s.applyKeywordsCmd(s.before)
	}
	old := s.input.Value()
	var cmd tea.Cmd
	s.input, cmd = s.input.Update(msg)
	if s.input.Value() == old {
		return cmd
	}
	s.filterSeq++
	seq := s.filterSeq
	return tea.Batch(cmd, s.c.Tick(s.c.Opts.Debounce, func(time.Time) tea.Msg { return filterTickMsg{owner: s, seq: seq} }))
}

func (s *catalogScreen) applyKeywordsCmd(kw []string) tea.Cmd {
	if slices.Equal(kw, s.query.Keywords) {
		return nil
	}
	s.query.Keywords = kw
	s.list.nav.SetHeight(s.rowsHeight())
	return s.restartCmd(false)
}

// parseKeywords splits the filter field on spaces and commas.
func parseKeywords(v string) []string {
	f := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '，' || r == ' ' || r == '\t' })
	if len(f) == 0 {
		return nil
	}
	return f
}

// probeTypes are the file types asked about when the Computer does not
// report the types its catalog holds.
var probeTypes = []string{"csv", "docx", "html", "md", "pdf", "pptx", "tsv", "txt", "xlsx"}

// probeTypesCmd asks, for every candidate type (the common ones and those
// in the loaded rows), how many documents of the current keywords have it:
// a get_finder with limit 1 each, in parallel.
func (s *catalogScreen) probeTypesCmd() tea.Cmd {
	cands := map[string]bool{}
	for _, t := range probeTypes {
		cands[t] = true
	}
	for t := range s.list.typesIn() {
		cands[t] = true
	}
	q := s.query
	q.Keywords, q.Sort, q.Offset, q.Limit = slices.Clone(q.Keywords), "", 0, 1
	comp, owner := s.comp, s
	return common.Call(s.c, func(ctx context.Context, b common.Backend) (map[string]int, error) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		counts := map[string]int{}
		var firstErr error
		for t := range cands {
			wg.Go(func() {
				tq := q
				tq.FileType = t
				ret, err := b.GetFinder(ctx, comp, tq)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil && firstErr == nil:
					firstErr = err
				case err == nil && ret.TotalCount > 0:
					counts[t] = ret.TotalCount
				}
			})
		}
		wg.Wait()
		if len(counts) == 0 && firstErr != nil {
			return nil, firstErr
		}
		return counts, nil
	}, func(counts map[string]int, err error) tea.Msg {
		return typeCountsMsg{owner: owner, counts: counts, err: err}
	})
}

// openTypePickerCmd shows the file types present with their counts, the
// commonest first.
func (s *catalogScreen) openTypePickerCmd(counts map[string]int, err error) tea.Cmd {
	if err != nil {
		s.c.Notice = "file types: " + common.DescribeError(err, common.OpFinder)
		return nil
	}
	types := make([]string, 0, len(counts))
	for t, n := range counts {
		if n > 0 {
			types = append(types, strings.ToLower(common.OneLine(t)))
		}
	}
	if s.query.FileType != "" && !slices.Contains(types, s.query.FileType) {
		types = append(types, s.query.FileType)
	}
	slices.Sort(types)
	types = slices.Compact(types)
	// The commonest first (go's 7,709 documents before a corpus's oddities),
	// ties by name.
	slices.SortStableFunc(types, func(a, b string) int { return counts[b] - counts[a] })
	items := []picker.Item{{Label: "all types"}}
	for _, t := range types {
		items = append(items, picker.Item{Label: t, Detail: common.Itoa(counts[t])})
	}
	cur := 0
	if i := slices.Index(types, s.query.FileType); i >= 0 {
		cur = i + 1
	}
	p := picker.New(s.c, "File type", items, cur, func(sel []int) tea.Cmd {
		ft := ""
		if len(sel) == 1 && sel[0] > 0 {
			ft = types[sel[0]-1]
		}
		if ft == s.query.FileType {
			return nil
		}
		s.query.FileType = ft
		s.list.nav.SetHeight(s.rowsHeight())
		return s.restartCmd(false)
	})
	return picker.OpenCmd(p)
}

// sortChoices are the orders the sort picker offers, the specification's
// first.
var sortChoices = []struct{ key, label string }{
	{"", "specification order (server, newest first)"},
	{protocol.SortTitle, "title A → Z"},
	{"-" + protocol.SortTitle, "title Z → A"},
	{protocol.SortType, "file type"},
	{"-" + protocol.SortPages, "pages, most first"},
	{protocol.SortPages, "pages, fewest first"},
	{"-" + protocol.SortModified, "modified, newest first"},
	{protocol.SortModified, "modified, oldest first"},
}

func (s *catalogScreen) openSortPickerCmd() tea.Cmd {
	items := make([]picker.Item, len(sortChoices))
	cur := 0
	for i, c := range sortChoices {
		items[i] = picker.Item{Label: c.label}
		if c.key == s.query.Sort {
			cur = i
		}
	}
	return picker.OpenCmd(picker.New(s.c, "Sort by", items, cur, func(sel []int) tea.Cmd {
		if len(sel) != 1 || sortChoices[sel[0]].key == s.query.Sort {
			return nil
		}
		s.query.Sort = sortChoices[sel[0]].key
		s.list.nav.SetHeight(s.rowsHeight())
		return s.restartCmd(false)
	}))
}

// sortLabel names the current sort for the filter line.
func sortLabel(key string) string {
	for _, c := range sortChoices {
		if c.key == key {
			return c.label
		}
	}
	return key
}

// errLines shows the last error (or the wait for the document servers)
// wrapped to w cells, on at most three lines.
func (s *catalogScreen) errLines(w int) []string {
	st := s.c.Styles
	switch {
	case s.waiting:
		return common.WrapStyledLines(st.Warning, "◌ "+s.err+" — the catalog refreshes when it is ready", w, 3)
	case s.err != "":
		return common.WrapStyledLines(st.Error, "✗ "+s.err, w, 3)
	}
	return nil
}

// listWidth is the width of the list (the preview pane takes the rest).
func (s *catalogScreen) listWidth() (int, bool) {
	if s.w >= widePreview {
		return s.w * 3 / 5, true
	}
	return s.w, false
}

func (s *catalogScreen) View() string {
	st := s.c.Styles
	listW, wide := s.listWidth()
	lines := make([]string, 0, s.h)
	title := st.Title.Render("Catalog") + st.Muted.Render(" · "+common.OneLine(s.comp))
	switch {
	case s.list.haveTotal:
		from, to := s.list.nav.Visible()
		title += st.Muted.Render(" · " + common.RangeLabel(from, to, s.list.total))
		if s.list.listing {
			title += st.Muted.Render(" so far · listing…")
		}
		if note := s.skipped.note(); note != "" {
			title += st.Warning.Render(" · " + note)
		}
	case s.list.docs.waiting():
		title += st.Muted.Render(" · loading…")
	}
	if s.live.Gone() {
		title += "  " + st.Error.Render("computer left the office")
	}
	lines = append(lines, title)
	lines = append(lines, s.errLines(listW)...)
	if s.filtering {
		lines = append(lines, s.input.View())
	} else if s.filtered() {
		lines = append(lines, s.filterLine())
	}
	lines = append(lines, "  "+st.ColumnHead.Render(s.list.row(catalogHeadings(), listW, "Path", false)))
	empty := "This computer has no documents."
	switch {
	case s.waiting:
		empty = "Waiting for the document servers…"
	case len(s.query.Keywords) > 0 || s.query.FileType != "":
		empty = "No document matches the filter."
	}
	rows := s.list.rows(listW, empty)
	if s.waiting && len(rows) == 0 { // no answer yet to say "empty"
		rows = []string{"", "  " + st.Muted.Render(empty)}
	}
	lines = append(lines, rows...)
	body := strings.Join(common.PadLines(lines, s.h), "\n")
	if wide {
		d, ok := s.list.selected()
		body = common.JoinColumns(body, s.preview.view(d, ok, s.w-listW-1, s.h, s.list.rowCacheAt), listW, s.h)
	}
	return body
}

// filterLine shows the keywords, type and sort in force, and says that esc
// clears them all.
func (s *catalogScreen) filterLine() string {
	st := s.c.Styles
	var parts []string
	if len(s.query.Keywords) > 0 {
		parts = append(parts, st.Prompt.Render("/ ")+st.Keyword.Render(strings.Join(s.query.Keywords, " ")))
	}
	if s.query.FileType != "" {
		parts = append(parts, st.Keyword.Render("type:"+s.query.FileType))
	}
	if s.query.Sort != "" {
		label := "sort: " + sortLabel(s.query.Sort)
		if s.unsorted {
			label += " (not supported by this computer)"
		}
		parts = append(parts, st.Keyword.Render(label))
	}
	return strings.Join(parts, "  ") + st.Muted.Render("  (esc clears)")
}

func (s *catalogScreen) Crumb() string { return s.comp }

func (s *catalogScreen) Keys() help.KeyMap {
	k := s.c.Keys
	if s.filtering {
		return k.ModalHelp()
	}
	return keymap.HelpKeys{
		Short: []key.Binding{k.Nav.Up, k.Nav.Down, k.Nav.Enter, k.Nav.Back, k.Catalog.Filter, k.Catalog.Search, k.Catalog.FileType, k.Catalog.Sort, k.Global.Refresh, k.Global.Desktop, k.Global.Help, k.Global.Quit},
		Full:  [][]key.Binding{k.ListHelp(), {k.Catalog.Filter, k.Catalog.Search, k.Catalog.FileType, k.Catalog.Sort, k.Global.Refresh}},
	}
}

func (s *catalogScreen) URI() string {
	if d, ok := s.list.selected(); ok {
		return d.URI
	}
	return ""
}

func (s *catalogScreen) Capturing() bool  { return s.filtering }
func (s *catalogScreen) Computer() string { return s.comp }

func (s *catalogScreen) Status() string {
	var parts []string
	if len(s.query.Keywords) > 0 {
		parts = append(parts, "keywords: "+strings.Join(s.query.Keywords, ","))
	}
	if s.query.FileType != "" {
		parts = append(parts, "type: "+s.query.FileType)
	}
	if len(parts) == 0 {
		parts = append(parts, "no filter")
	}
	return strings.Join(parts, " · ")
}

// Export saves or pages the highlighted document in full.
func (s *catalogScreen) Export() (common.ExportJob, bool) {
	d, ok := s.list.selected()
	if !ok {
		return common.ExportJob{}, false
	}
	return documentExport(s.comp, d), true
}
