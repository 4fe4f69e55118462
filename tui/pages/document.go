package pages

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/shorten"
	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/components/list"
	"github.com/smcp-browse/smcp-browse/tui/components/picker"
	"github.com/smcp-browse/smcp-browse/tui/keymap"
	"github.com/smcp-browse/smcp-browse/tui/live"
)

// documentScreen shows a document's metadata and its page index, read in
// chunks with depth=pages&offset&limit as the user scrolls.
type documentScreen struct {
	c    *common.Common
	comp string
	live live.Tracker
	sum  protocol.DPEDocumentSummary // from the catalog, shown until the read lands
	u    dpe.URI                     // the document's URI, parsed once
	uErr error
	doc  *protocol.DPEDocument // metadata of the latest read
	w, h int

	total     int
	haveTotal bool
	pages     chunks[protocol.DPEPageSummary]
	nav       list.Nav
	err       string

	outline        *docOutlineMsg // the document's outline, read on the first T
	outlineLoading bool
}

type docPagesMsg struct {
	req   uint64
	chunk int
	doc   *protocol.DPEDocument
	err   error
}

// NewDocument returns the screen of a catalog entry's metadata and pages.
func NewDocument(c *common.Common, computer string, sum protocol.DPEDocumentSummary) *documentScreen {
	s := &documentScreen{
		c: c, comp: computer, live: live.New(computer, false), sum: sum,
		pages: newChunks[protocol.DPEPageSummary](pageChunk),
	}
	s.u, s.uErr = dpe.Parse(sum.URI)
	if s.uErr == nil {
		s.u = s.u.DocumentURI()
	}
	return s
}

func (s *documentScreen) Init() tea.Cmd { return s.ensureCmd() }

// headerLines renders the metadata block.
func (s *documentScreen) headerLines() []string {
	st := s.c.Styles
	d := s.sum
	if s.doc != nil {
		d = s.doc.CatalogEntry(s.sum.Server)
	}
	w := max(s.w, 20)
	lines := common.WrapStyledLines(st.Title, common.OneLine(d.Title), w, 2)
	meta := common.BadgeFor(st, d.FileType) + " " + st.Muted.Render(common.Count(d.PageCount, "page"))
	if t := common.ParseTime(d.LastModified); !t.IsZero() {
		meta += st.Muted.Render(" · modified " + t.In(s.c.Now().Location()).Format("2006-01-02 15:04") + " (" + common.RelTime(t, s.c.Now()) + ")")
	}
	if d.Server != "" {
		meta += st.Muted.Render(" · " + common.OneLine(d.Server))
	}
	lines = append(lines, meta)
	if len(d.Keywords) > 0 {
		lines = append(lines, common.KeywordLines(st.Keyword, d.Keywords, w, 1)...)
	}
	if d.Summary != "" && !saysWhyUnreadable(d.Summary, s.sum.Unreadable) {
		lines = append(lines, common.WrapText(common.OneLine(d.Summary), w, 3)...)
	}
	if s.sum.Path != "" {
		lines = append(lines, st.Label.Render("path ")+common.Cell(shorten.Path(common.OneLine(s.sum.Path), w-5), w-5))
	}
	if d.FileURI != "" {
		lines = append(lines, st.Label.Render("file ")+common.Cell(common.OneLine(d.FileURI), w-5))
	}
	if s.sum.Unreadable != "" {
		lines = append(lines, st.Error.Render(common.Cell("✗ cannot be read: "+common.OneLine(s.sum.Unreadable), w)))
	}
	if cut := s.info().cut; cut != "" {
		lines = append(lines, st.Warning.Render(common.Cell("✂ cut short: "+common.OneLine(cut), w)))
	}
	if s.live.Gone() {
		lines = append(lines, st.Error.Render("✗ computer left the office"))
	}
	if s.err != "" {
		lines = append(lines, st.Error.Render("✗ "+s.err))
	}
	return lines
}

func (s *documentScreen) listHeight() int {
	return max(s.h-len(s.headerLines())-2, 1)
}

func (s *documentScreen) SetSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	s.nav.SetHeight(s.listHeight())
	return s.ensureCmd()
}

func (s *documentScreen) ensureCmd() tea.Cmd {
	if s.uErr != nil {
		s.err = common.DescribeError(s.uErr, common.OpDocument)
		return nil
	}
	from, to := s.nav.Visible()
	if !s.haveTotal {
		from, to = 0, 1
	}
	var cmds []tea.Cmd
	for _, c := range s.pages.missing(from, to) {
		cmds = append(cmds, s.fetchCmd(c))
	}
	return tea.Batch(cmds...)
}

func (s *documentScreen) fetchCmd(chunk int) tea.Cmd {
	req := s.c.Req()
	s.pages.ask(chunk, req)
	offset, limit := s.pages.offset(chunk), pageChunk
	comp, u := s.comp, s.u.WithQuery(dpe.Query{Depth: dpe.DepthPages, Offset: &offset, Limit: &limit})
	return common.Call(s.c, func(ctx context.Context, b common.Backend) (*protocol.DPEDocument, error) {
		doc, err := b.ReadDocument(ctx, comp, u)
		if doc != nil {
			doc = common.SanitizeDocument(doc)
		}
		return doc, err
	}, func(doc *protocol.DPEDocument, err error) tea.Msg {
		return docPagesMsg{req: req, chunk: chunk, doc: doc, err: err}
	})
}

// reloadCmd re-reads in place, keeping the cursor. A reload asked for
// while one is in flight is coalesced into one more.
func (s *documentScreen) reloadCmd() tea.Cmd { return s.live.RereadCmd(s.restartCmd) }

// restartCmd reads the page index again, showing the old rows until the
// new ones arrive; the outline is read again when next asked for.
func (s *documentScreen) restartCmd() tea.Cmd {
	s.outline = nil
	s.pages.restart(true)
	return s.ensureCmd()
}

// relayout fits the list under a header that changed.
func (s *documentScreen) relayout() tea.Cmd {
	s.nav.SetHeight(s.listHeight())
	return nil
}

func (s *documentScreen) Update(msg tea.Msg) tea.Cmd {
	if cmd, ok := s.live.Handle(msg, s.relayout, s.restartCmd); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case docPagesMsg:
		if !s.pages.answered(msg.chunk, msg.req) {
			return nil
		}
		if msg.err != nil {
			s.err = common.DescribeError(msg.err, common.OpDocument)
			s.nav.SetHeight(s.listHeight())
			if !s.pages.waiting() {
				s.live.Cancel()
			}
			return nil
		}
		s.err = ""
		s.doc = msg.doc
		s.pages.put(msg.chunk, msg.doc.Pages)
		total := msg.doc.PageCount
		if msg.doc.PageTotal != nil {
			total = *msg.doc.PageTotal
		}
		s.total, s.haveTotal = max(total, s.pages.offset(msg.chunk)+len(msg.doc.Pages)), true
		if !s.pages.waiting() {
			s.pages.dropStale()
			if s.live.Done() {
				return s.restartCmd() // the document changed again meanwhile
			}
		}
		s.nav.SetHeight(s.listHeight())
		s.nav.SetLen(s.total)
		s.c.Refreshed = s.c.Now()
		return s.ensureCmd()
	case docOutlineMsg:
		if msg.owner == s {
			return s.onOutline(msg)
		}
	case tea.KeyPressMsg:
		k := s.c.Keys
		switch {
		case key.Matches(msg, k.Nav.Back):
			return common.PopCmd
		case key.Matches(msg, k.Nav.Enter):
			if p, ok := s.pages.at(s.nav.Cursor); ok {
				return common.PushCmd(newPageScreen(s.c, s.comp, s.info(), p.PageIndex))
			}
			return nil
		case key.Matches(msg, k.Global.Refresh):
			return s.reloadCmd()
		case key.Matches(msg, k.Document.Outline):
			return s.outlineCmd()
		}
		if s.nav.Update(msg, k) {
			return s.ensureCmd()
		}
	case tea.MouseWheelMsg:
		s.nav.Update(msg, s.c.Keys)
		return s.ensureCmd()
	}
	return nil
}

// info describes the document for its pages.
func (s *documentScreen) info() docInfo {
	d := docInfo{uri: s.u, title: s.docTitle(), path: s.sum.Path, fileURI: s.sum.FileURI, pages: s.total, cut: s.sum.Truncated}
	if s.doc != nil && s.doc.FileURI != "" {
		d.fileURI = s.doc.FileURI
	}
	if s.doc != nil && s.doc.Truncated != "" {
		d.cut = common.Sanitize(s.doc.Truncated)
	}
	return d
}

func (s *documentScreen) docTitle() string {
	if s.doc != nil && s.doc.Title != "" {
		return s.doc.Title
	}
	return s.sum.Title
}

func (s *documentScreen) View() string {
	st := s.c.Styles
	lines := s.headerLines()
	label := "Pages"
	if s.haveTotal {
		from, to := s.nav.Visible()
		label += "  " + st.Muted.Render(common.RangeLabel(from, to, s.total))
	} else if s.pages.waiting() {
		label += "  " + st.Muted.Render("loading…")
	}
	lines = append(lines, "", st.Label.Render(label))
	if s.haveTotal && s.total == 0 {
		lines = append(lines, st.Muted.Render("  this document has no pages"))
	}
	from, to := s.nav.Visible()
	numW := len(common.Itoa(max(s.total, 1))) + 1
	for i := from; i < to; i++ {
		p, ok := s.pages.at(i)
		var row string
		if ok {
			count := common.Itoa(p.ElementCount) + " elements"
			switch {
			case p.ElementCount == 1:
				count = "1 element"
			case p.ElementCount < 0:
				count = "" // not read yet (a PDF's page)
			}
			titleW := max(s.w-numW-2-14-3, 8)
			row = common.CellLeft(common.Itoa(p.PageIndex+1), numW) + "  " + common.Cell(common.OneLine(p.Title), titleW) + " " + s.c.Styles.Muted.Render(common.CellLeft(count, 14))
		} else {
			row = common.CellLeft(common.Itoa(i+1), numW) + "  " + st.Muted.Render("loading…")
		}
		if i == s.nav.Cursor {
			lines = append(lines, st.Selected.Render("▸ "+ansi.Strip(row)))
		} else {
			lines = append(lines, "  "+row)
		}
	}
	return strings.Join(common.PadLines(lines, s.h), "\n")
}

func (s *documentScreen) Crumb() string { return s.docTitle() }

func (s *documentScreen) Keys() help.KeyMap {
	k := s.c.Keys
	return keymap.HelpKeys{
		Short: []key.Binding{k.Nav.Up, k.Nav.Down, k.Nav.Enter, k.Nav.Back, k.Document.Outline, k.Global.Save, k.Global.Refresh, k.Global.Copy, k.Global.Help, k.Global.Quit},
		Full:  [][]key.Binding{k.ListHelp(), {k.Document.Outline, k.Global.Refresh}},
	}
}

func (s *documentScreen) URI() string      { return s.sum.URI }
func (s *documentScreen) Capturing() bool  { return false }
func (s *documentScreen) Computer() string { return s.comp }

func (s *documentScreen) Status() string {
	if !s.haveTotal || s.total == 0 {
		return ""
	}
	return "page " + common.Itoa(s.nav.Cursor+1) + "/" + common.Itoa(s.total)
}

// Export saves or pages the whole document's text.
func (s *documentScreen) Export() (common.ExportJob, bool) {
	d := s.sum
	if s.doc != nil {
		d = s.doc.CatalogEntry(s.sum.Server)
		d.Path = s.sum.Path
	}
	return documentExport(s.comp, d), true
}

// outlineCmd shows the document's outline, read once: its own bookmarks
// (a PDF's) when the page index says it has some, read from the page
// index without reading a page; else every page's headings. The page
// under the cursor is marked.
func (s *documentScreen) outlineCmd() tea.Cmd {
	if s.outline != nil {
		return s.openOutline(*s.outline)
	}
	if s.outlineLoading || s.uErr != nil {
		return nil
	}
	pages := s.total
	if !s.haveTotal {
		pages = s.sum.PageCount
	}
	if pages == 0 {
		s.c.Notice = "this document has no pages"
		return nil
	}
	s.outlineLoading = true
	if s.doc != nil && s.doc.BookmarkCount > 0 {
		s.c.Notice = "reading the bookmarks…"
		return docBookmarksCmd(s.c, s, s.comp, s.u, pages)
	}
	s.c.Notice = "reading the outline of " + common.Count(min(pages, maxOutlinePages), "page") + "…"
	return docOutlineCmd(s.c, s, s.comp, s.u, pages, s.sum.FileType)
}

func (s *documentScreen) onOutline(m docOutlineMsg) tea.Cmd {
	s.outlineLoading = false
	if m.err != nil {
		s.c.Notice = "outline: " + common.DescribeError(m.err, common.OpPage)
		return nil
	}
	s.c.Notice = ""
	if m.truncated {
		s.c.Notice = "outline of the first " + common.Itoa(m.pagesRead) + " pages"
	}
	s.outline = &m
	return s.openOutline(m)
}

// openOutline shows the outline picker; choosing an entry opens its page at
// that heading.
func (s *documentScreen) openOutline(m docOutlineMsg) tea.Cmd {
	items, targets := documentOutlineItems(m)
	if len(items) == 0 {
		s.c.Notice = "this document has no headings"
		return nil
	}
	cur := pageOfRow(targets, s.nav.Cursor)
	if m.bookmarks && cur < 0 {
		cur = sectionRow(targets, s.nav.Cursor) // the section the page is in
	}
	p := picker.New(s.c, "Outline · "+common.OneLine(s.docTitle()), items, max(cur, 0), func(sel []int) tea.Cmd {
		if len(sel) != 1 {
			return nil
		}
		t := targets[sel[0]]
		ps := newPageScreen(s.c, s.comp, s.info(), t.page)
		ps.jumpTo = t.elementID
		if m.bookmarks || t.decl {
			ps.jumpTo, ps.jumpTitle = "", t.text // a place by its title (a bookmark) or its line (code)
		}
		return common.PushCmd(ps)
	})
	p.Filterable = true
	p.Current = cur
	return picker.OpenCmd(p)
}

// saysWhyUnreadable reports whether a summary only repeats why the document
// cannot be read (the document server summarizes an unreadable file so):
// the "cannot be read" line says it already.
func saysWhyUnreadable(summary, unreadable string) bool {
	return unreadable != "" && strings.Contains(summary, unreadable)
}
