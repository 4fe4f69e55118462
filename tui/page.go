package tui

import (
	"context"
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// pageScreen shows a Level 2 page: rendered Markdown, raw JSON or plain text
// in a pager, with an element list, a category filter, search and paging.
type pageScreen struct {
	c *common
	presence
	docURI   string
	doc      dpe.URI
	docErr   error
	docTitle string
	count    int // pages in the document; 0 when unknown
	index    int
	cats     []dpe.Category
	w, h     int

	page    *protocol.DPEPage
	req     uint64
	loading bool
	again   bool // a live change arrived while loading
	err     string

	v          *viewer
	els        listNav
	showEls    bool
	focusEls   bool
	searching  bool
	input      textinput.Model
	picker     *picker
	pickerCats []dpe.Category
}

type pageMsg struct {
	req  uint64
	page *protocol.DPEPage
	err  error
}

func newPageScreen(c *common, computer, docURI, docTitle string, index, count int) *pageScreen {
	ti := textinput.New()
	ti.Prompt = "search: "
	ti.CharLimit = 256
	s := &pageScreen{
		c: c, presence: presence{comp: computer}, docURI: docURI, docTitle: docTitle, index: index, count: count,
		v: newViewer(c), input: ti,
	}
	s.doc, s.docErr = dpe.Parse(docURI)
	s.styleInput()
	return s
}

func (s *pageScreen) styleInput() {
	st := s.input.Styles()
	st.Focused.Prompt = s.c.styles.Prompt
	st.Blurred.Prompt = s.c.styles.Prompt
	st.Cursor.Blink = false
	s.input.SetStyles(st)
}

func (s *pageScreen) init() tea.Cmd { return s.loadCmd() }

// pageURI is the Level 2 URI read, with the category filter.
func (s *pageScreen) pageURI() string {
	u := dpe.Page(s.doc.Host, s.doc.DocRef, s.index)
	if len(s.cats) > 0 {
		u = u.WithQuery(dpe.Query{Categories: s.cats})
	}
	return u.String()
}

func (s *pageScreen) loadCmd() tea.Cmd {
	if s.docErr != nil {
		s.err = describeError(s.docErr, opPage)
		return nil
	}
	req := s.c.req()
	s.req, s.loading = req, true
	comp, uri := s.comp, s.pageURI()
	return call(s.c, func(ctx context.Context, b Backend) (*protocol.DPEPage, error) {
		var p protocol.DPEPage
		if err := b.ReadJSON(ctx, comp, uri, &p); err != nil {
			return nil, err
		}
		return sanitizePage(&p), nil
	}, func(p *protocol.DPEPage, err error) tea.Msg { return pageMsg{req: req, page: p, err: err} })
}

// reloadInPlace re-reads the page and restores the scroll offset. A
// reload asked for while one is in flight is coalesced into one more.
func (s *pageScreen) reloadInPlace() tea.Cmd {
	if s.loading && s.page != nil {
		s.again = true
		return nil
	}
	if s.page != nil {
		s.v.KeepScroll()
	}
	return s.loadCmd()
}

// goTo opens page index of the same document.
func (s *pageScreen) goTo(index int) tea.Cmd {
	if index < 0 || (s.count > 0 && index >= s.count) {
		return nil
	}
	s.index = index
	s.page, s.err, s.again = nil, "", false
	s.v.Reset()
	s.els = listNav{}
	s.els.setHeight(max(s.pagerHeight()-3, 1))
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
	if !s.showEls {
		return s.w
	}
	if s.w < 80 {
		return s.w
	}
	return max(s.w-s.elsWidth()-1, 20)
}

func (s *pageScreen) pagerHeight() int {
	h := s.h - 1
	if s.err != "" || s.gone {
		h--
	}
	if s.searching {
		h--
	}
	return max(h, 1)
}

func (s *pageScreen) layout() tea.Cmd {
	s.els.setHeight(max(s.pagerHeight()-3, 1))
	s.input.SetWidth(max(10, s.w-12))
	return s.v.SetSize(s.contentWidth(), s.pagerHeight())
}

func (s *pageScreen) setSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	return s.layout()
}

// renderPage renders a page in one of the three modes for a width.
func renderPage(p *protocol.DPEPage, k renderKey, _ Styles) string {
	switch k.mode {
	case modeJSON:
		return wrapStyled(renderJSON(p, chromaOf(k.style)), k.width)
	case modeText:
		return wrapPlain(dpe.RenderPageText(*p), k.width)
	}
	md := dpe.RenderPageMarkdown(*p)
	if strings.TrimSpace(md) == "" {
		md = "*(no elements)*"
	}
	return renderMarkdown(md, k.width, glamourOf(k.style))
}

func glamourOf(style string) string { g, _, _ := strings.Cut(style, "/"); return g }
func chromaOf(style string) string  { _, c, _ := strings.Cut(style, "/"); return c }

func (s *pageScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case pageMsg:
		if msg.req != s.req {
			return nil
		}
		s.loading = false
		if s.again {
			s.again = false
			return s.loadCmd() // the page changed again meanwhile
		}
		if msg.err != nil {
			s.err = describeError(msg.err, opPage)
			s.v.ForgetScroll()
			return s.layout()
		}
		s.err = ""
		s.page = msg.page
		s.c.refreshed = s.c.now()
		s.els.setLen(len(s.page.Elements))
		page := s.page
		cmd := s.v.SetContent(func(k renderKey, st Styles) string { return renderPage(page, k, st) })
		return tea.Batch(cmd, s.layout())
	case renderStartMsg, renderedMsg:
		return s.v.Update(msg)
	case themeMsg:
		s.styleInput()
		return s.v.Update(msg)
	case UpdateFinderMsg:
		if msg.Computer == s.comp {
			return s.reloadInPlace()
		}
	case reconnectedMsg:
		return s.reloadInPlace()
	case LeaveOfficeMsg, EnterOfficeMsg:
		if s.track(msg) {
			if s.gone {
				return s.layout()
			}
			return tea.Batch(s.layout(), s.reloadInPlace())
		}
	case tea.KeyPressMsg:
		return s.key(msg)
	case tea.MouseWheelMsg:
		if s.focusEls {
			s.els.update(msg, s.c.keys)
			return nil
		}
		return s.v.Update(msg)
	}
	return nil
}

func (s *pageScreen) key(msg tea.KeyPressMsg) tea.Cmd {
	k := s.c.keys
	if s.picker != nil {
		switch s.picker.update(msg, k) {
		case pickerApplied:
			var cats []dpe.Category
			for _, i := range s.picker.selected() {
				cats = append(cats, s.pickerCats[i])
			}
			s.picker = nil
			if !slices.Equal(cats, s.cats) {
				s.cats = cats
				s.v.ForgetScroll()
				return s.loadCmd()
			}
		case pickerCanceled:
			s.picker = nil
		}
		return nil
	}
	if s.searching {
		switch {
		case key.Matches(msg, k.Modal.Submit):
			s.searching = false
			s.input.Blur()
			return s.layout()
		case key.Matches(msg, k.Modal.Cancel):
			s.searching = false
			s.input.Blur()
			s.v.pg.search("")
			return s.layout()
		}
		old := s.input.Value()
		var cmd tea.Cmd
		s.input, cmd = s.input.Update(msg)
		if v := s.input.Value(); v != old {
			s.v.pg.search(v)
		}
		return cmd
	}
	switch {
	case key.Matches(msg, k.Nav.Back):
		if s.showEls {
			s.showEls, s.focusEls = false, false
			return s.layout()
		}
		if s.v.pg.query != "" {
			s.v.pg.search("")
			return nil
		}
		return pop
	case key.Matches(msg, k.Nav.Enter):
		if s.showEls && s.focusEls {
			return s.openElement()
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
		return s.v.SetMode((s.v.Mode() + 1) % modeCount)
	case key.Matches(msg, k.Page.Categories):
		all := dpe.Categories()
		items := make([]string, len(all))
		chosen := map[int]bool{}
		for i, c := range all {
			items[i] = string(c)
			if slices.Contains(s.cats, c) {
				chosen[i] = true
			}
		}
		s.pickerCats = all
		s.picker = newPicker("Show categories (none = all)", items, true, chosen, 0)
		return nil
	case key.Matches(msg, k.Page.PrevPage):
		return s.goTo(s.index - 1)
	case key.Matches(msg, k.Page.NextPage):
		return s.goTo(s.index + 1)
	case key.Matches(msg, k.Page.Search):
		s.searching = true
		s.input.SetValue(s.v.pg.query)
		s.input.CursorEnd()
		return tea.Batch(s.input.Focus(), s.layout())
	case key.Matches(msg, k.Page.NextMatch):
		s.v.pg.next(1)
		return nil
	case key.Matches(msg, k.Page.PrevMatch):
		s.v.pg.next(-1)
		return nil
	case key.Matches(msg, k.Global.Refresh):
		return s.reloadInPlace()
	}
	if s.focusEls {
		s.els.update(msg, k)
		return nil
	}
	return s.v.Update(msg)
}

func (s *pageScreen) openElement() tea.Cmd {
	if s.page == nil || s.els.cursor >= len(s.page.Elements) {
		return nil
	}
	el := s.page.Elements[s.els.cursor]
	return push(newElementScreen(s.c, s.comp, s.docURI, el))
}

func (s *pageScreen) view() string {
	st := s.c.styles
	title := st.Title.Render("Page "+s.pageLabel()) + "  " + oneLine(s.pageTitle())
	info := "  " + modeName(s.v.Mode())
	if len(s.cats) > 0 {
		info += " · " + catList(s.cats)
	}
	if s.loading {
		info += " · loading…"
	} else if s.v.Rendering() {
		info += " · rendering…"
	}
	lines := []string{title + st.Muted.Render(info)}
	if s.gone {
		lines = append(lines, st.Error.Render("✗ computer left the office"))
	} else if s.err != "" {
		lines = append(lines, st.Error.Render("✗ "+s.err))
	}
	var content string
	switch {
	case s.page == nil && s.loading:
		content = st.Muted.Render("loading " + s.pageURI() + " …")
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
			content = joinColumns(content, list, s.contentWidth(), s.pagerHeight())
		}
	}
	lines = append(lines, padLines(strings.Split(content, "\n"), s.pagerHeight())...)
	if s.searching {
		lines = append(lines, s.input.View())
	}
	body := strings.Join(lines, "\n")
	if s.picker != nil {
		return overlay(body, s.picker.view(s.w, s.h, st, s.c.keys), s.w, s.h)
	}
	return body
}

func (s *pageScreen) elementsView() string {
	st := s.c.styles
	w := s.elsWidth()
	inner := max(w-4, 8)
	var lines []string
	head := "Elements"
	if s.page != nil {
		head += " (" + itoa(len(s.page.Elements)) + ")"
	}
	lines = append(lines, st.Label.Render(head))
	if s.page != nil {
		from, to := s.els.visible()
		for i := from; i < to; i++ {
			el := s.page.Elements[i]
			text := el.Summary
			if text == "" {
				text = el.ElementID
			}
			row := cell(oneLine(el.Category), 9) + " " + cell(oneLine(text), inner-12)
			if i == s.els.cursor && s.focusEls {
				lines = append(lines, st.Selected.Render("▸ "+ansiStripForSelect(row)))
			} else if i == s.els.cursor {
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
	if s.count > 0 {
		return itoa(s.index+1) + "/" + itoa(s.count)
	}
	return itoa(s.index + 1)
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

func (s *pageScreen) crumb() string { return "page " + s.pageLabel() }

func (s *pageScreen) keys() help.KeyMap {
	k := s.c.keys
	if s.searching {
		return helpKeys{short: []key.Binding{k.Modal.Submit, k.Modal.Cancel}, full: [][]key.Binding{{k.Modal.Submit, k.Modal.Cancel}}}
	}
	return helpKeys{
		short: []key.Binding{k.Nav.Up, k.Nav.Down, k.Nav.Back, k.Page.Elements, k.Page.PrevPage, k.Page.NextPage, k.Page.Mode, k.Page.Categories, k.Page.Search, k.Global.Help},
		full: [][]key.Binding{
			{k.Nav.Up, k.Nav.Down, k.Nav.PageUp, k.Nav.PageDown, k.Nav.HalfUp, k.Nav.HalfDown, k.Nav.Top, k.Nav.Bottom},
			{k.Nav.Back, k.Page.Elements, k.Page.Focus, k.Nav.Enter, k.Page.PrevPage, k.Page.NextPage},
			{k.Page.Mode, k.Page.Categories, k.Page.Search, k.Page.NextMatch, k.Page.PrevMatch, k.Global.Refresh},
		},
	}
}

func (s *pageScreen) uri() string {
	if s.docErr != nil {
		return ""
	}
	return s.pageURI()
}

func (s *pageScreen) capturing() bool  { return s.searching || s.picker != nil }
func (s *pageScreen) computer() string { return s.comp }

func (s *pageScreen) status() string {
	parts := []string{}
	if len(s.cats) > 0 {
		parts = append(parts, "categories: "+catList(s.cats))
	}
	if m := s.v.pg.matchStatus(); m != "" {
		parts = append(parts, m)
	}
	if s.page != nil && s.v.pg.lines != nil {
		parts = append(parts, itoa(s.v.pg.percent())+"%")
	}
	return strings.Join(parts, " · ")
}

func (s *pageScreen) export() (string, string, bool) {
	if s.page == nil {
		return "", "", false
	}
	md := "# " + oneLine(s.page.Title) + "\n\n" + dpe.RenderPageMarkdown(*s.page)
	name := s.doc.DocRef + "-page-" + itoa(s.index+1)
	return name, md, true
}
