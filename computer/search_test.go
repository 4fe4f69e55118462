package computer

import (
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// TestSearchFinderWithoutASearchableServer: a Computer whose document
// servers do not offer dpe_search says so with 4015 instead of an empty
// result that would read as "nothing found".
func TestSearchFinderWithoutASearchableServer(t *testing.T) {
	f := newFleet(t, 2, 3, nil)
	defer f.stop()
	_, err := call[protocol.SearchFinderRet](t, f.c.handleSearchFinder, `{"agent":"a","req_id":"r","computer":"pc","query":"doc"}`)
	if code := protocol.CodeOf(err); code != protocol.CodeMCPCapabilityNotSupported {
		t.Fatalf("search on servers without %s: %v, want 4015", searchTool, err)
	}
	_, err = call[protocol.SearchFinderRet](t, f.c.handleSearchFinder, `{"agent":"a","req_id":"r","computer":"pc","query":""}`)
	if code := protocol.CodeOf(err); code != protocol.CodeBadRequest {
		t.Fatalf("empty query: %v, want 400", err)
	}
}
