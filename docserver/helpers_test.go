package docserver

import (
	"context"
	"encoding/json"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

const testHost = "com.example.docs"

// fixedTime is the modification time of the copied corpus (git does not
// keep mtimes, so the copy sets them).
var fixedTime = time.Date(2026, 1, 15, 8, 30, 0, 0, time.UTC)

// copyCorpus copies testdata/corpus into a temporary directory with fixed
// modification times and returns it.
func copyCorpus(t testing.TB) string {
	t.Helper()
	src := filepath.Join("..", "testdata", "corpus")
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return err
		}
		return os.Chtimes(target, fixedTime, fixedTime)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// testLogger logs to the test output.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(string(p))
	return len(p), nil
}

// notes collects notifications a client receives.
type notes struct {
	mu  sync.Mutex
	all []mcp.JSONRPCNotification
	ch  chan struct{}
}

func newNotes() *notes { return &notes{ch: make(chan struct{}, 1000)} }

func (n *notes) add(x mcp.JSONRPCNotification) {
	n.mu.Lock()
	n.all = append(n.all, x)
	n.mu.Unlock()
	select {
	case n.ch <- struct{}{}:
	default:
	}
}

// wait waits until a notification with method (and, when uri is not "",
// params.uri) arrived, and consumes it.
func (n *notes) wait(t testing.TB, method, uri string, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for {
		n.mu.Lock()
		for i, x := range n.all {
			if x.Method != method {
				continue
			}
			if uri != "" {
				if u, _ := x.Params.AdditionalFields["uri"].(string); u != uri {
					continue
				}
			}
			n.all = append(n.all[:i], n.all[i+1:]...)
			n.mu.Unlock()
			return
		}
		n.mu.Unlock()
		select {
		case <-n.ch:
		case <-deadline:
			n.mu.Lock()
			defer n.mu.Unlock()
			t.Fatalf("no %s %s within %s; got %v", method, uri, within, n.all)
		}
	}
}

// none checks that no notification with method (and uri) has arrived.
// The server notifies in the order of the changes (and within one batch,
// list_changed first, then updated in path order), so a test calls it once
// a notification has arrived that must come after the one that must not:
// nothing is left to wait for.
func (n *notes) none(t testing.TB, method, uri string) {
	t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, x := range n.all {
		if x.Method == method {
			if u, _ := x.Params.AdditionalFields["uri"].(string); uri == "" || u == uri {
				t.Fatalf("unexpected %s %s", method, u)
			}
		}
	}
}

func (n *notes) reset() {
	n.mu.Lock()
	n.all = nil
	n.mu.Unlock()
}

// startInProcess starts a server over dir and a legacy-protocol mcp-go
// client connected in process. The server's watcher runs.
func startInProcess(t testing.TB, dir string, opts Options) (*Server, *client.Client, *notes) {
	t.Helper()
	if opts.Host == "" {
		opts.Host = testHost
	}
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	s, err := New(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		s.Close()
	})
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	c, n := connect(t, s.InProcessTransport())
	return s, c, n
}

// connect starts and initializes a client over a transport with protocol
// 2025-06-18 (resources/subscribe).
func connect(t testing.TB, tr transport.Interface, opts ...client.ClientOption) (*client.Client, *notes) {
	t.Helper()
	return connectVersion(t, tr, "2025-06-18", opts...)
}

// connectVersion initializes with a protocol version ("" lets the client
// negotiate the newest, 2026-07-28).
func connectVersion(t testing.TB, tr transport.Interface, version string, opts ...client.ClientOption) (*client.Client, *notes) {
	t.Helper()
	c := client.NewClient(tr, opts...)
	n := newNotes()
	c.OnNotification(n.add)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "docserver-test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	return c, n
}

// readText reads a URI and returns its single text content and MIME type.
func readText(t testing.TB, c *client.Client, uri string) (string, string) {
	t.Helper()
	// Longer than the server's own bound on a parse, which answers a read
	// that hits it (a loaded machine may need all of it).
	bound := DefaultParseTimeout + 30*time.Second
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := c.ReadResource(ctx, req)
	if err != nil {
		t.Fatalf("read %s (waited up to %v for the answer): %v", uri, bound, err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("read %s: %d contents", uri, len(res.Contents))
	}
	tc, ok := res.Contents[0].(mcp.TextResourceContents)
	if !ok {
		t.Fatalf("read %s: %T", uri, res.Contents[0])
	}
	if tc.URI != uri {
		t.Errorf("read %s: content uri %s", uri, tc.URI)
	}
	return tc.Text, tc.MIMEType
}

// readJSON reads a URI as JSON into v.
func readJSON(t testing.TB, c *client.Client, uri string, v any) {
	t.Helper()
	text, mime := readText(t, c, uri)
	if mime != "application/json" {
		t.Fatalf("read %s: mime %s", uri, mime)
	}
	if err := json.Unmarshal([]byte(text), v); err != nil {
		t.Fatalf("read %s: %v\n%s", uri, err, text)
	}
}

// rpcError sends a raw resources/read over a transport and returns the
// JSON-RPC error of the response (failing when there is none).
func rpcError(t testing.TB, tr transport.Interface, id int, uri string) *mcp.JSONRPCErrorDetails {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := tr.SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(id)), Method: "resources/read",
		Params: map[string]any{"uri": uri},
	})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if resp.Error == nil {
		t.Fatalf("read %s: no error, result %s", uri, resp.Result)
	}
	return resp.Error
}

// listSettled lists every resource once none is pending (each listed
// entry peeked: titled, or marked unreadable with its reason).
func listSettled(t testing.TB, c *client.Client) []mcp.Resource {
	t.Helper()
	var all []mcp.Resource
	testutil.Eventually(t, 30*time.Second, "every listed entry read", func() bool {
		all, _ = listAll(t, c)
		return !slices.ContainsFunc(all, func(r mcp.Resource) bool { return r.Meta != nil && r.Meta.AdditionalFields["pending"] == true })
	})
	return all
}

// listAll pages through resources/list and returns every resource.
func listAll(t testing.TB, c *client.Client) ([]mcp.Resource, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var all []mcp.Resource
	pages := 0
	var cursor mcp.Cursor
	for {
		req := mcp.ListResourcesRequest{}
		req.Params.Cursor = cursor
		res, err := c.ListResourcesByPage(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		all = append(all, res.Resources...)
		if res.NextCursor == "" {
			return all, pages
		}
		cursor = res.NextCursor
		if pages > 10000 {
			t.Fatal("cursor never ends")
		}
	}
}

// showLogOnFailure shows a server's log file when the test fails.
func showLogOnFailure(t testing.TB, logFile string) {
	t.Cleanup(func() {
		if t.Failed() {
			if b, err := os.ReadFile(logFile); err == nil {
				t.Logf("server log:\n%s", b)
			}
		}
	})
}

func writeFile(t testing.TB, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
