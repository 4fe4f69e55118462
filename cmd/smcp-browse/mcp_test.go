package main

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// TestMCPFacadeRejoinsItsOffice: when the office's Server goes away, the
// façade's tools say so (503: it reconnects by itself) instead of
// hanging; when the Server is back on its address, the façade rejoins and
// answers again, without the host doing anything.
func TestMCPFacadeRejoinsItsOffice(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a Server, a Computer and the façade")
	}
	bin := testutil.Binary(t)
	srv := testutil.StartServer(t, "--log-level", "error")
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	os.MkdirAll(docs, 0o755)
	for _, name := range []string{"a.md", "b.md"} {
		os.WriteFile(filepath.Join(docs, name), []byte("# "+name+"\n\nsome text\n"), 0o644)
	}
	cfg := filepath.Join(dir, "computer.json")
	os.WriteFile(cfg, []byte(`{"mcpServers": {"files": {"command": "`+bin+`", "args": ["serve-docs", "`+docs+`", "--host", "team.laptop", "--log-level", "warn"]}}}`), 0o644)
	env := append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "SMCP_TOKEN=")
	comp := exec.Command(bin, "computer", "--server", srv.URL, "--office", "team", "--name", "laptop", "--config", cfg, "--log-file", filepath.Join(dir, "computer.log"))
	comp.Env = env
	if err := comp.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = comp.Process.Kill(); _ = comp.Wait() })

	c, err := client.NewStdioMCPClient(bin, env, "mcp", "--server", srv.URL, "--office", "team", "--timeout", "5s", "--log-file", filepath.Join(dir, "mcp.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-06-18"
	init.Params.ClientInfo = mcp.Implementation{Name: "rejoin-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	list := func() string {
		req := mcp.CallToolRequest{}
		req.Params.Name = "finder_list"
		req.Params.Arguments = map[string]any{}
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		res, err := c.CallTool(cctx, req)
		if err != nil {
			return "call failed: " + err.Error()
		}
		var b strings.Builder
		for _, ct := range res.Content {
			if tc, ok := ct.(mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	var last string
	waitList := func(what, want string, d time.Duration) {
		t.Helper()
		if !testutil.WaitUntil(d, func() bool { last = list(); return strings.Contains(last, want) }) {
			t.Fatalf("%s: finder_list never answered %q within %v; last answer: %s", what, want, d, last)
		}
	}
	waitList("the laptop's two documents", `"total":2`, 60*time.Second)

	_ = srv.Cmd.Process.Kill()
	<-srv.Exited
	waitList("the Server gone", "error 503", 30*time.Second)
	if !strings.Contains(last, "reconnects and rejoins") {
		t.Errorf("while the Server is away: %s, want it to say it rejoins by itself", last)
	}

	testutil.StartServer(t, "--log-level", "error", "--listen", u.Host)
	waitList("the Server back on "+u.Host, `"total":2`, 90*time.Second)
}
