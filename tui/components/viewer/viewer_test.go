package viewer

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/styles"
)

// testViewer returns a viewer whose renders say their width and style,
// counted per key, and a function that runs a command's messages back into
// the viewer (as tea.Program would).
func testViewer(t *testing.T) (*Model, *common.Common, map[RenderKey]int, func(tea.Cmd)) {
	t.Helper()
	c := common.New(nil, common.Options{})
	c.Tick = func(_ time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		return func() tea.Msg { return fn(time.Now()) }
	}
	v := New(c)
	renders := map[RenderKey]int{}
	run := func(cmd tea.Cmd) {
		for cmd != nil {
			msg := cmd()
			if msg == nil {
				return
			}
			cmd = v.Update(msg)
		}
	}
	run(v.SetSize(100, 10))
	run(v.SetContent(func(k RenderKey, _ styles.Styles) Rendered {
		renders[k]++ // the render runs in the command: called from run, on this goroutine
		return Plain(fmt.Sprintf("width %d style %s\nsecond line", k.Width, k.Style))
	}))
	return v, c, renders, run
}

func widths(r map[RenderKey]int) map[int]int {
	out := map[int]int{}
	for k, n := range r {
		out[k.Width] += n
	}
	return out
}

func TestResizeRendersOnceAndResizingBackIsFree(t *testing.T) {
	v, _, renders, run := testViewer(t)
	if !strings.Contains(v.View(), "width 100") {
		t.Fatalf("first render not shown:\n%s", v.View())
	}
	run(v.SetSize(50, 10))
	if !strings.Contains(v.View(), "width 50") {
		t.Fatalf("the render for the new width is not shown:\n%s", v.View())
	}
	if cmd := v.SetSize(100, 10); cmd != nil {
		t.Fatal("resizing back to a width seen before started a render")
	}
	if !strings.Contains(v.View(), "width 100") {
		t.Fatalf("resizing back did not show the cached render:\n%s", v.View())
	}
	if got := widths(renders); got[100] != 1 || got[50] != 1 {
		t.Fatalf("renders per width %v, want one each", got)
	}
}

func TestResizeBurstKeepsTheOldRenderAndRendersOnce(t *testing.T) {
	v, c, renders, run := testViewer(t)
	var ticks []func(time.Time) tea.Msg
	c.Tick = func(_ time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		ticks = append(ticks, fn)
		return nil
	}
	for w := 61; w <= 70; w++ {
		run(v.SetSize(w, 10))
	}
	if len(ticks) != 10 {
		t.Fatalf("want one settle timer per resize, got %d", len(ticks))
	}
	if !strings.Contains(v.View(), "width 100") || !v.Rendering() {
		t.Fatalf("the old render should stay while the size settles:\n%s", v.View())
	}
	for _, tick := range ticks[:9] {
		if cmd := v.Update(tick(time.Now())); cmd != nil {
			t.Fatal("a superseded resize started a render")
		}
	}
	run(v.Update(ticks[9](time.Now())))
	if !strings.Contains(v.View(), "width 70") {
		t.Fatalf("the last size was not rendered:\n%s", v.View())
	}
	if got := widths(renders); len(got) != 2 || got[100] != 1 || got[70] != 1 {
		t.Fatalf("renders per width %v, want 100 and 70 once each", got)
	}
}

func TestThemeChangeRendersWithTheNewStyles(t *testing.T) {
	v, c, _, run := testViewer(t)
	if !strings.Contains(v.View(), "style dark/monokai") {
		t.Fatalf("default style:\n%s", v.View())
	}
	c.Styles = styles.New(false, false)
	run(v.Update(common.ThemeMsg{}))
	if !strings.Contains(v.View(), "style light/github") {
		t.Fatalf("a light theme did not re-render in the light style:\n%s", v.View())
	}
}

func TestKeepScrollSurvivesAReload(t *testing.T) {
	v, _, _, run := testViewer(t)
	run(v.SetContent(func(RenderKey, styles.Styles) Rendered {
		var b strings.Builder
		for i := range 100 {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return Plain(b.String())
	}))
	v.Pager().SetY(40)
	v.KeepScroll()
	run(v.SetContent(func(RenderKey, styles.Styles) Rendered {
		var b strings.Builder
		for i := range 100 {
			fmt.Fprintf(&b, "line %d (reloaded)\n", i)
		}
		return Plain(b.String())
	}))
	if first := strings.SplitN(v.View(), "\n", 2)[0]; first != "line 40 (reloaded)" {
		t.Fatalf("the reload moved the view to %q", first)
	}
}

// An anchor is the line of the render on screen: it moves when the width
// changes the layout.
func TestAnchorsFollowTheRenderOnScreen(t *testing.T) {
	v, _, _, run := testViewer(t)
	run(v.SetContent(func(k RenderKey, _ styles.Styles) Rendered {
		return Rendered{Text: "a\nb\nc\nd", Anchors: map[string]int{"h-1": k.Width / 25}}
	}))
	if l, ok := v.Anchor("h-1"); !ok || l != 4 {
		t.Fatalf("anchor at 100 columns: %d %v", l, ok)
	}
	run(v.SetSize(50, 10))
	if l, ok := v.Anchor("h-1"); !ok || l != 2 {
		t.Fatalf("anchor at 50 columns: %d %v", l, ok)
	}
	if _, ok := v.Anchor("h-2"); ok {
		t.Fatal("an element the renderer did not place has an anchor")
	}
	v.Reset()
	if _, ok := v.Anchor("h-1"); ok {
		t.Fatal("an anchor outlived its content")
	}
}
