package docserver

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// fullSearchArgs sets every argument of dpe_search.
var fullSearchArgs = protocol.DPESearchArgs{SearchQuery: protocol.SearchQuery{
	Query: "budget report", Literal: true, CaseSensitive: true, FileType: "pdf", Cursor: "c",
	MaxMatches: 7, MaxDocuments: 9,
}, BudgetMs: 1500}

// The arguments the Computer sends (protocol.DPESearchArgs.Arguments),
// through JSON as on the wire, are read back by the tool as they were
// sent: a field added on one end and not the other fails here.
func TestSearchArgsRoundTrip(t *testing.T) {
	for _, a := range []protocol.DPESearchArgs{fullSearchArgs, {SearchQuery: protocol.SearchQuery{Query: "q", MaxMatches: 50, MaxDocuments: 200}, BudgetMs: 1}} {
		b, err := json.Marshal(a.Arguments())
		if err != nil {
			t.Fatal(err)
		}
		var wire map[string]any
		if err := json.Unmarshal(b, &wire); err != nil {
			t.Fatal(err)
		}
		var req mcp.CallToolRequest
		req.Params.Name, req.Params.Arguments = SearchTool, wire
		got, err := searchArgs(req)
		if err != nil {
			t.Fatal(err)
		}
		if got != a {
			t.Errorf("sent %+v, read %+v", a, got)
		}
	}
	if _, err := searchArgs(mcp.CallToolRequest{}); err == nil {
		t.Error("no query: no error")
	}
}

// The tool's input schema declares exactly the arguments the Computer
// can send.
func TestSearchToolSchemaMatchesArgs(t *testing.T) {
	m := server.NewMCPServer("t", "0", server.WithToolCapabilities(false))
	(&Server{}).addSearchTool(m)
	tool := m.GetTool(protocol.DPESearchTool)
	if tool == nil {
		t.Fatalf("no tool %s", protocol.DPESearchTool)
	}
	declared := slices.Sorted(maps.Keys(tool.Tool.InputSchema.Properties))
	sent := slices.Sorted(maps.Keys(fullSearchArgs.Arguments()))
	if !slices.Equal(declared, sent) {
		t.Errorf("schema %v, arguments %v", declared, sent)
	}
	if !slices.Equal(tool.Tool.InputSchema.Required, []string{protocol.DPESearchArgQuery}) {
		t.Errorf("required %v", tool.Tool.InputSchema.Required)
	}
}

// The tool's result is the JSON of protocol.DPESearchResult, which the
// Computer decodes.
func TestSearchResultRoundTrip(t *testing.T) {
	want := SearchResult{
		Matches:    []SearchMatch{{URI: "dpe://h/d/pages/0", DocRef: "d", Title: "T", PageIndex: 0, Line: "l", Start: 0, End: 1, Highlights: [][2]int{{0, 1}}, Score: 1.5}},
		NextCursor: "n", Scanned: 3, Total: 4, Unreadable: 1, Indexed: 2,
		Index: IndexStatus{State: IndexBuilding, Indexed: 2, Total: 4, DiskBytes: 10, MemoryBytes: 20, Where: "disk", RemainingMs: 30},
	}
	res, err := toolResult(want, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got protocol.DPESearchResult
	if err := json.Unmarshal([]byte(res.Content[0].(mcp.TextContent).Text), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}
