package main

import (
	"context"
	"net"
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

// facadeRig is a folder of two documents, the environment of the
// processes, and a façade (`smcp-browse mcp`) driven by mcp-go's client.
type facadeRig struct {
	t    *testing.T
	bin  string
	dir  string
	env  []string
	c    *client.Client
	ctx  context.Context
	last string
}

func newFacadeRig(t *testing.T) *facadeRig {
	if testing.Short() {
		t.Skip("runs a Server, a Computer and the façade")
	}
	r := &facadeRig{t: t, bin: testutil.Binary(t), dir: t.TempDir()}
	docs := filepath.Join(r.dir, "docs")
	os.MkdirAll(docs, 0o755)
	for _, name := range []string{"a.md", "b.md"} {
		os.WriteFile(filepath.Join(docs, name), []byte("# "+name+"\n\nsome text\n"), 0o644)
	}
	os.WriteFile(filepath.Join(r.dir, "computer.json"), []byte(`{"mcpServers": {"files": {"command": "`+r.bin+`", "args": ["serve-docs", "`+docs+`", "--host", "team.laptop", "--log-level", "warn"]}}}`), 0o644)
	r.env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(r.dir, "state"), "XDG_CACHE_HOME="+filepath.Join(r.dir, "cache"), "SMCP_TOKEN=")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	r.ctx = ctx
	return r
}

// startComputer runs the laptop's Computer against the Server at url.
func (r *facadeRig) startComputer(url string) {
	comp := exec.Command(r.bin, "computer", "--server", url, "--office", "team", "--name", "laptop",
		"--config", filepath.Join(r.dir, "computer.json"), "--log-file", filepath.Join(r.dir, "computer.log"))
	comp.Env = r.env
	if err := comp.Start(); err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { _ = comp.Process.Kill(); _ = comp.Wait() })
}

// startFacade runs the façade on the office of the Server at url.
func (r *facadeRig) startFacade(url string) {
	c, err := client.NewStdioMCPClient(r.bin, r.env, "mcp", "--server", url, "--office", "team", "--timeout", "5s", "--log-file", filepath.Join(r.dir, "mcp.log"))
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { c.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-06-18"
	init.Params.ClientInfo = mcp.Implementation{Name: "facade-process-test", Version: "1"}
	if _, err := c.Initialize(r.ctx, init); err != nil {
		r.t.Fatal(err)
	}
	r.c = c
}

// list calls finder_list and returns its text.
func (r *facadeRig) list() string {
	req := mcp.CallToolRequest{}
	req.Params.Name = "finder_list"
	req.Params.Arguments = map[string]any{}
	ctx, cancel := context.WithTimeout(r.ctx, 20*time.Second)
	defer cancel()
	res, err := r.c.CallTool(ctx, req)
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

// waitList waits until finder_list answers with want in its text.
func (r *facadeRig) waitList(what, want string, d time.Duration) {
	r.t.Helper()
	if !testutil.WaitUntil(d, func() bool { r.last = r.list(); return strings.Contains(r.last, want) }) {
		r.t.Fatalf("%s: finder_list never answered %q within %v; last answer: %s", what, want, d, r.last)
	}
}

// TestMCPFacadeRejoinsItsOffice: when the office's Server goes away, the
// façade's tools say so (503: it reconnects by itself) instead of
// hanging; when the Server is back on its address, the façade rejoins and
// answers again, without the host doing anything.
func TestMCPFacadeRejoinsItsOffice(t *testing.T) {
	r := newFacadeRig(t)
	srv := testutil.StartServer(t, "--log-level", "error")
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	r.startComputer(srv.URL)
	r.startFacade(srv.URL)
	r.waitList("the laptop's two documents", `"total":2`, 60*time.Second)

	_ = srv.Cmd.Process.Kill()
	<-srv.Exited
	r.waitList("the Server gone", "error 503", 30*time.Second)
	if !strings.Contains(r.last, "reconnects and rejoins") {
		t.Errorf("while the Server is away: %s, want it to say it rejoins by itself", r.last)
	}

	testutil.StartServer(t, "--log-level", "error", "--listen", u.Host)
	r.waitList("the Server back on "+u.Host, `"total":2`, 90*time.Second)
}

// TestMCPFacadeWaitsForItsServer: a host may start the façade before the
// office's Server is up. The façade serves at once, its tools saying why
// there is nothing yet (503, the Server unreachable), and it joins when
// the Server comes.
func TestMCPFacadeWaitsForItsServer(t *testing.T) {
	r := newFacadeRig(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	r.startFacade("http://" + addr)
	// Before its first try has failed, it says it is still connecting;
	// after, it names the Server it cannot reach.
	r.waitList("no Server yet", "error 503: cannot reach the Server at http://"+addr, 30*time.Second)

	testutil.StartServer(t, "--log-level", "error", "--listen", addr)
	r.startComputer("http://" + addr)
	r.waitList("the Server started on "+addr, `"total":2`, 120*time.Second)
}
