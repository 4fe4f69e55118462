package tui

import (
	"testing"

	"github.com/smcp-browse/smcp-browse/tui/common"
)

// TestLiveUpdateFillsEmptyCatalog: a catalog opened while the computer had
// no documents yet (its document server still starting) fills in when
// notify:update_finder arrives.
func TestLiveUpdateFillsEmptyCatalog(t *testing.T) {
	f := newFake()
	all := f.docs
	f.docs = nil
	hs := startOn(t, f, "laptop", 100, 30)
	hs.requireContains("0 of 0")
	calls := f.countCalls("get_finder")

	f.mutate(func(docs *[]fakeDoc) { *docs = all })
	hs.send(common.UpdateFinderMsg{Computer: "laptop"})
	hs.settle()
	if f.countCalls("get_finder") == calls {
		t.Fatal("notify:update_finder on an empty catalog did not query the computer again")
	}
	hs.requireContains("1–7 of 7", "2026 年度报告")

	// And back to empty: the rows go away.
	f.mutate(func(docs *[]fakeDoc) { *docs = nil })
	hs.send(common.UpdateFinderMsg{Computer: "laptop"})
	hs.settle()
	hs.requireContains("0 of 0")
	hs.requireNotContains("2026 年度报告")
}
