package pages

import (
	"strings"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/components/pager"
	"github.com/smcp-browse/smcp-browse/tui/styles"
)

// sections is a pager over sections under title bars — a Desktop's
// windows, a tool result's items — one of them selected (highlighted
// when there are several); jump moves the selection and scrolls to it.
type sections struct {
	pg     pager.Model
	starts []int // first line of each section in the pager
	sel    int
}

// section is one section: its title (one line) and its body's lines.
type section struct {
	title string
	body  []string
}

// show lays secs out for width w, keeping the scroll offset.
func (v *sections) show(st styles.Styles, w int, secs []section) {
	var lines []string
	v.starts = v.starts[:0]
	for i, sec := range secs {
		v.starts = append(v.starts, len(lines))
		bar := st.Window
		if i == v.sel && len(secs) > 1 {
			bar = st.Selected
		}
		lines = append(lines, bar.Render(common.Cell(" ▣ "+sec.title, w)))
		lines = append(lines, sec.body...)
		lines = append(lines, "")
	}
	y := v.pg.YOffset()
	v.pg.SetContent(strings.Join(lines, "\n"))
	v.pg.SetY(y)
}

// jump selects the next (1) or previous (-1) section: relayout draws the
// new selection, then the pager scrolls to it.
func (v *sections) jump(d int, relayout func()) {
	if len(v.starts) == 0 {
		return
	}
	v.sel = min(max(v.sel+d, 0), len(v.starts)-1)
	relayout()
	v.pg.SetY(v.starts[v.sel])
}

// computerHead is the head of a screen showing a computer's data: its
// title and muted details ("Skills · laptop · 2 skills · loading…"), and
// under it the line saying that the computer left the office, or else
// why the last read failed.
func computerHead(st styles.Styles, title string, details []string, loading, gone bool, err string) []string {
	head := st.Title.Render(title)
	if loading {
		details = append(details, "loading…")
	}
	if len(details) > 0 {
		head += st.Muted.Render(" · " + strings.Join(details, " · "))
	}
	lines := []string{head}
	if gone {
		lines = append(lines, st.Error.Render("✗ computer left the office"))
	} else if err != "" {
		lines = append(lines, st.Error.Render("✗ "+err))
	}
	return lines
}
