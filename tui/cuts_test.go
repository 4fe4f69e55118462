package tui

import (
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// A document cut short by a bound says so (issue 35.4: a CSV of 200,000
// rows showed 100,000 with no note anywhere): in the catalog's preview,
// on the document's screen, and on its last page, where the rest of the
// file would be.
func TestCutDocumentSaysSoInTheBrowser(t *testing.T) {
	const cut = "kept the first 100,000 of 200,000 rows"
	big := mkDoc(testHost, "big", "docs", "csv", "Big table", nil, "", testNow, longPage(2, 2))
	big.sum.Truncated = cut
	hs, _ := withDocs(t, 140, 30, big)
	hs.requireContains("✂ cut short: " + cut)
	hs.press("enter")
	hs.requireContains("✂ cut short: " + cut)
	hs.press("enter")
	hs.requireContains("Page 1/1", "✂ cut short: "+cut)
}

// The catalog's title says how many files its document servers left out
// and why (issue 35.4: 1,898 files of GOROOT/src were left out without a
// word); with nothing skipped it says nothing.
func TestCatalogSaysWhatItsServersSkipped(t *testing.T) {
	f := newFake()
	f.skipped = &protocol.SkippedFiles{Count: 757, Reasons: map[string]int{"binary": 756, "unreadable": 1}, Examples: []string{"a.png"}}
	hs := startOn(t, f, "laptop", 140, 30)
	hs.requireContains("1–7 of 7 · 757 files not served (binary, unreadable)")

	hs2, _ := withDocs(t, 140, 30, sampleCorpus()...)
	hs2.requireContains("1–7 of 7")
	hs2.requireNotContains("not served")
}
