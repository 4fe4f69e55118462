package pager

import (
	"fmt"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/tui/components/render"
)

// BenchmarkPagerSearch1000 searches a rendered 1,000-row table.
func BenchmarkPagerSearch1000(b *testing.B) {
	var md strings.Builder
	md.WriteString("# Ledger\n\n| id | name | amount | note |\n|---|---|---|---|\n")
	for i := range 1000 {
		fmt.Fprintf(&md, "| %d | item %d | %d.%02d | a note about row %d |\n", i, i, i*37, i%100, i)
	}
	out := render.Markdown(md.String(), 100, "dark")
	b.ReportAllocs()
	for b.Loop() {
		pg := New()
		pg.SetSize(100, 27)
		pg.SetContent(out)
		if pg.Search("row 99") == 0 {
			b.Fatal("no match")
		}
	}
}
