package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/internal/rpcerr"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// recorder collects manager events.
type recorder struct {
	ups   chan *Conn
	downs chan string
	mu    sync.Mutex
	notes []string // "server method uri"
	noted chan struct{}
}

func newRecorder() *recorder {
	return &recorder{ups: make(chan *Conn, 8), downs: make(chan string, 8), noted: make(chan struct{}, 256)}
}

func (r *recorder) events() Events {
	return Events{
		Up:   func(c *Conn) { r.ups <- c },
		Down: func(name string, err error) { r.downs <- name },
		Notification: func(name string, n mcp.JSONRPCNotification) {
			uri, _ := n.Params.AdditionalFields["uri"].(string)
			r.mu.Lock()
			r.notes = append(r.notes, strings.TrimSpace(name+" "+n.Method+" "+uri))
			r.mu.Unlock()
			select {
			case r.noted <- struct{}{}:
			default:
			}
		},
	}
}

func (r *recorder) up(t *testing.T) *Conn {
	t.Helper()
	select {
	case c := <-r.ups:
		return c
	case <-time.After(20 * time.Second):
		t.Fatal("server did not come up")
		return nil
	}
}

func (r *recorder) waitNote(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		r.mu.Lock()
		found := slices.Contains(r.notes, want)
		notes := slices.Clone(r.notes)
		r.mu.Unlock()
		if found {
			return
		}
		select {
		case <-r.noted:
		case <-deadline:
			t.Fatalf("notification %q not received; got %q", want, notes)
		}
	}
}

func selfServer(name string) config.Server {
	s := config.NewStdio(name, os.Args[0], "-test.run=^$")
	s.Params.Env = map[string]string{serveEnv: "1"}
	return s
}

func startManager(t *testing.T, opts Options, servers ...config.Server) (*Manager, *recorder) {
	t.Helper()
	rec := newRecorder()
	opts.Events = rec.events()
	m := New(servers, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Error("manager did not stop")
		}
	})
	return m, rec
}

func TestStdioServerLifecycle(t *testing.T) {
	m, rec := startManager(t, Options{MinBackoff: 50 * time.Millisecond, RequestTimeout: 5 * time.Second}, selfServer("self"))
	c := rec.up(t)
	ctx := context.Background()
	if !c.FinderCapable() || c.Name() != "self" || c.ServerInfo().Name != "mcpclient-test" {
		t.Fatalf("conn: capable=%v name=%q info=%+v", c.FinderCapable(), c.Name(), c.ServerInfo())
	}
	t.Logf("negotiated MCP %s (modern=%v)", c.ProtocolVersion(), c.Modern())

	res, next, err := c.ListResources(ctx, "")
	if err != nil || next != "" {
		t.Fatalf("list: %v %q", err, next)
	}
	var uris []string
	for _, r := range res {
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	if want := []string{"dpe://t.host/a", "dpe://t.host/b", "test://slow", "window://t.host/main"}; !slices.Equal(uris, want) {
		t.Fatalf("resources = %v", uris)
	}
	contents, err := c.ReadResource(ctx, "dpe://t.host/a")
	if err != nil || len(contents) != 1 || !strings.Contains(contents[0].Text, `"doc_ref":"a"`) {
		t.Fatalf("read: %v %+v", err, contents)
	}
	if err := c.Subscribe(ctx, []string{"dpe://t.host/a", "dpe://t.host/b"}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}

	tools, err := c.ListTools(ctx)
	if err != nil || len(tools) != 5 {
		t.Fatalf("tools: %v %d", err, len(tools))
	}
	out, err := c.CallTool(ctx, "echo", map[string]any{"message": "hi"})
	if err != nil || out.IsError || out.Content[0].(mcp.TextContent).Text != "echo: hi" {
		t.Fatalf("echo: %v %+v", err, out)
	}

	// Notifications reach the Computer on this connection.
	if _, err := c.CallTool(ctx, "add_doc", map[string]any{"ref": "c"}); err != nil {
		t.Fatal(err)
	}
	rec.waitNote(t, "self "+mcp.MethodNotificationResourcesListChanged)
	if _, err := c.CallTool(ctx, "touch", map[string]any{"uri": "dpe://t.host/a"}); err != nil {
		t.Fatal(err)
	}
	rec.waitNote(t, "self "+mcp.MethodNotificationResourceUpdated+" dpe://t.host/a")
	if c.Modern() {
		if g := c.Granted(); g == nil || !g.ResourcesListChanged {
			t.Errorf("subscriptions/listen grant = %+v", g)
		}
	}

	// Cancelling a tool call ends it at once.
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	start := time.Now()
	_, err = c.CallTool(cctx, "block", nil)
	cancel()
	if err == nil || time.Since(start) > 3*time.Second {
		t.Fatalf("blocked call: err=%v after %v", err, time.Since(start))
	}

	// A crash: Down, then a restart brings it back with a new process.
	if _, err := c.CallTool(ctx, "crash", nil); err == nil {
		t.Error("crash call returned no error")
	}
	select {
	case name := <-rec.downs:
		if name != "self" {
			t.Fatalf("down %q", name)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no Down after the process died")
	}
	if _, err := c.ReadResource(ctx, "dpe://t.host/a"); !errors.Is(err, ErrDown) {
		t.Errorf("read on a dead connection: %v, want ErrDown", err)
	}
	c2 := rec.up(t)
	if _, err := c2.ReadResource(ctx, "dpe://t.host/b"); err != nil {
		t.Fatalf("read after restart: %v", err)
	}
	// The state turns up once the Up callback has returned.
	testutil.Eventually(t, 5*time.Second, "the server up again", func() bool { return m.States()["self"].Up })
	if st := m.States()["self"]; st.Restarts != 1 {
		t.Errorf("state = %+v", st)
	}
}

func TestKillMidReadFailsFast(t *testing.T) {
	_, rec := startManager(t, Options{MinBackoff: time.Hour, RequestTimeout: 20 * time.Second}, selfServer("self"))
	c := rec.up(t)
	errc := make(chan error, 1)
	go func() {
		_, err := c.ReadResource(context.Background(), "test://slow")
		errc <- err
	}()
	rec.waitNote(t, "self notifications/message") // the server has the read
	pid := childPID(t, c)
	start := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, ErrDown) {
			t.Errorf("read error = %v, want ErrDown", err)
		}
		t.Logf("read failed %v after the kill", time.Since(start))
	case <-time.After(3 * time.Second):
		t.Fatal("read still hanging 3 s after its server was killed")
	}
}

// childPID finds the stdio child of c through /proc (Linux only).
func childPID(t *testing.T, c *Conn) int {
	t.Helper()
	testutil.NeedProc(t)
	self := os.Getpid()
	entries, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, e := range entries {
		b, err := os.ReadFile(e)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		var pid, ppid int
		if len(f) > 1 {
			if _, err := fmtSscan(f[1], &ppid); err != nil {
				continue
			}
			if _, err := fmtSscan(strings.Fields(s)[0], &pid); err != nil {
				continue
			}
		}
		if ppid == self {
			return pid
		}
	}
	t.Fatal("the stdio server's process is not among this process's children")
	return 0
}

func TestRequestTimeout(t *testing.T) {
	_, rec := startManager(t, Options{RequestTimeout: 300 * time.Millisecond}, selfServer("self"))
	c := rec.up(t)
	start := time.Now()
	_, err := c.ReadResource(context.Background(), "test://slow")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want a deadline error", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("timed out after %v", d)
	}
	// The connection is still usable.
	if _, err := c.ReadResource(context.Background(), "dpe://t.host/a"); err != nil {
		t.Errorf("read after a timeout: %v", err)
	}
}

func TestStartFailureIsRetried(t *testing.T) {
	bad := config.NewStdio("missing", filepath.Join(t.TempDir(), "no-such-binary"))
	m, _ := startManager(t, Options{MinBackoff: 20 * time.Millisecond, MaxBackoff: 40 * time.Millisecond}, bad)
	if !testutil.WaitUntil(5*time.Second, func() bool { return strings.Contains(m.States()["missing"].LastError, "no-such-binary") }) {
		t.Fatalf("state = %+v", m.States())
	}
}

// fakeTransport answers initialize and fails resources/read with a
// Finder error code and data, as a document server does.
type fakeTransport struct{}

func (fakeTransport) Start(context.Context) error { return nil }
func (fakeTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp := &transport.JSONRPCResponse{JSONRPC: "2.0", ID: req.ID}
	switch req.Method {
	case "initialize":
		resp.Result = json.RawMessage(`{"protocolVersion":"2025-06-18","capabilities":{"resources":{"subscribe":true}},"serverInfo":{"name":"fake","version":"1"}}`)
	case "resources/read":
		resp.Error = &mcp.JSONRPCErrorDetails{Code: 4202, Message: "page out of range", Data: map[string]any{"page_index": 9.0, "page_count": 2.0}}
	default:
		resp.Error = &mcp.JSONRPCErrorDetails{Code: mcp.METHOD_NOT_FOUND, Message: "no"}
	}
	return resp, nil
}
func (fakeTransport) SendNotification(context.Context, mcp.JSONRPCNotification) error { return nil }
func (fakeTransport) SetNotificationHandler(func(mcp.JSONRPCNotification))            {}
func (fakeTransport) Close() error                                                    { return nil }
func (fakeTransport) GetSessionId() string                                            { return "" }

func TestRPCErrorKeepsCodeAndData(t *testing.T) {
	dial := func(ctx context.Context, s config.Server) (Transport, error) {
		return Transport{T: fakeTransport{}}, nil
	}
	_, rec := startManager(t, Options{Dial: dial}, config.NewStdio("fake", "unused"))
	c := rec.up(t)
	if c.Modern() {
		t.Fatal("fake server negotiated the modern revision")
	}
	_, err := c.ReadResource(context.Background(), "dpe://h/d/pages/9")
	var re *rpcerr.Error
	if !errors.As(err, &re) {
		t.Fatalf("err = %v (%T), want an *rpcerr.Error", err, err)
	}
	if re.Code != 4202 || re.Message != "page out of range" || !strings.HasPrefix(err.Error(), "fake resources/read: ") {
		t.Errorf("rpc error = %+v (%v)", re, err)
	}
	if d, _ := re.Data.(map[string]any); d["page_count"] != 2.0 {
		t.Errorf("data = %#v", re.Data)
	}
}

func TestServerEverything(t *testing.T) {
	nm := testutil.NodeModules(t)
	bin := filepath.Join(nm, ".bin", "mcp-server-everything")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("server-everything not installed: %v", err)
	}
	s := config.NewStdio("everything", bin, "stdio")
	_, rec := startManager(t, Options{RequestTimeout: 20 * time.Second}, s)
	c := rec.up(t)
	ctx := context.Background()
	t.Logf("server-everything: MCP %s, resources=%+v", c.ProtocolVersion(), c.Capabilities().Resources)
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(tools, func(tl mcp.Tool) bool { return tl.Name == "echo" }) {
		t.Fatalf("no echo tool among %d", len(tools))
	}
	out, err := c.CallTool(ctx, "echo", map[string]any{"message": "hello"})
	if err != nil || out.IsError {
		t.Fatalf("echo: %v %+v", err, out)
	}
	if txt := out.Content[0].(mcp.TextContent).Text; !strings.Contains(txt, "hello") {
		t.Errorf("echo said %q", txt)
	}
	// Cursors: follow every page of its resource list.
	var all []string
	cursor := ""
	for range 100 {
		page, next, err := c.ListResources(ctx, cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page {
			all = append(all, r.URI)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if len(all) == 0 {
		t.Fatal("no resources")
	}
	if c.FinderCapable() {
		if err := c.Subscribe(ctx, all[:1]); err != nil {
			t.Errorf("subscribe to %s: %v", all[0], err)
		}
	}
	t.Logf("%d tools, %d resources", len(tools), len(all))
}

func fmtSscan(s string, n *int) (int, error) {
	v, err := strconv.Atoi(s)
	*n = v
	return 1, err
}

// TestUpAfterTheUpEvent: a server is reported Up only once the Up event has
// returned, so a caller waiting for Up (the demo, before its first catalog)
// finds the server already taken in.
func TestUpAfterTheUpEvent(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	opts := Options{Events: Events{Up: func(*Conn) {
		close(entered)
		<-release
	}}}
	m := New([]config.Server{selfServer("self")}, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	defer unblock() // before the deferred stop, even when the test fails

	select {
	case <-entered:
	case <-time.After(20 * time.Second):
		t.Fatal("server did not come up")
	}
	if st := m.States()["self"]; st.Up {
		t.Fatalf("state %+v while the Up event is still running", st)
	}
	if _, ok := m.Conn("self"); !ok {
		t.Fatal("the connection must be usable from inside the Up event")
	}
	unblock()
	if !testutil.WaitUntil(5*time.Second, func() bool { return m.States()["self"].Up }) {
		t.Fatalf("not Up after the event returned: %+v", m.States()["self"])
	}
}
