package tui

import (
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// With the Path column shown (every document server now reports paths), a
// 120-column catalog still has room for a title: the server column, which
// the preview names anyway, gives way below 100 columns of list.
func TestTitlesReadableBesideThePathColumn(t *testing.T) {
	d := mkDoc(testHost, "fresh", "docs", "md", "Freshly Written Notes", nil, "", testNow, protocol.DPEPage{Title: "p"})
	d.sum.Path = "notes/e2e-fresh.md"
	o := mkDoc(testHost, "q3", "docs", "md", "Q3 Operations Review", nil, "", testNow, protocol.DPEPage{Title: "p"})
	o.sum.Path = "reports/q3-report.md"
	hs, _ := withDocs(t, 120, 30, o, d)
	hs.requireContains("Freshly Written Notes", "Q3 Operations Review", "notes/e2e-fresh.md")
}
