package docserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// conformanceDir is the corpus plus 250 small files, enough for several
// resources/list pages of 100.
func conformanceDir(t *testing.T) string {
	dir := copyCorpus(t)
	for i := 0; i < 250; i++ {
		writeFile(t, filepath.Join(dir, "bulk", fmt.Sprintf("note-%03d.md", i)), fmt.Sprintf("# Note %d\n\nBulk note number %d.\n", i, i))
	}
	return dir
}

// startBinary runs `smcp-browse serve-docs DIR` and connects mcp-go's stdio
// client with the given protocol version ("" negotiates the newest).
func startBinary(t *testing.T, dir, version string, extra ...string) (*client.Client, *notes) {
	t.Helper()
	bin := testutil.Binary(t)
	logFile := filepath.Join(t.TempDir(), "serve-docs.log")
	args := append([]string{"serve-docs", dir, "--host", testHost, "--list-page-size", "100",
		"--debounce", "60ms", "--log-file", logFile, "--log-level", "debug"}, extra...)
	tr := transport.NewStdio(bin, nil, args...)
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	showLogOnFailure(t, logFile)
	return connectVersion(t, tr, version)
}

// TestConformanceBinary drives the real binary over stdio with mcp-go's
// client: capabilities, list with cursor paging, every level with every
// query parameter, every error code with its data, completion, tools, and
// subscribe + create/modify/delete → notifications.
func TestConformanceBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := conformanceDir(t)
	start := time.Now()
	c, n := startBinary(t, dir, "2025-06-18")
	t.Logf("binary start + initialize: %s", time.Since(start))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	caps := c.GetServerCapabilities()
	if caps.Resources == nil || !caps.Resources.Subscribe || !caps.Resources.ListChanged || caps.Tools == nil || caps.Completions == nil {
		t.Fatalf("capabilities = %+v", caps)
	}

	// resources/list, paged with cursors.
	start = time.Now()
	all, pages := listAll(t, c)
	t.Logf("cold resources/list of 262 documents over stdio: %s", time.Since(start))
	if len(all) != 262 || pages != 3 {
		t.Fatalf("listed %d resources in %d pages, want 262 in 3", len(all), pages)
	}
	refs := map[string]string{}
	for _, r := range all {
		refs[r.Meta.AdditionalFields["path"].(string)] = r.Meta.AdditionalFields["doc_ref"].(string)
	}
	sales := "dpe://" + testHost + "/" + refs["data/sales.csv"]
	report := "dpe://" + testHost + "/" + refs["reports/q3-report.md"]

	// Level 0.
	var cat protocol.DPECatalog
	readJSON(t, c, "dpe://"+testHost+"?offset=5&limit=3", &cat)
	if cat.TotalCount != 262 || len(cat.Documents) != 3 {
		t.Errorf("catalog window: %d of %d", len(cat.Documents), cat.TotalCount)
	}
	if md, mime := readText(t, c, "dpe://"+testHost+"?format=markdown&limit=2"); mime != "text/markdown" || !strings.HasPrefix(md, "# Documents (262)") {
		t.Errorf("catalog markdown: %s %q", mime, md)
	}
	// Level 1.
	var d protocol.DPEDocument
	readJSON(t, c, sales, &d)
	if d.PageCount != 3 || d.Pages != nil || d.FileType != "csv" || !strings.HasSuffix(d.FileURI, "/data/sales.csv") {
		t.Errorf("Level 1 metadata = %+v", d)
	}
	readJSON(t, c, sales+"?depth=pages&offset=1&limit=1", &d)
	if len(d.Pages) != 1 || d.Pages[0].Title != "Rows 201–400" || *d.PageTotal != 3 || *d.PageOffset != 1 || *d.PageLimit != 1 {
		t.Errorf("Level 1 pages = %+v", d)
	}
	if txt, mime := readText(t, c, sales+"?format=text&depth=pages"); mime != "text/plain" || !strings.Contains(txt, "Rows 401–450") {
		t.Errorf("Level 1 text: %s %q", mime, txt)
	}
	// Level 2: a 200-row table page, with and without category filter.
	var p protocol.DPEPage
	readJSON(t, c, sales+"/pages/0", &p)
	if len(p.Elements) != 1 || len(p.Elements[0].Content["rows"].([]any)) != 200 {
		t.Fatalf("Level 2 table page: %+v", p.ElementCount)
	}
	readJSON(t, c, report+"/pages/1?categories=link", &p)
	if p.ElementCount != 1 || p.Elements[0].Content["url"] != "https://example.com/finance" {
		t.Errorf("categories=link: %+v", p.Elements)
	}
	if md, _ := readText(t, c, report+"/pages/3?format=markdown"); !strings.Contains(md, "```python") || !strings.Contains(md, "- [x] Sales") {
		t.Errorf("Level 2 markdown: %q", md)
	}
	// Level 3: the full slice, with totals and the A1 range.
	var el protocol.DPEElementDetail
	readJSON(t, c, sales+"/elements/tbl-2-1", &el)
	if el.Content["total_rows"] != 50.0 || el.Content["total_columns"] != 5.0 || el.Metadata["source_range"] != "A402:E451" || *el.PageIndex != 2 {
		t.Errorf("Level 3 = %+v", el)
	}
	if txt, mime := readText(t, c, sales+"/elements/tbl-2-1?format=text"); mime != "text/plain" || !strings.HasPrefix(txt, "order_id\tregion") {
		t.Errorf("Level 3 text: %q", txt[:min(len(txt), 80)])
	}

	// Error codes with their data, as the raw JSON-RPC error.
	tr := c.GetTransport()
	for i, tt := range []struct {
		uri  string
		code int
		key  string
		val  any
	}{
		{"dpe://" + testHost + "/ghost", 4201, "doc_ref", "ghost"},
		{sales + "/pages/3", 4202, "page_count", 3.0},
		{sales + "/elements/tbl-7-1", 4203, "element_id", "tbl-7-1"},
		{sales + "/chapters/1", 4204, "rule", 3.0},
		{sales + "?limit=0", 4204, "rule", 7.0},
	} {
		e := rpcError(t, tr, 500+i, tt.uri)
		data, _ := e.Data.(map[string]any)
		if e.Code != tt.code || data[tt.key] != tt.val {
			t.Errorf("%s: code %d data %v, want %d with %s=%v", tt.uri, e.Code, e.Data, tt.code, tt.key, tt.val)
		}
	}

	// Completion.
	req := mcp.CompleteRequest{}
	req.Params.Ref = mcp.ResourceReference{Type: "ref/resource", URI: "dpe://" + testHost + "/{doc_ref}/elements/{element_id}"}
	req.Params.Argument = mcp.CompleteArgument{Name: "element_id", Value: "tbl"}
	req.Params.Context = mcp.CompleteContext{Arguments: map[string]string{"doc_ref": refs["data/sales.csv"]}}
	comp, err := c.Complete(ctx, req)
	if err != nil || strings.Join(comp.Completion.Values, ",") != "tbl-0-1,tbl-1-1,tbl-2-1" {
		t.Errorf("completion = %+v, %v", comp, err)
	}

	// A tool.
	call := mcp.CallToolRequest{}
	call.Params.Name = "fs_tree"
	call.Params.Arguments = map[string]any{"depth": 1, "maxEntries": 50}
	res, err := c.CallTool(ctx, call)
	if err != nil || res.IsError {
		t.Fatalf("fs_tree: %v %v", err, res)
	}
	if b, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(b), `"bulk":{"collapsed":true,"count":250`) {
		t.Errorf("fs_tree = %s", b)
	}

	// Subscribe, then change files.
	sub := mcp.SubscribeRequest{}
	sub.Params.URI = report
	//lint:ignore SA1019 resources/subscribe is what clients of protocol 2025-11-25 and older (the TypeScript SDK) use
	if err := c.Subscribe(ctx, sub); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	writeFile(t, filepath.Join(dir, "fresh.md"), "# Fresh\n")
	n.wait(t, mcp.MethodNotificationResourcesListChanged, "", 5*time.Second)
	t.Logf("create → list_changed: %s (debounce 60ms)", time.Since(start))
	start = time.Now()
	appendTo(t, filepath.Join(dir, "reports", "q3-report.md"), "\nAppendix added.\n")
	n.wait(t, mcp.MethodNotificationResourceUpdated, report, 5*time.Second)
	t.Logf("modify → updated: %s", time.Since(start))
	readJSON(t, c, report+"?depth=pages", &d)
	if last := d.Pages[len(d.Pages)-1]; last.ElementCount != 6 { // 5 before the appended paragraph
		t.Errorf("after the edit the last page has %d elements", last.ElementCount)
	}
	if err := os.Remove(filepath.Join(dir, "fresh.md")); err != nil {
		t.Fatal(err)
	}
	n.wait(t, mcp.MethodNotificationResourcesListChanged, "", 5*time.Second)
	// Not subscribed to sales: no updated for it, before the subscribed
	// report's that follows it. (What came before the list_changed above,
	// such as a pending entry's update announced before the subscription,
	// is forgotten: the stream keeps the order.)
	n.reset()
	appendTo(t, filepath.Join(dir, "data", "sales.csv"), "9999,North,Widget,1,1.00\n")
	appendTo(t, filepath.Join(dir, "reports", "q3-report.md"), "\nA second appendix.\n")
	n.wait(t, mcp.MethodNotificationResourceUpdated, report, 5*time.Second)
	n.none(t, mcp.MethodNotificationResourceUpdated, sales)
}

// TestConformanceBinaryModern connects with protocol 2026-07-28, where
// notifications are opt-in through subscriptions/listen.
func TestConformanceBinaryModern(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.md"), "# A\n")
	c, n := startBinary(t, dir, "")
	if v := c.ProtocolVersion(); v != mcp.ProtocolVersion20260728 {
		t.Fatalf("negotiated %s", v)
	}
	uri := "dpe://" + testHost + "/" + DocRef("a.md")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go c.Listen(ctx, mcp.SubscriptionFilter{ResourcesListChanged: true, ResourceSubscriptions: []string{uri}})
	n.wait(t, mcp.MethodNotificationSubscriptionsAcknowledged, "", 10*time.Second) // the stream is open
	writeFile(t, filepath.Join(dir, "a.md"), "# A edited\n")
	n.wait(t, mcp.MethodNotificationResourceUpdated, uri, 5*time.Second)
	writeFile(t, filepath.Join(dir, "b.md"), "# B\n")
	n.wait(t, mcp.MethodNotificationResourcesListChanged, "", 5*time.Second)
	text, _ := readText(t, c, uri)
	if !strings.Contains(text, `"title":"A edited"`) {
		t.Errorf("Level 1 after edit: %s", text)
	}
	if e := rpcError(t, c.GetTransport(), 9, uri+"/pages/5"); e.Code != 4202 {
		t.Errorf("4202 over the modern protocol: %d %s", e.Code, e.Message)
	}
}

// TestConformanceTypeScriptSDK runs the same checks with the official
// TypeScript MCP client (@modelcontextprotocol/sdk) against the binary.
func TestConformanceTypeScriptSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	modules := testutil.NodeModules(t)
	bin := testutil.Binary(t)
	dir := conformanceDir(t)
	script := filepath.Join(filepath.Dir(modules), "mcp-conformance.mjs")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script, bin, dir, testHost)
	out, err := cmd.CombinedOutput()
	t.Logf("node output:\n%s", out)
	if err != nil {
		t.Fatalf("TypeScript conformance failed: %v", err)
	}
	if !strings.Contains(string(out), " passed, 0 failed") {
		t.Fatalf("no passing summary line")
	}
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// TestServeDocsBadArguments checks the command's failures: a clear message
// on stderr, nothing on stdout (which belongs to the MCP stream), exit 1.
func TestServeDocsBadArguments(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := testutil.Binary(t)
	file := filepath.Join(t.TempDir(), "f.md")
	writeFile(t, file, "# x\n")
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"serve-docs", filepath.Join(t.TempDir(), "missing")}, "no such file or directory"},
		{[]string{"serve-docs", file}, "is not a directory"},
		{[]string{"serve-docs", t.TempDir(), "--host", "a/b"}, "cannot have"},
		{[]string{"serve-docs"}, "accepts 1 arg"},
	} {
		cmd := exec.Command(bin, tt.args...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("%v: err %v, want exit status 1", tt.args, err)
		}
		if stdout.Len() != 0 {
			t.Errorf("%v: wrote to stdout: %q", tt.args, stdout.String())
		}
		if !strings.Contains(stderr.String(), tt.msg) {
			t.Errorf("%v: stderr %q lacks %q", tt.args, stderr.String(), tt.msg)
		}
	}
}
