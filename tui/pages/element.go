package pages

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/components/render"
	"github.com/smcp-browse/smcp-browse/tui/components/viewer"
	"github.com/smcp-browse/smcp-browse/tui/keymap"
	"github.com/smcp-browse/smcp-browse/tui/live"
	"github.com/smcp-browse/smcp-browse/tui/styles"
)

// elementScreen shows a Level 3 element: its Markdown rendering, then its
// content and metadata as coloured JSON.
type elementScreen struct {
	c     *common.Common
	comp  string
	live  live.Tracker
	doc   docInfo
	brief protocol.DPEElementDetail // from the page, shown until the read lands
	el    *protocol.DPEElementDetail
	w, h  int

	req     uint64
	loading bool
	err     string
	v       *viewer.Model
}

type elementMsg struct {
	req uint64
	el  *protocol.DPEElementDetail
	err error
}

func newElementScreen(c *common.Common, computer string, doc docInfo, brief protocol.DPEElementDetail) *elementScreen {
	return &elementScreen{c: c, comp: computer, live: live.New(computer, false), doc: doc, brief: brief, v: viewer.New(c)}
}

// elementURI is the Level 3 URI of the element.
func (s *elementScreen) elementURI() dpe.URI {
	return dpe.Element(s.doc.uri.Host, s.doc.uri.DocRef, s.brief.ElementID)
}

func (s *elementScreen) Init() tea.Cmd { return s.loadCmd() }

func (s *elementScreen) loadCmd() tea.Cmd {
	if s.doc.uri.DocRef == "" {
		s.err = common.DescribeError(protocol.Errorf(protocol.CodeInvalidDPEURI, "no document URI"), common.OpElement)
		return nil
	}
	req := s.c.Req()
	s.req, s.loading = req, true
	comp, u := s.comp, s.elementURI()
	return common.Call(s.c, func(ctx context.Context, b common.Backend) (*protocol.DPEElementDetail, error) {
		el, err := b.ReadElement(ctx, comp, u)
		if el != nil {
			c := common.SanitizeElement(*el)
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
	st := s.c.Styles
	el := s.current()
	head := st.Title.Render(common.OneLine(el.Category)) + "  " + common.OneLine(el.ElementID)
	if el.PageIndex != nil {
		head += st.Muted.Render(" · page " + common.Itoa(*el.PageIndex+1))
	}
	if s.loading {
		head += st.Muted.Render(" · loading…")
	}
	lines := []string{head}
	if el.Summary != "" {
		lines = append(lines, common.WrapText(common.OneLine(el.Summary), max(s.w, 10), 2)...)
	}
	if s.live.Gone() {
		lines = append(lines, st.Error.Render("✗ computer left the office"))
	} else if s.err != "" {
		lines = append(lines, st.Error.Render("✗ "+s.err))
	}
	return lines
}

func (s *elementScreen) SetSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	return s.layout()
}

func (s *elementScreen) layout() tea.Cmd {
	return s.v.SetSize(s.w, max(s.h-len(s.headerLines())-1, 1))
}

// renderElement lays out the rendering, the content JSON and the metadata.
func renderElement(el protocol.DPEElementDetail, k viewer.RenderKey, st styles.Styles) viewer.Rendered {
	section := func(name string) string {
		return st.Label.Render("── " + name + " " + strings.Repeat("─", max(0, k.Width-len([]rune(name))-4)))
	}
	var b strings.Builder
	b.WriteString(section("Rendered") + "\n")
	md := dpe.RenderElementMarkdown(el)
	b.WriteString(render.Markdown(md, k.Width, glamourOf(k.Style)) + "\n\n")
	b.WriteString(section("Content") + "\n")
	b.WriteString(render.WrapStyled(render.JSON(el.Content, chromaOf(k.Style)), k.Width) + "\n\n")
	b.WriteString(section("Metadata") + "\n")
	meta := map[string]any{"element_id": el.ElementID, "category": el.Category, "uri": el.URI, "doc_ref": el.DocRef}
	if el.PageIndex != nil {
		meta["page_index"] = *el.PageIndex
	}
	if len(el.Metadata) > 0 {
		meta["metadata"] = el.Metadata
	}
	b.WriteString(render.WrapStyled(render.JSON(meta, chromaOf(k.Style)), k.Width))
	return viewer.Plain(b.String())
}

// restartCmd reads the element again, keeping the scroll offset.
func (s *elementScreen) restartCmd() tea.Cmd {
	if s.el != nil {
		s.v.KeepScroll()
	}
	return s.loadCmd()
}

func (s *elementScreen) Update(msg tea.Msg) tea.Cmd {
	if cmd, ok := s.live.Handle(msg, s.layout, s.restartCmd); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case elementMsg:
		if msg.req != s.req {
			return nil
		}
		s.loading = false
		if s.live.Done() {
			return s.loadCmd() // the element changed again meanwhile
		}
		if msg.err != nil {
			s.err = common.DescribeError(msg.err, common.OpElement)
			s.v.ForgetScroll()
			return s.layout()
		}
		s.err = ""
		s.el = msg.el
		s.c.Refreshed = s.c.Now()
		el := *s.el
		cmd := s.v.SetContent(func(k viewer.RenderKey, st styles.Styles) viewer.Rendered { return renderElement(el, k, st) })
		return tea.Batch(cmd, s.layout())
	case viewer.RenderStartMsg, viewer.RenderedMsg, common.ThemeMsg:
		return s.v.Update(msg)
	case tea.KeyPressMsg:
		k := s.c.Keys
		switch {
		case key.Matches(msg, k.Nav.Back):
			return common.PopCmd
		case key.Matches(msg, k.Nav.Enter):
			if u := s.linkURL(); u != "" {
				return followCmd(s.c, s.comp, s.doc, u)
			}
			return nil
		case key.Matches(msg, k.Global.Refresh):
			return s.live.RereadCmd(s.restartCmd)
		}
		return s.v.Update(msg)
	case tea.MouseWheelMsg:
		return s.v.Update(msg)
	}
	return nil
}

func (s *elementScreen) View() string {
	lines := s.headerLines()
	lines = append(lines, "")
	switch {
	case s.el == nil && s.loading:
		lines = append(lines, s.c.Styles.Muted.Render("loading…"))
	case s.el != nil && !s.v.Ready():
		lines = append(lines, s.c.Styles.Muted.Render("rendering…"))
	default:
		lines = append(lines, s.v.View())
	}
	return strings.Join(lines, "\n")
}

func (s *elementScreen) Crumb() string { return s.brief.ElementID }

func (s *elementScreen) Keys() help.KeyMap {
	k := s.c.Keys
	return keymap.HelpKeys{
		Short: []key.Binding{k.Nav.Up, k.Nav.Down, k.Nav.Top, k.Nav.Bottom, k.Nav.Back, k.Global.Copy, k.Global.Save, k.Global.Pager, k.Global.Help, k.Global.Quit},
		Full:  [][]key.Binding{{k.Nav.Up, k.Nav.Down, k.Nav.PageUp, k.Nav.PageDown, k.Nav.Top, k.Nav.Bottom, k.Nav.Back, k.Global.Refresh}},
	}
}

func (s *elementScreen) URI() string {
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

func (s *elementScreen) Capturing() bool  { return false }
func (s *elementScreen) Computer() string { return s.comp }

func (s *elementScreen) Status() string {
	if !s.v.Ready() {
		return ""
	}
	return common.Itoa(s.v.Pager().Percent()) + "%"
}

func (s *elementScreen) Export() (common.ExportJob, bool) {
	if s.el == nil {
		return common.ExportJob{}, false
	}
	return common.StaticExport(s.doc.uri.DocRef+"-"+s.el.ElementID, "element "+s.el.ElementID, dpe.Portable(dpe.RenderElementMarkdown(*s.el))+"\n"), true
}
