package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// catalogScreen is a Computer's Finder catalog. It holds only the chunks of
// the catalog the user has scrolled to (get_finder offset/limit), renders only
// the visible rows, filters on the Computer (keywords, debounced; file type)
// and reloads on notify:update_finder keeping the selection by URI.
type catalogScreen struct {
	c *common
	presence
	w, h int

	keywords []string
	fileType string

	gen       int // bumped by every new query or reload; older replies are dropped
	total     int
	haveTotal bool
	docs      chunks[protocol.DPEDocumentSummary]
	nav       listNav
	err       string

	reload *catalogReload
	again  bool            // a notification came during a live reload
	fresh  map[string]bool // URIs added or changed by the last live reload

	input     textinput.Model
	filtering bool
	filterSeq int
	before    []string // keywords when `/` was pressed, restored by esc

	picker *picker

	// rowCache holds rendered rows by URI; cleared when rows, the width,
	// the theme or the minute (relative times) change.
	rowCache   map[string]string
	rowCacheAt string

	previewMemo  [2]string // key, pane
	preview      map[string]*previewEntry
	previewOrder []string
	previewSeq   int
	previewReq   uint64
	previewURI   string
}

type previewEntry struct {
	doc *protocol.DPEDocument
	err string
}

// catalogReload is the bookkeeping of a reload in flight: what was selected
// and what the catalog looked like, to restore the one and report the diff.
type catalogReload struct {
	live        bool
	selURI      string
	before      map[string]string // uri -> fingerprint
	wasComplete bool
	totalBefore int
}

type finderMsg struct {
	req   uint64
	chunk int
	ret   *protocol.GetFinderRet
	err   error
}

type filterTickMsg struct {
	owner *catalogScreen
	seq   int
}

type previewTickMsg struct {
	owner *catalogScreen
	seq   int
}

type previewMsg struct {
	req uint64
	uri string
	doc *protocol.DPEDocument
	err error
}

func newCatalogScreen(c *common, computer string) *catalogScreen {
	ti := textinput.New()
	ti.Prompt = "/ "
	ti.Placeholder = "keywords (space or comma separated)"
	ti.CharLimit = 256
	s := &catalogScreen{
		c: c, presence: presence{comp: computer}, input: ti,
		docs:    newChunks[protocol.DPEDocumentSummary](catalogChunk),
		preview: map[string]*previewEntry{},
	}
	s.styleInput()
	return s
}

func (s *catalogScreen) styleInput() {
	st := s.input.Styles()
	st.Focused.Prompt = s.c.styles.Prompt
	st.Blurred.Prompt = s.c.styles.Prompt
	st.Cursor.Blink = false
	st.Focused.Placeholder = s.c.styles.Muted
	st.Blurred.Placeholder = s.c.styles.Muted
	s.input.SetStyles(st)
}

func (s *catalogScreen) init() tea.Cmd { return s.ensure() }

// rowsHeight is how many catalog rows fit.
func (s *catalogScreen) rowsHeight() int {
	h := s.h - 2 // title line, column heads
	if s.filtering || len(s.keywords) > 0 {
		h--
	}
	if s.err != "" {
		h--
	}
	return max(h, 1)
}

func (s *catalogScreen) setSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	s.input.SetWidth(max(10, w-4))
	s.nav.setHeight(s.rowsHeight())
	return s.moved()
}

func (s *catalogScreen) selectedDoc() (protocol.DPEDocumentSummary, bool) {
	if !s.haveTotal || s.nav.n == 0 {
		return protocol.DPEDocumentSummary{}, false
	}
	return s.docs.at(s.nav.cursor)
}

// ensure requests the chunks covering the visible rows that are neither
// loaded nor on their way.
func (s *catalogScreen) ensure() tea.Cmd {
	from, to := s.nav.visible()
	if !s.haveTotal || s.total == 0 {
		// Nothing known, or an empty catalog being reloaded: ask for the
		// first chunk (an empty list has no visible rows to fetch).
		from, to = 0, 1
	}
	var cmds []tea.Cmd
	for _, c := range s.docs.missing(from, to) {
		cmds = append(cmds, s.fetch(c))
	}
	return tea.Batch(cmds...)
}

func (s *catalogScreen) fetch(chunk int) tea.Cmd {
	req := s.c.req()
	s.docs.ask(chunk, req)
	q := FinderQuery{Keywords: slices.Clone(s.keywords), FileType: s.fileType, Offset: s.docs.offset(chunk), Limit: catalogChunk}
	comp := s.comp
	return call(s.c, func(ctx context.Context, b Backend) (*protocol.GetFinderRet, error) {
		ret, err := b.GetFinder(ctx, comp, q)
		if ret != nil {
			c := *ret
			c.Documents = make([]protocol.DPEDocumentSummary, len(ret.Documents))
			for i, d := range ret.Documents {
				c.Documents[i] = sanitizeSummary(d)
			}
			ret = &c
		}
		return ret, err
	}, func(ret *protocol.GetFinderRet, err error) tea.Msg {
		return finderMsg{req: req, chunk: chunk, ret: ret, err: err}
	})
}

// restart drops what is loaded and queries again. keepRows shows the old
// rows until the new ones arrive (a refresh); a new filter starts empty.
func (s *catalogScreen) restart(keepRows bool) tea.Cmd {
	s.gen++
	s.docs.restart(keepRows)
	if !keepRows {
		s.haveTotal = false
		s.total = 0
		s.nav.setLen(0)
		s.nav.set(0)
		s.reload = nil
		s.fresh = nil
	}
	s.err = ""
	return s.ensure()
}

// refresh reloads keeping the selection; live says it was a notification.
func (s *catalogScreen) refresh(live bool) tea.Cmd {
	rl := &catalogReload{live: live, before: map[string]string{}, totalBefore: s.total}
	if d, ok := s.selectedDoc(); ok {
		rl.selURI = d.URI
	}
	n := 0
	for d := range s.docs.rows() {
		rl.before[d.URI] = fingerprint(d)
		n++
	}
	rl.wasComplete = s.haveTotal && n >= s.total
	s.reload = rl
	return s.restart(true)
}

// fingerprint is what makes a catalog entry "changed".
func fingerprint(d protocol.DPEDocumentSummary) string {
	return d.LastModified + "\x00" + d.Title + "\x00" + itoa(d.PageCount) + "\x00" + d.Summary
}

func (s *catalogScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case finderMsg:
		return s.onFinder(msg)
	case filterTickMsg:
		if msg.owner == s && msg.seq == s.filterSeq && s.filtering {
			return s.applyKeywords(parseKeywords(s.input.Value()))
		}
	case previewTickMsg:
		if msg.owner == s && msg.seq == s.previewSeq {
			return s.fetchPreview()
		}
	case previewMsg:
		if msg.req != s.previewReq {
			return nil
		}
		s.previewReq = 0
		ent := &previewEntry{doc: msg.doc}
		if msg.err != nil {
			ent = &previewEntry{err: describeError(msg.err, opDocument)}
		}
		s.cachePreview(msg.uri, ent)
	case UpdateFinderMsg:
		if msg.Computer == s.comp {
			s.preview, s.previewOrder = map[string]*previewEntry{}, nil
			if s.reload != nil && s.reload.live && s.docs.waiting() {
				s.again = true // a burst of notifications: one more reload at the end
				return nil
			}
			return s.refresh(true)
		}
	case reconnectedMsg:
		s.preview, s.previewOrder = map[string]*previewEntry{}, nil
		return s.refresh(true)
	case LeaveOfficeMsg, EnterOfficeMsg:
		if s.track(msg) && !s.gone {
			return s.refresh(true)
		}
	case themeMsg:
		s.styleInput()
	case tea.KeyPressMsg:
		return s.key(msg)
	case tea.MouseWheelMsg:
		if s.picker == nil {
			s.nav.update(msg, s.c.keys)
			return s.moved()
		}
	}
	return nil
}

func (s *catalogScreen) onFinder(msg finderMsg) tea.Cmd {
	if !s.docs.answered(msg.chunk, msg.req) {
		return nil // stale: an older query or generation
	}
	if msg.err != nil {
		s.err = describeError(msg.err, opFinder)
		s.nav.setHeight(s.rowsHeight())
		if !s.docs.waiting() {
			s.reload, s.again = nil, false
		}
		return nil
	}
	s.err = ""
	ret := msg.ret
	if ret == nil {
		ret = &protocol.GetFinderRet{}
	}
	s.docs.put(msg.chunk, ret.Documents)
	s.rowCache = nil
	s.total, s.haveTotal = max(ret.TotalCount, s.docs.offset(msg.chunk)+len(ret.Documents)), true
	s.nav.setHeight(s.rowsHeight())
	s.nav.setLen(s.total)
	s.c.refreshed = s.c.now()
	if rl := s.reload; rl != nil && rl.selURI != "" {
		for i, d := range ret.Documents {
			if d.URI == rl.selURI {
				s.nav.set(s.docs.offset(msg.chunk) + i)
				rl.selURI = ""
				break
			}
		}
	}
	cmd := s.ensure()
	if !s.docs.waiting() && s.reload != nil {
		s.finishReload()
		if s.again {
			s.again = false
			cmd = tea.Batch(cmd, s.refresh(true))
		}
	}
	return tea.Batch(cmd, s.moved())
}

// finishReload reports what a reload changed once all its chunks are in.
func (s *catalogScreen) finishReload() {
	rl := s.reload
	s.reload = nil
	s.docs.dropStale()
	after := map[string]string{}
	n := 0
	for d := range s.docs.rows() {
		after[d.URI] = fingerprint(d)
		n++
	}
	complete := n >= s.total
	var added, removed, changed int
	s.fresh = map[string]bool{}
	for u, fp := range after {
		old, ok := rl.before[u]
		switch {
		case !ok:
			added++
			s.fresh[u] = true
		case old != fp:
			changed++
			s.fresh[u] = true
		}
	}
	for u := range rl.before {
		if _, ok := after[u]; !ok {
			removed++
		}
	}
	var parts []string
	if rl.wasComplete && complete {
		if added > 0 {
			parts = append(parts, "+"+itoa(added))
		}
		if removed > 0 {
			parts = append(parts, "−"+itoa(removed))
		}
		if changed > 0 {
			parts = append(parts, "~"+itoa(changed))
		}
	} else {
		// Only part of the catalog is loaded: report the count and what
		// changed among the rows on hand.
		if d := s.total - rl.totalBefore; d != 0 {
			sign := "+"
			if d < 0 {
				sign, d = "−", -d
			}
			parts = append(parts, sign+itoa(d)+" ("+itoa(rl.totalBefore)+" → "+itoa(s.total)+")")
		}
		if changed > 0 {
			parts = append(parts, "~"+itoa(changed)+" in view")
		}
	}
	switch {
	case len(parts) > 0:
		s.c.notice = "catalog updated: " + strings.Join(parts, " ") + " documents"
	case rl.live:
		s.c.notice = "catalog updated: no visible change"
	default:
		s.c.notice = "catalog refreshed"
	}
}

// moved runs after anything that may move the cursor: it loads what became
// visible and schedules the preview of the highlighted document.
func (s *catalogScreen) moved() tea.Cmd {
	cmd := s.ensure()
	if s.w < widePreview {
		return cmd
	}
	d, ok := s.selectedDoc()
	if !ok || d.URI == s.previewURI {
		return cmd
	}
	s.previewURI = d.URI
	if _, ok := s.preview[d.URI]; ok {
		return cmd
	}
	s.previewSeq++
	seq := s.previewSeq
	return tea.Batch(cmd, s.c.tick(s.c.previewDelay, func(time.Time) tea.Msg { return previewTickMsg{owner: s, seq: seq} }))
}

func (s *catalogScreen) fetchPreview() tea.Cmd {
	d, ok := s.selectedDoc()
	if !ok {
		return nil
	}
	if _, ok := s.preview[d.URI]; ok {
		return nil
	}
	req := s.c.req()
	s.previewReq = req
	comp, uri := s.comp, d.URI
	return call(s.c, func(ctx context.Context, b Backend) (*protocol.DPEDocument, error) {
		doc, err := b.ReadDocumentPages(ctx, comp, uri, 0, previewPages)
		if doc != nil {
			doc = sanitizeDocument(doc)
		}
		return doc, err
	}, func(doc *protocol.DPEDocument, err error) tea.Msg {
		return previewMsg{req: req, uri: uri, doc: doc, err: err}
	})
}

func (s *catalogScreen) cachePreview(uri string, ent *previewEntry) {
	if _, ok := s.preview[uri]; !ok {
		s.previewOrder = append(s.previewOrder, uri)
	}
	s.preview[uri] = ent
	for len(s.previewOrder) > previewCacheSize {
		delete(s.preview, s.previewOrder[0])
		s.previewOrder = s.previewOrder[1:]
	}
}

func (s *catalogScreen) key(msg tea.KeyPressMsg) tea.Cmd {
	k := s.c.keys
	if s.picker != nil {
		switch s.picker.update(msg, k) {
		case pickerApplied:
			sel := s.picker.selected()
			s.picker = nil
			ft := ""
			if len(sel) == 1 && sel[0] > 0 {
				ft = s.typeChoices()[sel[0]]
			}
			if ft != s.fileType {
				s.fileType = ft
				return s.restart(false)
			}
		case pickerCanceled:
			s.picker = nil
		}
		return nil
	}
	if s.filtering {
		switch {
		case key.Matches(msg, k.Modal.Submit):
			s.filtering = false
			s.input.Blur()
			s.nav.setHeight(s.rowsHeight())
			return s.applyKeywords(parseKeywords(s.input.Value()))
		case key.Matches(msg, k.Modal.Cancel):
			s.filtering = false
			s.input.Blur()
			s.input.SetValue(strings.Join(s.before, " "))
			s.nav.setHeight(s.rowsHeight())
			return s.applyKeywords(s.before)
		}
		old := s.input.Value()
		var cmd tea.Cmd
		s.input, cmd = s.input.Update(msg)
		if s.input.Value() == old {
			return cmd
		}
		s.filterSeq++
		seq := s.filterSeq
		return tea.Batch(cmd, s.c.tick(s.c.opts.Debounce, func(time.Time) tea.Msg { return filterTickMsg{owner: s, seq: seq} }))
	}
	switch {
	case key.Matches(msg, k.Catalog.Filter):
		s.filtering = true
		s.before = slices.Clone(s.keywords)
		s.input.SetValue(strings.Join(s.keywords, " "))
		s.input.CursorEnd()
		s.nav.setHeight(s.rowsHeight())
		return s.input.Focus()
	case key.Matches(msg, k.Catalog.FileType):
		choices := s.typeChoices()
		cur := max(0, slices.Index(choices, s.fileType))
		s.picker = newPicker("File type", choices, false, nil, cur)
		return nil
	case key.Matches(msg, k.Global.Refresh):
		return s.refresh(false)
	case key.Matches(msg, k.Nav.Enter):
		if d, ok := s.selectedDoc(); ok {
			return push(newDocumentScreen(s.c, s.comp, d))
		}
		return nil
	case key.Matches(msg, k.Nav.Back):
		if len(s.keywords) > 0 || s.fileType != "" {
			s.keywords, s.fileType = nil, ""
			s.input.SetValue("")
			s.nav.setHeight(s.rowsHeight())
			return s.restart(false)
		}
		return pop
	}
	if s.nav.update(msg, k) {
		return s.moved()
	}
	return nil
}

func (s *catalogScreen) applyKeywords(kw []string) tea.Cmd {
	if slices.Equal(kw, s.keywords) {
		return nil
	}
	s.keywords = kw
	s.nav.setHeight(s.rowsHeight())
	return s.restart(false)
}

// parseKeywords splits the filter field on spaces and commas.
func parseKeywords(v string) []string {
	f := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '，' || r == ' ' || r == '\t' })
	if len(f) == 0 {
		return nil
	}
	return f
}

// typeChoices lists "all types" then the common file types and any other
// type seen in the loaded rows.
func (s *catalogScreen) typeChoices() []string {
	seen := map[string]bool{}
	types := []string{"csv", "docx", "md", "pdf", "pptx", "txt", "xlsx"}
	for _, t := range types {
		seen[t] = true
	}
	for d := range s.docs.rows() {
		if t := strings.ToLower(oneLine(d.FileType)); t != "" && !seen[t] {
			seen[t] = true
			types = append(types, t)
		}
	}
	if s.fileType != "" && !seen[s.fileType] {
		types = append(types, s.fileType)
	}
	slices.Sort(types)
	return append([]string{"all types"}, types...)
}

func (s *catalogScreen) view() string {
	st := s.c.styles
	listW := s.w
	wide := s.w >= widePreview
	if wide {
		listW = s.w * 3 / 5
	}
	lines := make([]string, 0, s.h)
	title := st.Title.Render("Catalog") + st.Muted.Render(" · "+oneLine(s.comp))
	switch {
	case s.haveTotal:
		from, to := s.nav.visible()
		title += st.Muted.Render(" · " + rangeLabel(from, to, s.total))
	case s.docs.waiting():
		title += st.Muted.Render(" · loading…")
	}
	if s.fileType != "" {
		title += "  " + st.Keyword.Render("type:"+s.fileType)
	}
	if s.gone {
		title += "  " + st.Error.Render("computer left the office")
	}
	lines = append(lines, title)
	if s.err != "" {
		lines = append(lines, st.Error.Render("✗ "+s.err))
	}
	if s.filtering {
		lines = append(lines, s.input.View())
	} else if len(s.keywords) > 0 {
		lines = append(lines, st.Prompt.Render("/ ")+st.Keyword.Render(strings.Join(s.keywords, " "))+st.Muted.Render("  (esc clears)"))
	}
	lines = append(lines, "  "+st.ColumnHead.Render(s.row(catalogHeadings(), listW, false)))
	rows := s.rows(listW)
	lines = append(lines, rows...)
	body := strings.Join(padLines(lines, s.h), "\n")
	if wide {
		body = joinColumns(body, s.cachedPreview(s.w-listW-1, s.h), listW, s.h)
	}
	if s.picker != nil {
		return overlay(body, s.picker.view(s.w, s.h, st, s.c.keys), s.w, s.h)
	}
	return body
}

// catalogHeadings are the column titles, laid out by row like a document.
func catalogHeadings() protocol.DPEDocumentSummary {
	return protocol.DPEDocumentSummary{Title: "Title", FileType: "Type", Server: "Server", LastModified: "Modified"}
}

func (s *catalogScreen) rows(w int) []string {
	st := s.c.styles
	if s.haveTotal && s.total == 0 {
		msg := "This computer has no documents."
		if len(s.keywords) > 0 || s.fileType != "" {
			msg = "No document matches the filter."
		}
		return []string{"", "  " + st.Muted.Render(msg)}
	}
	from, to := s.nav.visible()
	out := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		d, ok := s.docs.at(i)
		sel := i == s.nav.cursor
		var line string
		if !ok {
			line = cell("    loading…", w-2)
		} else {
			line = s.cachedRow(d, w)
		}
		switch {
		case sel:
			line = st.Selected.Render("▸ " + ansiStripForSelect(line))
		case ok && s.fresh[d.URI]:
			line = st.Fresh.Render("● ") + line
		default:
			line = "  " + line
		}
		out = append(out, line)
	}
	return out
}

func (s *catalogScreen) cachedRow(d protocol.DPEDocumentSummary, w int) string {
	stamp := itoa(w) + "|" + s.c.now().Truncate(time.Minute).String() + "|" + s.c.styles.Glamour
	if s.rowCache == nil || s.rowCacheAt != stamp {
		s.rowCache, s.rowCacheAt = map[string]string{}, stamp
	}
	if r, ok := s.rowCache[d.URI]; ok {
		return r
	}
	r := s.row(d, w, true)
	s.rowCache[d.URI] = r
	return r
}

// row lays out one catalog row (or the headings) in w cells, the cursor
// column excluded.
func (s *catalogScreen) row(d protocol.DPEDocumentSummary, w int, data bool) string {
	st := s.c.styles
	w -= 2
	const typeW, pagesW, timeW = 4, 6, 9
	serverW := min(18, max(0, w/5))
	if w < 60 {
		serverW = 0
	}
	titleW := w - typeW - pagesW - timeW - 3
	if serverW > 0 {
		titleW -= serverW + 1
	}
	titleW = max(titleW, 8)
	var badge, pages, when string
	if data {
		badge = st.BadgeFor(d.FileType)
		pages = cellLeft(itoa(d.PageCount)+"p", pagesW)
		when = cellLeft(relTime(parseTime(d.LastModified), s.c.now()), timeW)
	} else {
		badge = cell(d.FileType, typeW)
		pages = cellLeft("Pages", pagesW)
		when = cellLeft(d.LastModified, timeW)
	}
	out := cell(oneLine(d.Title), titleW) + " " + badge + " " + pages
	if !data { // the headings get one style from the caller
		if serverW > 0 {
			out += " " + cell(d.Server, serverW)
		}
		return out + " " + when
	}
	if serverW > 0 {
		out += " " + st.Muted.Render(cell(oneLine(d.Server), serverW))
	}
	return out + " " + st.Muted.Render(when)
}

// cachedPreview memoizes the preview pane for the highlighted document.
func (s *catalogScreen) cachedPreview(w, h int) string {
	key := itoa(w) + "x" + itoa(h) + "|" + s.rowCacheAt
	if d, ok := s.selectedDoc(); ok {
		key += "|" + d.URI + "|" + fingerprint(d)
		if ent, ok := s.preview[d.URI]; ok {
			key += fmt.Sprintf("|%p", ent)
		}
	}
	if s.previewMemo[0] == key {
		return s.previewMemo[1]
	}
	v := s.previewView(w, h)
	s.previewMemo = [2]string{key, v}
	return v
}

// previewView draws the highlighted document's summary, keywords and first
// page titles.
func (s *catalogScreen) previewView(w, h int) string {
	st := s.c.styles
	inner := max(w-4, 10)
	var lines []string
	d, ok := s.selectedDoc()
	if !ok {
		lines = append(lines, st.Muted.Render("no document selected"))
	} else {
		lines = append(lines, wrapStyledLines(st.Title, oneLine(d.Title), inner, 2)...)
		lines = append(lines, st.Muted.Render(cell(strings.ToUpper(oneLine(d.FileType))+" · "+count(d.PageCount, "page")+" · "+relTime(parseTime(d.LastModified), s.c.now()), inner)))
		if len(d.Keywords) > 0 {
			lines = append(lines, wrapStyledLines(st.Keyword, "# "+oneLine(strings.Join(d.Keywords, "  # ")), inner, 2)...)
		}
		if d.Summary != "" {
			lines = append(lines, "")
			lines = append(lines, wrapText(oneLine(d.Summary), inner, 5)...)
		}
		lines = append(lines, "")
		switch ent, ok := s.preview[d.URI]; {
		case !ok:
			lines = append(lines, st.Muted.Render("loading pages…"))
		case ent.err != "":
			lines = append(lines, st.Error.Render(cell("✗ "+ent.err, inner)))
		default:
			lines = append(lines, st.Label.Render("Pages"))
			for _, p := range ent.doc.Pages {
				lines = append(lines, cell(cellLeft(itoa(p.PageIndex+1), 3)+"  "+oneLine(p.Title), inner))
			}
			if t := ent.doc.PageTotal; t != nil && *t > len(ent.doc.Pages) {
				lines = append(lines, st.Muted.Render("     … "+itoa(*t-len(ent.doc.Pages))+" more"))
			}
		}
	}
	return st.Pane.Width(w).Height(h).MaxHeight(h).Render(strings.Join(padLines(lines, max(h-2, 1)), "\n"))
}

func (s *catalogScreen) crumb() string { return s.comp }

func (s *catalogScreen) keys() help.KeyMap {
	k := s.c.keys
	if s.filtering {
		return helpKeys{short: []key.Binding{k.Modal.Submit, k.Modal.Cancel}, full: [][]key.Binding{{k.Modal.Submit, k.Modal.Cancel}}}
	}
	return helpKeys{
		short: []key.Binding{k.Nav.Up, k.Nav.Down, k.Nav.Enter, k.Nav.Back, k.Catalog.Filter, k.Catalog.FileType, k.Global.Refresh, k.Global.Desktop, k.Global.Help, k.Global.Quit},
		full:  [][]key.Binding{k.listHelp(), {k.Catalog.Filter, k.Catalog.FileType, k.Global.Refresh}},
	}
}

func (s *catalogScreen) uri() string {
	if d, ok := s.selectedDoc(); ok {
		return d.URI
	}
	return ""
}

func (s *catalogScreen) capturing() bool  { return s.filtering || s.picker != nil }
func (s *catalogScreen) computer() string { return s.comp }

func (s *catalogScreen) status() string {
	var parts []string
	if len(s.keywords) > 0 {
		parts = append(parts, "keywords: "+strings.Join(s.keywords, ","))
	}
	if s.fileType != "" {
		parts = append(parts, "type: "+s.fileType)
	}
	if len(parts) == 0 {
		parts = append(parts, "no filter")
	}
	return strings.Join(parts, " · ")
}
