package pages

import (
	"fmt"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/components/viewer"
	"github.com/smcp-browse/smcp-browse/tui/styles"
)

// tablePage returns a page holding one table of rows rows.
func tablePage(rows int) *protocol.DPEPage {
	rs := make([]any, rows)
	for i := range rs {
		rs[i] = []any{fmt.Sprintf("%d", i), fmt.Sprintf("item %d", i), fmt.Sprintf("%d.%02d", i*37, i%100), "a note about row " + fmt.Sprint(i)}
	}
	return &protocol.DPEPage{
		Title: "Ledger", DocRef: "ledger",
		Elements: []protocol.DPEElementDetail{
			{ElementID: "h-l", Category: "heading", Content: map[string]any{"level": 1, "text": "Ledger"}},
			{ElementID: "tbl-l", Category: "table", Content: map[string]any{"headers": []any{"id", "name", "amount", "note"}, "rows": rs}},
		},
		ElementCount: 2,
	}
}

// BenchmarkRenderTable1000 renders a page holding a 1,000-row table from
// scratch (what happens once per page, width and mode).
func BenchmarkRenderTable1000(b *testing.B) {
	p := common.SanitizePage(tablePage(1000))
	for _, mode := range []int{viewer.ModeRendered, viewer.ModeJSON, viewer.ModeText} {
		b.Run(viewer.ModeName(mode), func(b *testing.B) {
			k := viewer.RenderKey{Mode: mode, Width: 100, Style: "dark/monokai"}
			b.ReportAllocs()
			for b.Loop() {
				_ = renderPage(p, k, styles.Styles{})
			}
		})
	}
}
