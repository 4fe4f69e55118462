// Package viewer is the scrolling view of content rendered per mode, width
// and theme in a command, with its renders cached.
package viewer

import (
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/components/pager"
	"github.com/smcp-browse/smcp-browse/tui/styles"
)

// RenderFunc renders a screen's content for one key with a theme. It runs
// in a command, off the Update goroutine, so it must only read what it
// captured.
type RenderFunc func(k RenderKey, st styles.Styles) Rendered

// Rendered is one render: its text and, for the elements the renderer
// placed, the line each starts on (keyed by element ID), so that a jump to
// an element lands on it whatever other lines say the same words.
type Rendered struct {
	Text    string
	Anchors map[string]int
}

// Plain is a render without anchors.
func Plain(text string) Rendered { return Rendered{Text: text} }

// Model is the scrolling view of content that is rendered per mode, width
// and theme (a page, an element): a component in soft-serve's sense (Init,
// Update, View, SetSize, help.KeyMap). It renders in a command, caches the
// renders by key so that scrolling never re-renders and going back to a
// width seen before is free, keeps the old render on screen while a resize
// settles, and keeps the scroll position across reloads and mode switches.
type Model struct {
	c      *common.Common
	pg     pager.Model
	w, h   int
	mode   int
	render RenderFunc // nil until there is content

	cache   map[RenderKey]Rendered
	req     uint64         // the render in flight, 0 when none
	reqKey  RenderKey      // what it renders
	shown   RenderKey      // the render the pager holds
	anchors map[string]int // of the shown render

	keepY     int // scroll offset to restore on the next render, -1 for none
	keepRatio float64
	useRatio  bool
}

// RenderedMsg carries a finished render.
type RenderedMsg struct {
	req uint64
	key RenderKey
	out Rendered
}

// RenderStartMsg starts a render that waited for a resize to settle.
type RenderStartMsg struct {
	req uint64
	run tea.Cmd
}

// viewerCacheSize bounds the renders kept per viewer.
const viewerCacheSize = 8

// New returns an empty viewer; SetContent gives it something to show.
func New(c *common.Common) *Model {
	return &Model{c: c, pg: pager.New(), cache: map[RenderKey]Rendered{}, keepY: -1}
}

// Init implements the component contract; a viewer starts empty.
func (v *Model) Init() tea.Cmd { return nil }

// SetContent replaces what the viewer shows and starts rendering it. The
// scroll offset is kept when KeepScroll was called just before (a reload
// of the same content), otherwise the view starts at the top.
func (v *Model) SetContent(render RenderFunc) tea.Cmd {
	v.render = render
	v.cache = map[RenderKey]Rendered{}
	v.req, v.shown = 0, RenderKey{}
	return v.rerender()
}

// Reset forgets the content and the scroll position (another page).
func (v *Model) Reset() {
	v.render, v.anchors = nil, nil
	v.cache = map[RenderKey]Rendered{}
	v.req, v.shown, v.keepY, v.useRatio = 0, RenderKey{}, -1, false
	v.pg = pager.New()
	v.pg.SetSize(v.w, v.h)
}

// KeepScroll makes the next SetContent restore the current scroll offset.
func (v *Model) KeepScroll() {
	if !v.pg.IsEmpty() {
		v.keepY = v.pg.YOffset()
	}
}

// ForgetScroll drops a scroll offset KeepScroll saved (the reload failed).
func (v *Model) ForgetScroll() { v.keepY = -1 }

// SetSize gives the viewer its size and renders for the new width.
func (v *Model) SetSize(w, h int) tea.Cmd {
	v.w, v.h = w, h
	v.pg.SetSize(w, h)
	return v.rerender()
}

// SetMode switches the render mode, keeping the relative position.
func (v *Model) SetMode(mode int) tea.Cmd {
	v.mode = mode
	if v.pg.MaxY() > 0 {
		v.keepRatio, v.useRatio = float64(v.pg.YOffset())/float64(v.pg.MaxY()), true
	}
	return v.rerender()
}

// Mode returns the render mode.
func (v *Model) Mode() int { return v.mode }

// Ready reports whether a render is on screen.
func (v *Model) Ready() bool { return !v.pg.IsEmpty() }

// Anchor returns the line the element id starts on in the render on
// screen, when the renderer placed it.
func (v *Model) Anchor(id string) (int, bool) {
	if v.pg.IsEmpty() {
		return 0, false
	}
	l, ok := v.anchors[id]
	return l, ok
}

// Rendering reports whether a render is being made.
func (v *Model) Rendering() bool { return v.req != 0 }

// HasContent reports whether SetContent was called since the last Reset.
func (v *Model) HasContent() bool { return v.render != nil }

func (v *Model) wantKey() RenderKey {
	return RenderKey{Mode: v.mode, Width: v.w, Style: v.c.Styles.Glamour + "/" + v.c.Styles.Chroma}
}

// rerender shows the cached render for the current key, or starts making
// it in a command.
func (v *Model) rerender() tea.Cmd {
	if v.render == nil || v.w <= 0 {
		return nil
	}
	k := v.wantKey()
	if out, ok := v.cache[k]; ok {
		v.show(k, out)
		return nil
	}
	if v.req != 0 && v.reqKey == k {
		return nil
	}
	req := v.c.Req()
	v.req, v.reqKey = req, k
	render, st := v.render, v.c.Styles
	run := func() tea.Msg { return RenderedMsg{req: req, key: k, out: render(k, st)} }
	if !v.pg.IsEmpty() && v.shown.Width != 0 && v.shown.Width != k.Width {
		// A resize: keep showing the old render until the size settles, so
		// dragging a window edge does not start a render per step.
		return v.c.Tick(resizeSettle, func(time.Time) tea.Msg { return RenderStartMsg{req: req, run: run} })
	}
	return run
}

func (v *Model) show(k RenderKey, out Rendered) {
	if v.shown == k && !v.pg.IsEmpty() && v.keepY < 0 && !v.useRatio {
		return
	}
	v.shown = k
	v.anchors = out.Anchors
	v.pg.SetSticky(k.Mode == ModeRendered)
	v.pg.SetContent(out.Text)
	switch {
	case v.keepY >= 0:
		v.pg.SetY(v.keepY)
		v.keepY = -1
	case v.useRatio:
		v.pg.SetY(int(v.keepRatio * float64(v.pg.MaxY())))
		v.useRatio = false
	}
}

// Update handles the viewer's renders, theme changes, and the scrolling
// keys and mouse wheel.
func (v *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case RenderStartMsg:
		if msg.req == v.req {
			return msg.run
		}
	case RenderedMsg:
		if msg.req != v.req {
			return nil
		}
		v.req = 0
		if len(v.cache) >= viewerCacheSize {
			v.cache = map[RenderKey]Rendered{}
		}
		v.cache[msg.key] = msg.out
		return v.rerender()
	case common.ThemeMsg:
		v.cache = map[RenderKey]Rendered{}
		return v.rerender()
	case tea.KeyPressMsg, tea.MouseWheelMsg:
		v.pg.Update(msg, v.c.Keys)
	}
	return nil
}

// View draws the visible lines.
func (v *Model) View() string { return v.pg.View(v.c.Styles) }

// ShortHelp implements help.KeyMap.
func (v *Model) ShortHelp() []key.Binding {
	n := v.c.Keys.Nav
	return []key.Binding{n.Up, n.Down, n.Top, n.Bottom}
}

// FullHelp implements help.KeyMap.
func (v *Model) FullHelp() [][]key.Binding {
	n := v.c.Keys.Nav
	return [][]key.Binding{{n.Up, n.Down, n.PageUp, n.PageDown, n.HalfUp, n.HalfDown, n.Top, n.Bottom}}
}

var _ help.KeyMap = (*Model)(nil)

// ModeName names a render mode for the page's title line.
func ModeName(m int) string {
	switch m {
	case ModeJSON:
		return "raw JSON"
	case ModeText:
		return "plain text"
	}
	return "rendered"
}

// RenderKey identifies one rendering of a screen's content; a screen caches
// its renders by key, so scrolling never re-renders and resizing back to a
// width seen before is free.
type RenderKey struct {
	Mode  int
	Width int
	Style string
}

// Render modes of the page view, cycled with `m`.
const (
	ModeRendered = iota
	ModeJSON
	ModeText
	ModeCount
)

// resizeSettle is how long a resize must pause before the content is
// rendered for the new width.
const resizeSettle = 80 * time.Millisecond

// Pager returns the scrolling view, for what the viewer's owner does with
// the rendered lines (search, jumps, position).
func (v *Model) Pager() *pager.Model { return &v.pg }
