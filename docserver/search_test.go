package docserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// callSearch calls dpe_search through MCP as a Computer does.
func callSearch(t testing.TB, c *client.Client, args map[string]any) (SearchResult, *mcp.CallToolResult) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = SearchTool
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("tools/call %s: %v", SearchTool, err)
	}
	var out SearchResult
	if !res.IsError {
		text := res.Content[0].(mcp.TextContent).Text
		if err := json.Unmarshal([]byte(text), &out); err != nil {
			t.Fatalf("result is not JSON: %v\n%s", err, text)
		}
	}
	return out, res
}

// TestSearchFindsTheExtractedText: the literal search sees what the
// reader sees, including the text of PDFs and office files whose bytes
// fs_grep cannot read, and points at the page and element.
func TestSearchFindsTheExtractedText(t *testing.T) {
	_, c, _ := startInProcess(t, copyCorpus(t), Options{})
	res, _ := callSearch(t, c, map[string]any{"query": "written APPROVAL", "literal": true, "budgetMs": 10000})
	if res.NextCursor != "" || res.Scanned != res.Total || res.Total == 0 {
		t.Fatalf("one step over a small folder should finish: %+v", res)
	}
	if len(res.Matches) != 1 {
		t.Fatalf("matches %+v, want the handbook's one line", res.Matches)
	}
	m := res.Matches[0]
	if m.Path != "reports/handbook.pdf" || m.PageIndex != 1 || m.Title != "Employee Handbook" ||
		m.URI != "dpe://"+testHost+"/"+m.DocRef+"/pages/1" || m.ElementID == "" {
		t.Errorf("match %+v", m)
	}
	if got := m.Line[m.Start:m.End]; got != "written approval" {
		t.Errorf("offsets mark %q in %q", got, m.Line)
	}

	// A table cell of a DOCX, case-insensitive by default.
	res, _ = callSearch(t, c, map[string]any{"query": "PAYROLL", "literal": true})
	var docx []SearchMatch
	for _, m := range res.Matches {
		if m.Path == "guides/onboarding.docx" {
			docx = append(docx, m)
		}
	}
	if len(docx) == 0 || docx[0].PageIndex != 1 {
		t.Errorf("the DOCX table cell was not found: %+v", res.Matches)
	}
	res, _ = callSearch(t, c, map[string]any{"query": "PAYROLL", "caseSensitive": true})
	if len(res.Matches) != 0 {
		t.Errorf("case-sensitive search matched %+v", res.Matches)
	}
	res, _ = callSearch(t, c, map[string]any{"query": "payroll", "fileType": "pdf", "literal": true})
	if len(res.Matches) != 0 || res.Total != 1 {
		t.Errorf("fileType pdf: total %d, matches %+v", res.Total, res.Matches)
	}
}

// TestSearchStepsWithACursor: a literal search made of small steps finds
// the same matches as one big step, reports its progress, and ends.
func TestSearchStepsWithACursor(t *testing.T) {
	_, c, _ := startInProcess(t, copyCorpus(t), Options{})
	// A budget that the engine's first start (seconds under -race on a
	// loaded machine) cannot use up: this test is about cursors.
	whole, _ := callSearch(t, c, map[string]any{"query": "the", "maxMatches": 500, "literal": true, "budgetMs": 10000})
	if whole.NextCursor != "" {
		t.Fatalf("the whole search did not finish in one step: %+v", whole)
	}
	var stepped []SearchMatch
	cursor, steps, last := "", 0, 0
	for {
		res, _ := callSearch(t, c, map[string]any{"query": "the", "maxDocuments": 2, "cursor": cursor, "maxMatches": 500, "literal": true})
		steps++
		if res.Scanned <= last && res.NextCursor != "" {
			t.Fatalf("step %d made no progress: %+v", steps, res)
		}
		if res.Total != whole.Total || res.Scanned-last > 2 {
			t.Fatalf("step %d: scanned %d (was %d) of %d", steps, res.Scanned, last, res.Total)
		}
		last = res.Scanned
		stepped = append(stepped, res.Matches...)
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	if steps < whole.Total/2 {
		t.Errorf("%d steps for %d documents, two at a time", steps, whole.Total)
	}
	key := func(m SearchMatch) string { return m.URI + "|" + m.ElementID + "|" + m.Line }
	a, b := make([]string, len(whole.Matches)), make([]string, len(stepped))
	for i, m := range whole.Matches {
		a[i] = key(m)
	}
	for i, m := range stepped {
		b[i] = key(m)
	}
	if !slices.Equal(a, b) {
		t.Errorf("stepped search found %d matches, one step %d", len(b), len(a))
	}
}

// TestSearchBadInputAndUnreadableFiles: a bad query or cursor is a tool
// error; a document that cannot be parsed is counted, not fatal.
func TestSearchBadInputAndUnreadableFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.md"), "# A\n\nneedle here\n")
	if err := os.WriteFile(filepath.Join(dir, "broken.docx"), []byte("PK\x03\x04 not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "z.txt"), "another needle\n")
	_, c, _ := startInProcess(t, dir, Options{})
	res, _ := callSearch(t, c, map[string]any{"query": "needle"})
	if len(res.Matches) != 2 || res.Unreadable != 1 || res.Scanned != 3 {
		t.Errorf("matches %+v unreadable %d scanned %d", res.Matches, res.Unreadable, res.Scanned)
	}
	for _, args := range []map[string]any{
		{"query": "  "},
		{"query": strings.Repeat("x", 300)},
		{"query": "x", "cursor": "%%%"},
	} {
		if _, r := callSearch(t, c, args); !r.IsError {
			t.Errorf("%v: not a tool error", args)
		}
	}
}
