package tui

import (
	"testing"
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
