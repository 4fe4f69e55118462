package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// Issue 23.7: the type picker lists the commonest types first (go before
// a handful of oddities), ties by name.
func TestTypePickerListsTheCommonestFirst(t *testing.T) {
	var docs []fakeDoc
	for i, ft := range []string{"go", "go", "go", "go", "md", "md", "0cb1786dee0f090b", "authors", "txt"} {
		docs = append(docs, mkDoc(testHost, fmt.Sprintf("d%d", i), "docs", ft, fmt.Sprintf("Doc %d", i), nil, "", testNow, protocol.DPEPage{Title: "p"}))
	}
	hs, _ := withDocs(t, 100, 30, docs...)
	hs.press("t")
	var order []string
	for _, l := range strings.Split(hs.screen(), "\n") {
		for _, ft := range []string{"go ", "md ", "0cb1786dee0f090b", "authors", "txt"} {
			if strings.Contains(l, "│   "+ft) || strings.Contains(l, "│ ▸ "+ft) {
				order = append(order, strings.TrimSpace(ft))
			}
		}
	}
	if want := []string{"go", "md", "0cb1786dee0f090b", "authors", "txt"}; fmt.Sprint(order) != fmt.Sprint(want) {
		t.Fatalf("types listed as %v, want %v:\n%s", order, want, hs.screen())
	}
}
