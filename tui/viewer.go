package tui

import (
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// renderFunc renders a screen's content for one key with a theme. It runs
// in a command, off the Update goroutine, so it must only read what it
// captured.
type renderFunc func(k renderKey, st Styles) string

// viewer is the scrolling view of content that is rendered per mode, width
// and theme (a page, an element): a component in soft-serve's sense (Init,
// Update, View, SetSize, help.KeyMap). It renders in a command, caches the
// renders by key so that scrolling never re-renders and going back to a
// width seen before is free, keeps the old render on screen while a resize
// settles, and keeps the scroll position across reloads and mode switches.
type viewer struct {
	c      *common
	pg     pager
	w, h   int
	mode   int
	render renderFunc // nil until there is content

	cache  map[renderKey]string
	req    uint64    // the render in flight, 0 when none
	reqKey renderKey // what it renders
	shown  renderKey // the render the pager holds

	keepY     int // scroll offset to restore on the next render, -1 for none
	keepRatio float64
	useRatio  bool
}

// renderedMsg carries a finished render.
type renderedMsg struct {
	req uint64
	key renderKey
	out string
}

// renderStartMsg starts a render that waited for a resize to settle.
type renderStartMsg struct {
	req uint64
	run tea.Cmd
}

// viewerCacheSize bounds the renders kept per viewer.
const viewerCacheSize = 8

func newViewer(c *common) *viewer {
	return &viewer{c: c, pg: newPager(), cache: map[renderKey]string{}, keepY: -1}
}

// Init implements the component contract; a viewer starts empty.
func (v *viewer) Init() tea.Cmd { return nil }

// SetContent replaces what the viewer shows and starts rendering it. The
// scroll offset is kept when KeepScroll was called just before (a reload
// of the same content), otherwise the view starts at the top.
func (v *viewer) SetContent(render renderFunc) tea.Cmd {
	v.render = render
	v.cache = map[renderKey]string{}
	v.req, v.shown = 0, renderKey{}
	return v.rerender()
}

// Reset forgets the content and the scroll position (another page).
func (v *viewer) Reset() {
	v.render = nil
	v.cache = map[renderKey]string{}
	v.req, v.shown, v.keepY, v.useRatio = 0, renderKey{}, -1, false
	v.pg = newPager()
	v.pg.setSize(v.w, v.h)
}

// KeepScroll makes the next SetContent restore the current scroll offset.
func (v *viewer) KeepScroll() {
	if v.pg.lines != nil {
		v.keepY = v.pg.y
	}
}

// ForgetScroll drops a scroll offset KeepScroll saved (the reload failed).
func (v *viewer) ForgetScroll() { v.keepY = -1 }

// SetSize gives the viewer its size and renders for the new width.
func (v *viewer) SetSize(w, h int) tea.Cmd {
	v.w, v.h = w, h
	v.pg.setSize(w, h)
	return v.rerender()
}

// SetMode switches the render mode, keeping the relative position.
func (v *viewer) SetMode(mode int) tea.Cmd {
	v.mode = mode
	if v.pg.maxY() > 0 {
		v.keepRatio, v.useRatio = float64(v.pg.y)/float64(v.pg.maxY()), true
	}
	return v.rerender()
}

// Mode returns the render mode.
func (v *viewer) Mode() int { return v.mode }

// Ready reports whether a render is on screen.
func (v *viewer) Ready() bool { return v.pg.lines != nil }

// Rendering reports whether a render is being made.
func (v *viewer) Rendering() bool { return v.req != 0 }

// HasContent reports whether SetContent was called since the last Reset.
func (v *viewer) HasContent() bool { return v.render != nil }

func (v *viewer) wantKey() renderKey {
	return renderKey{mode: v.mode, width: v.w, style: v.c.styles.Glamour + "/" + v.c.styles.Chroma}
}

// rerender shows the cached render for the current key, or starts making
// it in a command.
func (v *viewer) rerender() tea.Cmd {
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
	req := v.c.req()
	v.req, v.reqKey = req, k
	render, st := v.render, v.c.styles
	run := func() tea.Msg { return renderedMsg{req: req, key: k, out: render(k, st)} }
	if v.pg.lines != nil && v.shown.width != 0 && v.shown.width != k.width {
		// A resize: keep showing the old render until the size settles, so
		// dragging a window edge does not start a render per step.
		return v.c.tick(resizeSettle, func(time.Time) tea.Msg { return renderStartMsg{req: req, run: run} })
	}
	return run
}

func (v *viewer) show(k renderKey, out string) {
	if v.shown == k && v.pg.lines != nil && v.keepY < 0 && !v.useRatio {
		return
	}
	v.shown = k
	v.pg.sticky = k.mode == modeRendered
	v.pg.setContent(out)
	switch {
	case v.keepY >= 0:
		v.pg.setY(v.keepY)
		v.keepY = -1
	case v.useRatio:
		v.pg.setY(int(v.keepRatio * float64(v.pg.maxY())))
		v.useRatio = false
	}
}

// Update handles the viewer's renders, theme changes, and the scrolling
// keys and mouse wheel.
func (v *viewer) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case renderStartMsg:
		if msg.req == v.req {
			return msg.run
		}
	case renderedMsg:
		if msg.req != v.req {
			return nil
		}
		v.req = 0
		if len(v.cache) >= viewerCacheSize {
			v.cache = map[renderKey]string{}
		}
		v.cache[msg.key] = msg.out
		return v.rerender()
	case themeMsg:
		v.cache = map[renderKey]string{}
		return v.rerender()
	case tea.KeyPressMsg, tea.MouseWheelMsg:
		v.pg.update(msg, v.c.keys)
	}
	return nil
}

// View draws the visible lines.
func (v *viewer) View() string { return v.pg.view(v.c.styles) }

// ShortHelp implements help.KeyMap.
func (v *viewer) ShortHelp() []key.Binding {
	n := v.c.keys.Nav
	return []key.Binding{n.Up, n.Down, n.Top, n.Bottom}
}

// FullHelp implements help.KeyMap.
func (v *viewer) FullHelp() [][]key.Binding {
	n := v.c.keys.Nav
	return [][]key.Binding{{n.Up, n.Down, n.PageUp, n.PageDown, n.HalfUp, n.HalfDown, n.Top, n.Bottom}}
}

var _ help.KeyMap = (*viewer)(nil)

func modeName(m int) string {
	switch m {
	case modeJSON:
		return "raw JSON"
	case modeText:
		return "plain text"
	}
	return "rendered"
}

// renderKey identifies one rendering of a screen's content; a screen caches
// its renders by key, so scrolling never re-renders and resizing back to a
// width seen before is free.
type renderKey struct {
	mode  int
	width int
	style string
}

// Render modes of the page view, cycled with `m`.
const (
	modeRendered = iota
	modeJSON
	modeText
	modeCount
)

// resizeSettle is how long a resize must pause before the content is
// rendered for the new width.
const resizeSettle = 80 * time.Millisecond
