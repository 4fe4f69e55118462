package pages

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/components/list"
	"github.com/smcp-browse/smcp-browse/tui/components/picker"
	"github.com/smcp-browse/smcp-browse/tui/components/prompt"
	"github.com/smcp-browse/smcp-browse/tui/components/render"
	"github.com/smcp-browse/smcp-browse/tui/components/viewer"
	"github.com/smcp-browse/smcp-browse/tui/keymap"
	"github.com/smcp-browse/smcp-browse/tui/live"
	"github.com/smcp-browse/smcp-browse/tui/styles"
)

// pageScreen shows a Level 2 page: rendered Markdown, raw JSON or plain text
// in a viewer, with an element list, a category filter, search, an outline
// of its headings (and where the view is in it), its links, and paging.
type pageScreen struct {
	c     *common.Common
	comp  string
	live  live.Tracker
	doc   docInfo
	index int
	cats  []dpe.Category
	w, h  int

	page    *protocol.DPEPage
	req     uint64
	loading bool
	err     string

	v        *viewer.Model
	els      list.Nav
	showEls  bool
	focusEls bool
	count    string // the digits typed before G (300G: page 300)

	// jumpTo (an element ID), jumpTitle (a PDF bookmark's title) and
	// highlight (a search, with the line it was found on) are applied once
	// the page is rendered: the screen was opened from an outline, a link
	// or a content search.
	jumpTo      string
	jumpTitle   string
	highlight   string
	highlightAt string

	// outline caches the headings and their lines in the render on screen.
	outline   []heading
	outlineAt []int
	outlineOf *string // the pager content they were located in
}

type pageMsg struct {
	req  uint64
	page *protocol.DPEPage
	err  error
}

func newPageScreen(c *common.Common, computer string, doc docInfo, index int) *pageScreen {
	return &pageScreen{c: c, comp: computer, live: live.New(computer, false), doc: doc, index: index, v: viewer.New(c)}
}

func (s *pageScreen) Init() tea.Cmd { return s.loadCmd() }

// pageURI is the Level 2 URI read, with the category filter.
func (s *pageScreen) pageURI() dpe.URI {
	u := dpe.Page(s.doc.uri.Host, s.doc.uri.DocRef, s.index)
	if len(s.cats) > 0 {
		u = u.WithQuery(dpe.Query{Categories: s.cats})
	}
	return u
}

func (s *pageScreen) loadCmd() tea.Cmd {
	if s.doc.uri.DocRef == "" {
		s.err = common.DescribeError(protocol.Errorf(protocol.CodeInvalidDPEURI, "no document URI"), common.OpPage)
		return nil
	}
	req := s.c.Req()
	s.req, s.loading = req, true
	comp, u := s.comp, s.pageURI()
	return common.Call(s.c, func(ctx context.Context, b common.Backend) (*protocol.DPEPage, error) {
		p, err := b.ReadPage(ctx, comp, u)
		if err != nil {
			return nil, err
		}
		return common.SanitizePage(p), nil
	}, func(p *protocol.DPEPage, err error) tea.Msg { return pageMsg{req: req, page: p, err: err} })
}

// reloadInPlaceCmd re-reads the page and restores the scroll offset. A
// reload asked for while one is in flight is coalesced into one more.
func (s *pageScreen) reloadInPlaceCmd() tea.Cmd { return s.live.RereadCmd(s.restartCmd) }

// restartCmd reads the page again, keeping the scroll offset.
func (s *pageScreen) restartCmd() tea.Cmd {
	if s.page != nil {
		s.v.KeepScroll()
	}
	return s.loadCmd()
}

// goToCmd opens page index of the same document.
func (s *pageScreen) goToCmd(index int) tea.Cmd {
	if index < 0 || (s.doc.pages > 0 && index >= s.doc.pages) {
		return nil
	}
	s.index = index
	s.page, s.err = nil, ""
	s.live.Cancel()
	s.jumpTo, s.jumpTitle, s.highlight, s.highlightAt = "", "", "", ""
	s.v.Reset()
	s.els = list.Nav{}
	s.els.SetHeight(max(s.pagerHeight()-3, 1))
	return s.loadCmd()
}

func (s *pageScreen) elsWidth() int {
	if !s.showEls {
		return 0
	}
	if s.w < 80 {
		return s.w
	}
	return min(44, s.w*2/5)
}

func (s *pageScreen) contentWidth() int {
	if !s.showEls || s.w < 80 {
		return s.w
	}
	return max(s.w-s.elsWidth()-1, 20)
}

func (s *pageScreen) pagerHeight() int {
	h := s.h - 1
	if s.err != "" || s.live.Gone() {
		h--
	}
	return max(h, 1)
}

func (s *pageScreen) layout() tea.Cmd {
	s.els.SetHeight(max(s.pagerHeight()-3, 1))
	return s.v.SetSize(s.contentWidth(), s.pagerHeight())
}

func (s *pageScreen) SetSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	return s.layout()
}

// renderPage renders a page in one of the three modes for a width, with
// the line of each heading it shows (see markHeadings).
func renderPage(p *protocol.DPEPage, k viewer.RenderKey, _ styles.Styles) viewer.Rendered {
	switch k.Mode {
	case viewer.ModeJSON:
		return viewer.Plain(render.WrapStyled(render.JSON(p, chromaOf(k.Style)), k.Width))
	case viewer.ModeText:
		marked, ids := markHeadings(p, false)
		return anchored(render.Wrap(dpe.RenderPageText(marked), k.Width), ids)
	}
	marked, ids := markHeadings(p, true)
	md := dpe.RenderPageMarkdown(marked)
	if strings.TrimSpace(md) == "" {
		md = "*(no elements)*"
	}
	return anchored(render.Markdown(md, k.Width, glamourOf(k.Style)), ids)
}

// anchored takes the heading marks out of a render.
func anchored(out string, ids []string) viewer.Rendered {
	text, anchors := render.Anchors(out, ids)
	return viewer.Rendered{Text: text, Anchors: anchors}
}

// markHeadings returns a copy of the page whose headings start with
// render.AnchorMark, and their element IDs in order: the renderer then
// knows on which line each heading is, so that the outline and #anchor
// links land on the heading itself (never on an earlier line that merely
// says the same words). Headings a rendering leaves out (no text in plain
// text, shown within another element) are not marked.
func markHeadings(p *protocol.DPEPage, markdown bool) (protocol.DPEPage, []string) {
	present := make(map[string]bool, len(p.Elements))
	for _, e := range p.Elements {
		present[e.ElementID] = true
	}
	out := *p
	out.Elements = slices.Clone(p.Elements)
	var ids []string
	for i, e := range out.Elements {
		if e.Category != string(dpe.Heading) {
			continue
		}
		if w, _ := e.Content["within"].(string); w != "" && w != e.ElementID && present[w] {
			continue
		}
		text, _ := e.Content["text"].(string)
		md, _ := e.Content["markdown"].(string)
		if !markdown && strings.TrimSpace(dpe.OneLine(text)) == "" {
			continue
		}
		c := maps.Clone(e.Content)
		if c == nil {
			c = map[string]any{}
		}
		c["text"] = render.AnchorMark + text
		if md != "" {
			c["markdown"] = render.AnchorMark + md
		}
		out.Elements[i].Content = c
		ids = append(ids, e.ElementID)
	}
	return out, ids
}

func glamourOf(style string) string { g, _, _ := strings.Cut(style, "/"); return g }
func chromaOf(style string) string  { _, c, _ := strings.Cut(style, "/"); return c }

func (s *pageScreen) Update(msg tea.Msg) tea.Cmd {
	if cmd, ok := s.live.Handle(msg, s.layout, s.restartCmd); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case pageMsg:
		if msg.req != s.req {
			return nil
		}
		s.loading = false
		if s.live.Done() {
			return s.loadCmd() // the page changed again meanwhile
		}
		if msg.err != nil {
			s.err = common.DescribeError(msg.err, common.OpPage)
			s.v.ForgetScroll()
			return s.layout()
		}
		s.err = ""
		s.page = msg.page
		s.c.Refreshed = s.c.Now()
		s.els.SetLen(len(s.page.Elements))
		s.outline, s.outlineOf = pageHeadings(s.page), nil
		page := s.page
		cmd := s.v.SetContent(func(k viewer.RenderKey, st styles.Styles) viewer.Rendered { return renderPage(page, k, st) })
		cmd = tea.Batch(cmd, s.layout())
		s.arrive()
		return cmd
	case viewer.RenderedMsg:
		cmd := s.v.Update(msg)
		s.arrive()
		return cmd
	case viewer.RenderStartMsg:
		return s.v.Update(msg)
	case common.ThemeMsg:
		return s.v.Update(msg)
	case tea.KeyPressMsg:
		return s.key(msg)
	case tea.MouseWheelMsg:
		if s.focusEls {
			s.els.Update(msg, s.c.Keys)
			return nil
		}
		return s.v.Update(msg)
	}
	return nil
}

// arrive applies a pending jump or highlight once the page is on screen.
func (s *pageScreen) arrive() {
	if !s.v.Ready() || s.v.Rendering() || s.page == nil {
		return
	}
	if s.highlight != "" {
		q, at := s.highlight, s.highlightAt
		s.highlight, s.highlightAt = "", ""
		s.v.Pager().Search(q)
		s.v.Pager().NearLine(s.matchLine(at, q))
		s.jumpTo, s.jumpTitle = "", ""
		return
	}
	if s.jumpTo != "" {
		id := s.jumpTo
		s.jumpTo = ""
		s.scrollToElement(id)
	}
	if s.jumpTitle != "" {
		title := s.jumpTitle
		s.jumpTitle = ""
		s.scrollToTitle(title)
	}
}

// scrollToTitle brings the place a bookmark names to the top of the view,
// comparing by titleKey: the page's heading of that title, else a heading
// the title starts with (a heading the PDF's text split in two), else the
// first line that starts with the title, else the first that holds it. The
// page stays at its top when none does (a bookmark may name a figure).
func (s *pageScreen) scrollToTitle(title string) {
	key := titleKey(title)
	if key == "" {
		return
	}
	hs, at := s.locatedOutline()
	if at != nil {
		for i, h := range hs {
			if at[i] >= 0 && titleKey(h.text) == key {
				s.v.Pager().SetY(at[i])
				return
			}
		}
		for i, h := range hs {
			if hk := titleKey(h.text); at[i] >= 0 && 2*len(hk) >= len(key) && strings.HasPrefix(key, hk) {
				s.v.Pager().SetY(at[i])
				return
			}
		}
	}
	probe := titleKey(headingProbe(title))
	for i, l := range s.v.Pager().PlainLines() {
		if strings.HasPrefix(titleKey(l), probe) {
			s.v.Pager().SetY(i)
			return
		}
	}
	if l := s.lineOf(title); l >= 0 {
		s.v.Pager().SetY(l)
	}
}

// matchLine finds the rendered line of a search result's line (text as
// the text rendering has it, which the rendered Markdown may word
// differently): by its start, else by the words from the match on.
func (s *pageScreen) matchLine(line, q string) int {
	if l := s.lineOf(line); l >= 0 {
		return l
	}
	if i := strings.Index(strings.ToLower(line), strings.ToLower(q)); i >= 0 {
		if l := s.lineOf(line[i:]); l >= 0 {
			return l
		}
	}
	return -1
}

// lineOf returns the first rendered line that holds the start of text, or
// -1. Runs of spaces compare as one (the probe's words are joined by one
// space; a code block or a table lays its line out with more).
func (s *pageScreen) lineOf(text string) int { return s.lineFrom(0, text) }

// lineFrom is lineOf from line start on.
func (s *pageScreen) lineFrom(start int, text string) int {
	probe := strings.ToLower(headingProbe(strings.TrimSpace(text)))
	if probe == "" {
		return -1
	}
	lines := s.v.Pager().PlainLines()
	for i := start; i < len(lines); i++ {
		if l := lines[i]; strings.Contains(strings.ToLower(l), probe) || strings.Contains(strings.ToLower(strings.Join(strings.Fields(l), " ")), probe) {
			return i
		}
	}
	return -1
}

// scrollToElement brings an element to the top of the view: a heading by
// the outline, another element by the start of its text.
func (s *pageScreen) scrollToElement(id string) {
	hs, at := s.locatedOutline()
	for i, h := range hs {
		if h.elementID == id && at[i] >= 0 {
			s.v.Pager().SetY(at[i])
			return
		}
	}
	for _, e := range s.page.Elements {
		if e.ElementID == id {
			text, _ := e.Content["text"].(string)
			if text == "" {
				text = e.Summary
			}
			if l := s.lineOf(text); l >= 0 {
				s.v.Pager().SetY(l)
			}
			return
		}
	}
}

// locatedOutline returns the page's headings and their lines in the render
// on screen (located once per render).
func (s *pageScreen) locatedOutline() ([]heading, []int) {
	if !s.v.Ready() {
		return s.outline, nil
	}
	if s.outlineOf == nil || s.outlineOf != s.v.Pager().ContentID() {
		s.outlineAt = make([]int, len(s.outline))
		from := 0 // a declaration is on a line after the one before it
		for i, h := range s.outline {
			s.outlineAt[i] = -1
			if h.decl { // the page is its code: found by its line
				if at := s.lineFrom(from, h.text); at >= 0 {
					s.outlineAt[i], from = at, at+1
				}
			} else if l, ok := s.v.Anchor(h.elementID); ok {
				s.outlineAt[i] = l
			}
		}
		s.outlineOf = s.v.Pager().ContentID()
	}
	return s.outline, s.outlineAt
}

// here is the heading the view is in (-1: before the first): the one the
// top line is under, or, when the view cannot scroll further down, the
// last one on screen (a heading near the end is reached by a jump but
// never gets to the top).
func (s *pageScreen) here() int {
	_, at := s.locatedOutline()
	if at == nil {
		return -1
	}
	pg := s.v.Pager()
	line := pg.YOffset()
	if pg.MaxY() > 0 && line == pg.MaxY() {
		line += pg.Height() - 1
	}
	return currentHeading(at, line)
}

func (s *pageScreen) key(msg tea.KeyPressMsg) tea.Cmd {
	k := s.c.Keys
	if d := msg.String(); !s.focusEls && len(d) == 1 && d[0] >= '0' && d[0] <= '9' && (s.count != "" || d != "0") {
		s.count += d
		s.c.Notice = "page " + s.count + " (G to go)"
		return nil
	}
	if count := s.count; count != "" {
		s.count, s.c.Notice = "", ""
		if key.Matches(msg, k.Nav.Bottom) {
			return s.goToPageCmd(count)
		}
	}
	switch {
	case key.Matches(msg, k.Nav.Back):
		if s.showEls {
			s.showEls, s.focusEls = false, false
			return s.layout()
		}
		if s.v.Pager().SearchQuery() != "" {
			s.v.Pager().Search("")
			return nil
		}
		return common.PopCmd
	case key.Matches(msg, k.Nav.Enter):
		if s.showEls && s.focusEls {
			return s.openElementCmd()
		}
		s.showEls, s.focusEls = true, true
		return s.layout()
	case key.Matches(msg, k.Page.Elements):
		s.showEls = !s.showEls
		s.focusEls = s.showEls
		return s.layout()
	case key.Matches(msg, k.Page.Focus):
		if s.showEls {
			s.focusEls = !s.focusEls
		}
		return nil
	case key.Matches(msg, k.Page.Mode):
		return s.v.SetMode((s.v.Mode() + 1) % viewer.ModeCount)
	case key.Matches(msg, k.Page.Categories):
		return s.categoriesCmd()
	case key.Matches(msg, k.Page.Outline):
		return s.outlineCmd()
	case key.Matches(msg, k.Page.Links):
		return s.linksCmd()
	case key.Matches(msg, k.Page.PrevPage):
		return s.goToCmd(s.index - 1)
	case key.Matches(msg, k.Page.NextPage):
		return s.goToCmd(s.index + 1)
	case key.Matches(msg, k.Page.GoToPage):
		p := prompt.New(s.c, "page: ", "1–"+common.Itoa(max(s.doc.pages, 1)), "")
		p.Submit = s.goToPageCmd
		return prompt.OpenCmd(p)
	case key.Matches(msg, k.Page.Search):
		p := prompt.New(s.c, "search: ", "", s.v.Pager().SearchQuery())
		p.Change = func(v string) tea.Cmd { s.v.Pager().Search(v); return nil }
		p.Cancel = func() tea.Cmd { s.v.Pager().Search(""); return nil }
		return prompt.OpenCmd(p)
	case key.Matches(msg, k.Page.NextMatch):
		s.v.Pager().Next(1)
		return nil
	case key.Matches(msg, k.Page.PrevMatch):
		s.v.Pager().Next(-1)
		return nil
	case key.Matches(msg, k.Global.Refresh):
		return s.reloadInPlaceCmd()
	}
	if s.focusEls {
		s.els.Update(msg, k)
		return nil
	}
	if s.atEnd() && (key.Matches(msg, k.Nav.Down) || key.Matches(msg, k.Nav.PageDown)) && s.index+1 < s.doc.pages {
		return s.goToCmd(s.index + 1) // read on, as a reader turns the page
	}
	return s.v.Update(msg)
}

// atEnd reports whether the page is on screen down to its last line.
func (s *pageScreen) atEnd() bool {
	pg := s.v.Pager()
	return s.page != nil && s.v.Ready() && pg.YOffset() >= pg.MaxY()
}

// goToPageCmd opens page n (from 1) of the document, or says there is no
// such page.
func (s *pageScreen) goToPageCmd(n string) tea.Cmd {
	i, err := strconv.Atoi(strings.TrimSpace(n))
	if err != nil || i < 1 || s.doc.pages > 0 && i > s.doc.pages {
		s.c.Notice = "no page " + common.OneLine(n) + ": the document has pages 1–" + common.Itoa(s.doc.pages)
		return nil
	}
	if i-1 == s.index {
		return nil
	}
	return s.goToCmd(i - 1)
}

// categoriesCmd opens the category filter.
func (s *pageScreen) categoriesCmd() tea.Cmd {
	all := dpe.Categories()
	items := make([]picker.Item, len(all))
	for i, c := range all {
		items[i] = picker.Item{Label: string(c)}
	}
	p := picker.New(s.c, "Show categories (none = all)", items, 0, func(sel []int) tea.Cmd {
		var cats []dpe.Category
		for _, i := range sel {
			cats = append(cats, all[i])
		}
		if slices.Equal(cats, s.cats) {
			return nil
		}
		s.cats = cats
		s.v.ForgetScroll()
		return s.loadCmd()
	})
	p.Multi = true
	for i, c := range all {
		if slices.Contains(s.cats, c) {
			p.Chosen[i] = true
		}
	}
	return picker.OpenCmd(p)
}

// outlineCmd opens the page's outline with the current heading marked;
// choosing a heading scrolls to it.
func (s *pageScreen) outlineCmd() tea.Cmd {
	hs, at := s.locatedOutline()
	if len(hs) == 0 {
		s.c.Notice = "this page has no headings"
		if s.doc.pages > 1 {
			s.c.Notice += " (the document's outline is on its page list: T there)"
		}
		return nil
	}
	cur := max(s.here(), 0)
	p := picker.New(s.c, "Outline of page "+s.pageLabel(), outlineItems(hs, false), cur, func(sel []int) tea.Cmd {
		if len(sel) == 1 && at != nil && at[sel[0]] >= 0 {
			s.v.Pager().SetY(at[sel[0]])
		}
		return nil
	})
	p.Filterable = true
	p.Current = s.here()
	return picker.OpenCmd(p)
}

// linksCmd lists the page's links; choosing one follows it.
func (s *pageScreen) linksCmd() tea.Cmd {
	if s.page == nil {
		return nil
	}
	links := pageLinks(s.page)
	if len(links) == 0 {
		s.c.Notice = "this page has no links"
		return nil
	}
	items := make([]picker.Item, len(links))
	for i, l := range links {
		items[i] = picker.Item{Label: l.text, Detail: l.url}
	}
	p := picker.New(s.c, "Links on page "+s.pageLabel(), items, 0, func(sel []int) tea.Cmd {
		if len(sel) != 1 {
			return nil
		}
		return s.followCmd(links[sel[0]].url)
	})
	p.Filterable = true
	return picker.OpenCmd(p)
}

// followCmd follows a link of this page: an anchor of a heading here
// scrolls to it, anything else goes through followCmd.
func (s *pageScreen) followCmd(raw string) tea.Cmd {
	if strings.HasPrefix(raw, "#") {
		hs, at := s.locatedOutline()
		if h, ok := findAnchor(hs, raw); ok {
			for i := range hs {
				if hs[i].elementID == h.elementID && at != nil && at[i] >= 0 {
					s.v.Pager().SetY(at[i])
					return nil
				}
			}
		}
	}
	return followCmd(s.c, s.comp, s.doc, raw)
}

func (s *pageScreen) openElementCmd() tea.Cmd {
	if s.page == nil || s.els.Cursor >= len(s.page.Elements) {
		return nil
	}
	el := s.page.Elements[s.els.Cursor]
	return common.PushCmd(newElementScreen(s.c, s.comp, s.doc, el))
}

func (s *pageScreen) View() string {
	st := s.c.Styles
	title := st.Title.Render("Page "+s.pageLabel()) + "  " + common.OneLine(s.pageTitle())
	info := "  " + viewer.ModeName(s.v.Mode())
	if len(s.cats) > 0 {
		info += " · " + catList(s.cats)
	}
	if s.loading {
		info += " · loading…"
	} else if s.v.Rendering() {
		info += " · rendering…"
	}
	head := title + st.Muted.Render(info)
	if s.doc.cut != "" && s.doc.pages > 0 && s.index == s.doc.pages-1 {
		// The last page served: say that the file goes on.
		head = common.Fit(head+st.Warning.Render(" · ✂ cut short: "+common.OneLine(s.doc.cut)), s.w)
	}
	lines := []string{head}
	if s.live.Gone() {
		lines = append(lines, st.Error.Render("✗ computer left the office"))
	} else if s.err != "" {
		lines = append(lines, st.Error.Render("✗ "+s.err))
	}
	var content string
	switch {
	case s.page == nil && s.loading:
		content = st.Muted.Render("loading " + s.pageURI().String() + " …")
	case s.page == nil:
		content = ""
	case !s.v.Ready() && s.v.Rendering():
		content = st.Muted.Render("rendering…")
	case len(s.page.Elements) == 0 && len(s.cats) > 0:
		content = st.Muted.Render("(no elements of these categories on this page)")
	case len(s.page.Elements) == 0:
		content = st.Muted.Render("(no elements on this page)")
	default:
		content = s.v.View()
	}
	if s.showEls {
		list := s.elementsView()
		if s.w < 80 {
			content = list
		} else {
			content = common.JoinColumns(content, list, s.contentWidth(), s.pagerHeight())
		}
	}
	lines = append(lines, common.PadLines(strings.Split(content, "\n"), s.pagerHeight())...)
	return strings.Join(lines, "\n")
}

func (s *pageScreen) elementsView() string {
	st := s.c.Styles
	w := s.elsWidth()
	inner := max(w-4, 8)
	var lines []string
	head := "Elements"
	if s.page != nil {
		head += " (" + common.Itoa(len(s.page.Elements)) + ")"
	}
	lines = append(lines, st.Label.Render(head))
	if s.page != nil {
		from, to := s.els.Visible()
		for i := from; i < to; i++ {
			el := s.page.Elements[i]
			text := el.Summary
			if text == "" {
				text = el.ElementID
			}
			row := common.Cell(common.OneLine(el.Category), 9) + " " + common.Cell(common.OneLine(text), inner-12)
			if i == s.els.Cursor && s.focusEls {
				lines = append(lines, st.Selected.Render("▸ "+ansi.Strip(row)))
			} else if i == s.els.Cursor {
				lines = append(lines, "▸ "+row)
			} else {
				lines = append(lines, "  "+row)
			}
		}
	}
	pane := st.Pane
	if s.focusEls {
		pane = st.PaneFocused
	}
	return pane.Width(w).Height(s.pagerHeight()).MaxHeight(s.pagerHeight()).Render(strings.Join(lines, "\n"))
}

func (s *pageScreen) pageLabel() string {
	if s.doc.pages > 0 {
		return common.Itoa(s.index+1) + "/" + common.Itoa(s.doc.pages)
	}
	return common.Itoa(s.index + 1)
}

func (s *pageScreen) pageTitle() string {
	if s.page != nil {
		return s.page.Title
	}
	return ""
}

func catList(cats []dpe.Category) string {
	parts := make([]string, len(cats))
	for i, c := range cats {
		parts[i] = string(c)
	}
	return strings.Join(parts, ",")
}

func (s *pageScreen) Crumb() string { return "page " + s.pageLabel() }

// LinkCrumb names the page when it was opened by a link: the document is
// not on the stack then.
func (s *pageScreen) LinkCrumb() string {
	return common.OneLine(s.doc.title) + " · p. " + s.pageLabel()
}

func (s *pageScreen) Keys() help.KeyMap {
	k := s.c.Keys
	return keymap.HelpKeys{
		Short: []key.Binding{k.Nav.Up, k.Nav.Down, k.Nav.Back, k.Page.Search, k.Page.Outline, k.Page.Links, k.Page.Elements, k.Page.PrevPage, k.Page.NextPage, k.Page.GoToPage, k.Page.Mode, k.Page.Categories, k.Global.Help},
		Full: [][]key.Binding{
			{k.Nav.Up, k.Nav.Down, k.Nav.PageUp, k.Nav.PageDown, k.Nav.HalfUp, k.Nav.HalfDown, k.Nav.Top, k.Nav.Bottom},
			{k.Nav.Back, k.Page.Elements, k.Page.Focus, k.Nav.Enter, k.Page.PrevPage, k.Page.NextPage, k.Page.GoToPage},
			{k.Page.Search, k.Page.NextMatch, k.Page.PrevMatch, k.Page.Outline, k.Page.Links, k.Page.Mode, k.Page.Categories, k.Global.Refresh},
		},
	}
}

func (s *pageScreen) URI() string {
	if s.doc.uri.DocRef == "" {
		return ""
	}
	return s.pageURI().String()
}

func (s *pageScreen) Capturing() bool  { return false }
func (s *pageScreen) Computer() string { return s.comp }

func (s *pageScreen) Status() string {
	parts := []string{}
	if i := s.here(); i >= 0 {
		parts = append(parts, "§ "+s.outline[i].text)
	}
	if len(s.cats) > 0 {
		parts = append(parts, "categories: "+catList(s.cats))
	}
	if m := s.v.Pager().MatchStatus(); m != "" {
		parts = append(parts, m)
	}
	if s.page != nil && s.v.Ready() {
		parts = append(parts, common.Itoa(s.v.Pager().Percent())+"%")
	}
	return strings.Join(parts, " · ")
}

func (s *pageScreen) Export() (common.ExportJob, bool) {
	if s.page == nil {
		return common.ExportJob{}, false
	}
	md := dpe.Portable(dpe.RenderPageMarkdown(*s.page)) // for a file, not the screen
	if t := common.OneLine(s.page.Title); !startsWithHeading(s.page, t) {
		md = "# " + t + "\n\n" + md // unless the page opens with it
	}
	return common.StaticExport(s.doc.uri.DocRef+"-page-"+common.Itoa(s.index+1), "page "+s.pageLabel(), md), true
}
