package tui

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// elementScreen shows a Level 3 element: its Markdown rendering, then its
// content and metadata as coloured JSON.
type elementScreen struct {
	c     *common
	comp  string
	live  liveTracker
	doc   docInfo
	brief protocol.DPEElementDetail // from the page, shown until the read lands
	el    *protocol.DPEElementDetail
	w, h  int

	req     uint64
	loading bool
	err     string
	v       *viewer
}

type elementMsg struct {
	req uint64
	el  *protocol.DPEElementDetail
	err error
}

func newElementScreen(c *common, computer string, doc docInfo, brief protocol.DPEElementDetail) *elementScreen {
	return &elementScreen{c: c, comp: computer, live: newLiveTracker(computer, false), doc: doc, brief: brief, v: newViewer(c)}
}

// elementURI is the Level 3 URI of the element.
func (s *elementScreen) elementURI() dpe.URI {
	return dpe.Element(s.doc.uri.Host, s.doc.uri.DocRef, s.brief.ElementID)
}

func (s *elementScreen) init() tea.Cmd { return s.loadCmd() }

func (s *elementScreen) loadCmd() tea.Cmd {
	if s.doc.uri.DocRef == "" {
		s.err = describeError(protocol.Errorf(protocol.CodeInvalidDPEURI, "no document URI"), opElement)
		return nil
	}
	req := s.c.req()
	s.req, s.loading = req, true
	comp, u := s.comp, s.elementURI()
	return call(s.c, func(ctx context.Context, b Backend) (*protocol.DPEElementDetail, error) {
		el, err := b.ReadElement(ctx, comp, u)
		if el != nil {
			c := sanitizeElement(*el)
			el = &c
		}
		return el, err
	}, func(el *protocol.DPEElementDetail, err error) tea.Msg { return elementMsg{req: req, el: el, err: err} })
}

func (s *elementScreen) current() protocol.DPEElementDetail {
	if s.el != nil {
		return *s.el
	}
	return s.brief
}

func (s *elementScreen) headerLines() []string {
	st := s.c.styles
	el := s.current()
	head := st.Title.Render(oneLine(el.Category)) + "  " + oneLine(el.ElementID)
	if el.PageIndex != nil {
		head += st.Muted.Render(" · page " + itoa(*el.PageIndex+1))
	}
	if s.loading {
		head += st.Muted.Render(" · loading…")
	}
	lines := []string{head}
	if el.Summary != "" {
		lines = append(lines, wrapText(oneLine(el.Summary), max(s.w, 10), 2)...)
	}
	if s.live.isGone() {
		lines = append(lines, st.Error.Render("✗ computer left the office"))
	} else if s.err != "" {
		lines = append(lines, st.Error.Render("✗ "+s.err))
	}
	return lines
}

func (s *elementScreen) setSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	return s.layout()
}

func (s *elementScreen) layout() tea.Cmd {
	return s.v.SetSize(s.w, max(s.h-len(s.headerLines())-1, 1))
}

// renderElement lays out the rendering, the content JSON and the metadata.
func renderElement(el protocol.DPEElementDetail, k renderKey, st Styles) string {
	section := func(name string) string {
		return st.Label.Render("── " + name + " " + strings.Repeat("─", max(0, k.width-len([]rune(name))-4)))
	}
	var b strings.Builder
	b.WriteString(section("Rendered") + "\n")
	md := dpe.RenderElementMarkdown(el)
	b.WriteString(renderMarkdown(md, k.width, glamourOf(k.style)) + "\n\n")
	b.WriteString(section("Content") + "\n")
	b.WriteString(wrapStyled(renderJSON(el.Content, chromaOf(k.style)), k.width) + "\n\n")
	b.WriteString(section("Metadata") + "\n")
	meta := map[string]any{"element_id": el.ElementID, "category": el.Category, "uri": el.URI, "doc_ref": el.DocRef}
	if el.PageIndex != nil {
		meta["page_index"] = *el.PageIndex
	}
	if len(el.Metadata) > 0 {
		meta["metadata"] = el.Metadata
	}
	b.WriteString(wrapStyled(renderJSON(meta, chromaOf(k.style)), k.width))
	return b.String()
}

// restartCmd reads the element again, keeping the scroll offset.
func (s *elementScreen) restartCmd() tea.Cmd {
	if s.el != nil {
		s.v.KeepScroll()
	}
	return s.loadCmd()
}

func (s *elementScreen) update(msg tea.Msg) tea.Cmd {
	if cmd, ok := s.live.handle(msg, s.layout, s.restartCmd); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case elementMsg:
		if msg.req != s.req {
			return nil
		}
		s.loading = false
		if s.live.done() {
			return s.loadCmd() // the element changed again meanwhile
		}
		if msg.err != nil {
			s.err = describeError(msg.err, opElement)
			s.v.ForgetScroll()
			return s.layout()
		}
		s.err = ""
		s.el = msg.el
		s.c.refreshed = s.c.now()
		el := *s.el
		cmd := s.v.SetContent(func(k renderKey, st Styles) string { return renderElement(el, k, st) })
		return tea.Batch(cmd, s.layout())
	case renderStartMsg, renderedMsg, themeMsg:
		return s.v.Update(msg)
	case tea.KeyPressMsg:
		k := s.c.keys
		switch {
		case key.Matches(msg, k.Nav.Back):
			return popCmd
		case key.Matches(msg, k.Nav.Enter):
			if u := s.linkURL(); u != "" {
				return followCmd(s.c, s.comp, s.doc, u)
			}
			return nil
		case key.Matches(msg, k.Global.Refresh):
			return s.live.rereadCmd(s.restartCmd)
		}
		return s.v.Update(msg)
	case tea.MouseWheelMsg:
		return s.v.Update(msg)
	}
	return nil
}

func (s *elementScreen) view() string {
	lines := s.headerLines()
	lines = append(lines, "")
	switch {
	case s.el == nil && s.loading:
		lines = append(lines, s.c.styles.Muted.Render("loading…"))
	case s.el != nil && !s.v.Ready():
		lines = append(lines, s.c.styles.Muted.Render("rendering…"))
	default:
		lines = append(lines, s.v.View())
	}
	return strings.Join(lines, "\n")
}

func (s *elementScreen) crumb() string { return s.brief.ElementID }

func (s *elementScreen) keys() help.KeyMap {
	k := s.c.keys
	return helpKeys{
		short: []key.Binding{k.Nav.Up, k.Nav.Down, k.Nav.Top, k.Nav.Bottom, k.Nav.Back, k.Global.Copy, k.Global.Save, k.Global.Pager, k.Global.Help, k.Global.Quit},
		full:  [][]key.Binding{{k.Nav.Up, k.Nav.Down, k.Nav.PageUp, k.Nav.PageDown, k.Nav.Top, k.Nav.Bottom, k.Nav.Back, k.Global.Refresh}},
	}
}

func (s *elementScreen) uri() string {
	if s.doc.uri.DocRef == "" {
		return ""
	}
	return s.elementURI().String()
}

// linkURL is the destination of a link element ("" for other elements).
func (s *elementScreen) linkURL() string {
	el := s.current()
	if el.Category != string(dpe.Link) {
		return ""
	}
	u, _ := el.Content["url"].(string)
	return strings.TrimSpace(u)
}

func (s *elementScreen) capturing() bool  { return false }
func (s *elementScreen) computer() string { return s.comp }

func (s *elementScreen) status() string {
	if !s.v.Ready() {
		return ""
	}
	return itoa(s.v.pg.percent()) + "%"
}

func (s *elementScreen) export() (exportJob, bool) {
	if s.el == nil {
		return exportJob{}, false
	}
	return staticExport(s.doc.uri.DocRef+"-"+s.el.ElementID, "element "+s.el.ElementID, dpe.RenderElementMarkdown(*s.el)+"\n"), true
}
