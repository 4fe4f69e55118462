package server_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/internal/redistest"
	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// wait is how long a test waits for something that should happen at once;
// it only bounds a failing test, it is not a timing assertion.
const wait = 10 * time.Second

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*wait)
	t.Cleanup(cancel)
	return ctx
}

// inbox collects notifications as "event json" lines.
type inbox struct {
	t  *testing.T
	ch chan string
}

func newInbox(t *testing.T) *inbox { return &inbox{t: t, ch: make(chan string, 1000)} }

// put records a notification, its JSON canonicalised (keys sorted).
func (in *inbox) put(event string, v any) {
	b, _ := json.Marshal(v)
	var generic any
	_ = json.Unmarshal(b, &generic)
	b, _ = json.Marshal(generic)
	in.ch <- event + " " + string(b)
}

// next returns the next notification or fails the test.
func (in *inbox) next() string {
	in.t.Helper()
	select {
	case s := <-in.ch:
		return s
	case <-time.After(wait):
		in.t.Fatal("no notification arrived")
		return ""
	}
}

// expect fails unless the next notification is want.
func (in *inbox) expect(want string) {
	in.t.Helper()
	if got := in.next(); got != want {
		in.t.Fatalf("notification\n got %s\nwant %s", got, want)
	}
}

// empty fails if a notification is waiting.
func (in *inbox) empty() {
	in.t.Helper()
	select {
	case s := <-in.ch:
		in.t.Fatalf("unexpected notification %s", s)
	default:
	}
}

// agentHandlers sends every notification to in.
func agentHandlers(in *inbox) agent.Handlers {
	return agent.Handlers{
		EnterOffice:    func(n protocol.EnterOfficeNotification) { in.put(protocol.NotifyEnterOffice, n) },
		LeaveOffice:    func(n protocol.LeaveOfficeNotification) { in.put(protocol.NotifyLeaveOffice, n) },
		UpdateConfig:   func(n protocol.UpdateComputerConfigReq) { in.put(protocol.NotifyUpdateConfig, n) },
		UpdateToolList: func(n protocol.UpdateComputerConfigReq) { in.put(protocol.NotifyUpdateToolList, n) },
		UpdateDesktop:  func(n protocol.UpdateComputerConfigReq) { in.put(protocol.NotifyUpdateDesktop, n) },
		UpdateFinder:   func(n protocol.UpdateComputerConfigReq) { in.put(protocol.NotifyUpdateFinder, n) },
		ToolCallCancel: func(n protocol.AgentCallData) { in.put(protocol.NotifyToolCallCancel, n) },
	}
}

// listenAll sends every notify:* event reaching conn to in.
func listenAll(conn *sio.Conn, in *inbox) {
	for _, ev := range []string{
		protocol.NotifyEnterOffice, protocol.NotifyLeaveOffice, protocol.NotifyUpdateConfig,
		protocol.NotifyUpdateToolList, protocol.NotifyUpdateDesktop, protocol.NotifyUpdateFinder,
		protocol.NotifyToolCallCancel,
	} {
		conn.Listen(ev, func(raw json.RawMessage) {
			var v any
			_ = json.Unmarshal(raw, &v)
			in.put(ev, v)
		})
	}
}

// newAgent connects an agent client (closed at the end of the test).
func newAgent(t *testing.T, url, name string, h agent.Handlers) *agent.Client {
	t.Helper()
	a, err := agent.Connect(testCtx(t), url, agent.Options{
		Name: name, Logger: servertest.Logger(), Handlers: h,
		ReconnectMin: 50 * time.Millisecond, ReconnectMax: 500 * time.Millisecond,
	})
	if err != nil {
		t.Fatalf("agent %s: %v", name, err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

// dial opens a raw connection (closed at the end of the test).
func dial(t *testing.T, url string) *sio.Conn {
	t.Helper()
	c, err := sio.Dial(testCtx(t), sio.Options{URL: url, Logger: servertest.Logger()})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// join joins conn to office as role/name and fails the test on error.
func join(t *testing.T, c *sio.Conn, role protocol.Role, name, office string) {
	t.Helper()
	if _, err := c.Call(testCtx(t), protocol.EventJoinOffice, protocol.EnterOfficeReq{Role: role, Name: name, OfficeID: office}); err != nil {
		t.Fatalf("%s %s joins %s: %v", role, name, office, err)
	}
}

// codeOf returns the protocol code of err, failing when err is nil.
func codeOf(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		t.Fatal("expected an error, got success")
	}
	return protocol.CodeOf(err)
}

// echo is a handler that answers with the event name and the payload it
// received, so a test can check both the routing and the passthrough.
func echo(event string) sio.Handler {
	return func(_ context.Context, raw json.RawMessage) (any, error) {
		return map[string]any{"handled": event, "got": raw}, nil
	}
}

// topology places a test's clients on Server nodes: one node, or the
// nodes of a cluster sharing one Redis, so that every routing, error and
// notification case runs both on one node and across nodes.
type topology struct {
	nodes []*servertest.Server
}

// at returns the URL of node i (of the only node on a single one).
func (tp topology) at(i int) string { return tp.nodes[i%len(tp.nodes)].URL }

// clusterNodes is how many nodes the cluster topology starts.
const clusterNodes = 2

// eachTopology runs fn on a single node ("single") and on a cluster of
// clusterNodes nodes with a real redis-server ("cluster"; skipped with a
// message when redis-server is missing, failed under SMCP_REQUIRE_REDIS=1),
// the two at once.
func eachTopology(t *testing.T, opts server.Options, fn func(t *testing.T, tp topology)) {
	t.Helper()
	t.Run("single", func(t *testing.T) {
		t.Parallel()
		fn(t, topology{nodes: []*servertest.Server{servertest.Start(t, opts)}})
	})
	t.Run("cluster", func(t *testing.T) {
		t.Parallel()
		fn(t, topology{nodes: startCluster(t, clusterNodes, opts)})
	})
}

// startCluster starts a redis-server and n nodes using it.
func startCluster(t testing.TB, n int, opts server.Options) []*servertest.Server {
	t.Helper()
	r := redistest.Start(t)
	opts.Redis = r.URL
	out := make([]*servertest.Server, n)
	for i := range out {
		out[i] = servertest.Start(t, opts)
	}
	return out
}
