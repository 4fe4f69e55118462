// Package cluster_test runs several real `smcp-browse server` processes on
// loopback with one real redis-server, and clients spread over them: a
// node killed mid-request, Redis restarted, Redis down, and (make soak)
// a long run under load.
package cluster_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/internal/redistest"
	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// wait bounds what should happen at once or within a lease; it only ends
// a failing test, it is not a timing assertion.
const wait = 20 * time.Second

// ttl is the nodes' lease in these tests (TestRedisDown uses the default,
// 3 s, so that its requests surely come before the nodes give up).
const ttl = time.Second

// node is one `smcp-browse server` process.
type node struct {
	URL string
	cmd *exec.Cmd
	log string
}

// startNode runs a server process using Redis at redisURL, with extra
// arguments.
func startNode(t *testing.T, bin, redisURL string, ttl time.Duration, extra ...string) *node {
	t.Helper()
	dir := t.TempDir()
	if keep := os.Getenv("SMCP_CLUSTER_LOGS"); keep != "" { // keep the logs there
		dir, _ = os.MkdirTemp(keep, "node-")
	}
	logPath := filepath.Join(dir, "server.log")
	args := []string{"server", "--listen", "127.0.0.1:0", "--log-file", logPath, "--log-level", "debug"}
	if redisURL != "" { // "": a single node without Redis, for comparison
		args = append(args, "--redis", redisURL, "--cluster-ttl", ttl.String())
	}
	args = append(args, extra...)
	cmd := exec.Command(bin, args...)
	stderr, err := os.Create(logPath + ".stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	cmd.Stderr = stderr // what the libraries print there (go-redis)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n := &node{cmd: cmd, log: logPath}
	t.Cleanup(func() {
		n.stop()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			if e, _ := os.ReadFile(logPath + ".stderr"); len(e) > 0 {
				t.Logf("stderr of node %s:\n%.5000s", n.URL, e)
			}
			if len(b) > 20000 {
				b = b[len(b)-20000:]
			}
			t.Logf("log of node %s:\n%s", n.URL, b)
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("server did not start: %v", err)
	}
	const prefix = "smcp-browse server listening on "
	if !strings.HasPrefix(line, prefix) {
		t.Fatalf("server said %q", line)
	}
	n.URL = strings.TrimSpace(strings.TrimPrefix(line, prefix))
	go func() { _, _ = bufio.NewReader(out).WriteTo(discard{}) }()
	return n
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// stop ends the process gracefully (SIGTERM), or kills it after 10 s.
func (n *node) stop() {
	if n.cmd.ProcessState != nil {
		return
	}
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = n.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = n.cmd.Process.Kill()
		<-done
	}
}

// kill9 kills the process at once, as a crash does.
func (n *node) kill9() {
	_ = n.cmd.Process.Kill()
	_ = n.cmd.Wait()
}

// rssKB is the process's resident memory in kB.
func (n *node) rssKB() int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", n.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			v, _ := strconv.Atoi(f[1])
			return v
		}
	}
	return -1
}

// cluster starts a redis-server and n nodes with lease ttl.
func cluster(t *testing.T, n int, ttl time.Duration) (*redistest.Redis, []*node) {
	t.Helper()
	return clusterOn(t, redistest.Start(t), n, ttl)
}

// clusterOn starts n nodes with lease ttl using Redis r. The third node
// runs without a node link (--cluster-link off): requests to and from it
// go through Redis, those between the others over their links.
func clusterOn(t *testing.T, r *redistest.Redis, n int, ttl time.Duration) (*redistest.Redis, []*node) {
	t.Helper()
	bin := testutil.Binary(t)
	nodes := make([]*node, n)
	for i := range nodes {
		var extra []string
		if i == 2 {
			extra = []string{"--cluster-link", "off"}
		}
		nodes[i] = startNode(t, bin, r.URL, ttl, extra...)
	}
	return r, nodes
}

// urls lists the nodes' URLs from index i on, wrapping, comma-separated:
// a client given it starts at node i and fails over to the others.
func urls(nodes []*node, i int) string {
	var out []string
	for k := range nodes {
		out = append(out, nodes[(i+k)%len(nodes)].URL)
	}
	return strings.Join(out, ",")
}

// inbox collects an agent's membership notifications.
type inbox chan string

func (in inbox) handlers() agent.Handlers {
	return agent.Handlers{
		EnterOffice: func(n protocol.EnterOfficeNotification) { in <- "enter " + n.Agent + n.Computer },
		LeaveOffice: func(n protocol.LeaveOfficeNotification) { in <- "leave " + n.Agent + n.Computer },
	}
}

// expect waits until every one of want has come, skipping other
// notifications, and returns when each came. The client delivers each
// event's notifications in order, but two events' in any order.
func (in inbox) expect(t *testing.T, want ...string) []time.Duration {
	t.Helper()
	start := time.Now()
	deadline := time.After(wait)
	took := make([]time.Duration, len(want))
	for left := len(want); left > 0; {
		select {
		case got := <-in:
			for i, w := range want {
				if got == w && took[i] == 0 {
					took[i] = time.Since(start)
					left--
					break
				}
			}
		case <-deadline:
			t.Fatalf("notifications %q did not all come (%v)", want, took)
		}
	}
	return took
}

func newAgent(t *testing.T, url, name string, h agent.Handlers) *agent.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	a, err := agent.Connect(ctx, url, agent.Options{
		Name: name, Handlers: h, Logger: servertest.LogFor(t),
		ReconnectMin: 50 * time.Millisecond, ReconnectMax: 500 * time.Millisecond,
	})
	if err != nil {
		t.Fatalf("agent %s: %v", name, err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

// office seats computer "pc" (answering client:get_tools) on node 1,
// failing over to the others, and agent "bot" connected to agentURL, in
// office o1.
func office(ctx context.Context, t *testing.T, nodes []*node, agentURL string) *agent.Client {
	t.Helper()
	return officeWith(ctx, t, nodes, agentURL, servertest.Reply(protocol.GetToolsRet{ReqID: "ok"}))
}

// officeWith is office with the computer answering client:get_tools with
// getTools.
func officeWith(ctx context.Context, t *testing.T, nodes []*node, agentURL string, getTools sio.Handler) *agent.Client {
	t.Helper()
	servertest.NewComputer(t, urls(nodes, 1), "o1", "pc", servertest.Handlers{protocol.EventGetTools: getTools})
	a := newAgent(t, agentURL, "bot", agent.Handlers{})
	if err := a.JoinOffice(ctx, "o1"); err != nil {
		t.Fatal(err)
	}
	return a
}

// officeWhole checks that a's office lists it and one computer, and that
// a request reaches the computer pc.
func officeWhole(ctx context.Context, a *agent.Client) error {
	list, err := a.ListRoom(ctx)
	if err != nil {
		return err
	}
	if len(list) != 2 {
		return fmt.Errorf("office has %d members", len(list))
	}
	_, err = a.GetTools(ctx, "pc")
	return err
}

// TestKillNodeMidRequest: an agent on node 0 waits for a computer on node
// 1; node 1 is killed with SIGKILL. The agent's request is answered 404
// within the lease, the computer fails over to node 2 and re-joins, the
// office hears it leave and enter, and requests work again; every request
// was handled and answered once.
func TestKillNodeMidRequest(t *testing.T) {
	t.Parallel()
	_, nodes := cluster(t, 3, ttl)
	ctx, cancel := context.WithTimeout(context.Background(), 3*wait)
	defer cancel()

	var handled atomic.Int32
	started := make(chan struct{}, 10)
	hold := make(chan struct{})
	servertest.NewComputer(t, urls(nodes, 1), "o1", "pc", servertest.Handlers{
		protocol.EventGetTools: func(ctx context.Context, raw json.RawMessage) (any, error) {
			var req protocol.ComputerCall
			_ = json.Unmarshal(raw, &req)
			if handled.Add(1) == 1 {
				started <- struct{}{}
				<-hold // the first request is held until the test ends
			}
			return protocol.GetToolsRet{ReqID: req.ReqID}, nil
		},
	})
	defer close(hold)
	in := make(inbox, 100)
	a := newAgent(t, nodes[0].URL, "bot", in.handlers())
	if err := a.JoinOffice(ctx, "o1"); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { _, err := a.GetTools(ctx, "pc"); errc <- err }()
	<-started
	killed := time.Now()
	nodes[1].kill9()
	err := <-errc
	answered := time.Since(killed)
	if protocol.CodeOf(err) != protocol.CodeNotFound || !strings.Contains(err.Error(), "disconnected") {
		t.Fatalf("request held by the killed node's computer: %v, want 404 disconnected", err)
	}
	t.Logf("request answered 404 %s after the kill", answered.Round(time.Millisecond))
	took := in.expect(t, "leave pc", "enter pc")
	t.Logf("office heard the computer leave %s and enter again %s after the 404", took[0].Round(time.Millisecond), took[1].Round(time.Millisecond))
	var ret *protocol.GetToolsRet
	testutil.EventuallyNil(t, wait, "request after the failover", func() error {
		ret, err = a.GetTools(ctx, "pc")
		return err
	})
	if ret.ReqID == "" {
		t.Fatalf("answer without req_id: %+v", ret)
	}
	list, err := a.ListRoom(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("list_room after the failover: %+v %v", list, err)
	}
	if n := handled.Load(); n != 2 {
		t.Fatalf("the computer handled %d requests, want 2 (one held, one after the failover)", n)
	}
}

// TestRedisRestart: Redis restarts empty under a running cluster. Every
// node notices its lease is gone, drops its clients and registers again;
// the clients reconnect, re-join, and requests work again.
func TestRedisRestart(t *testing.T) {
	t.Parallel()
	r, nodes := cluster(t, 2, ttl)
	ctx, cancel := context.WithTimeout(context.Background(), 3*wait)
	defer cancel()
	a := office(ctx, t, nodes, urls(nodes, 0))
	if _, err := a.GetTools(ctx, "pc"); err != nil {
		t.Fatal(err)
	}
	r.Restart(200 * time.Millisecond)
	took := testutil.EventuallyNil(t, wait, "request after the Redis restart", func() error { return officeWhole(ctx, a) })
	t.Logf("office whole and routing again %s after Redis came back", took.Round(time.Millisecond))
}

// TestRedisDown: with Redis down, requests and joins fail at once with a
// clear 500 naming Redis, nobody is seated anywhere (no split brain), the
// nodes drop their clients after the lease and refuse new ones with HTTP
// 503; once Redis is back the clients re-join and one agent only holds the
// office.
func TestRedisDown(t *testing.T) {
	t.Parallel()
	r, nodes := cluster(t, 2, 3*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 3*wait)
	defer cancel()
	a := office(ctx, t, nodes, nodes[0].URL)
	rival, err := sio.Dial(ctx, sio.Options{URL: nodes[1].URL})
	if err != nil {
		t.Fatal(err)
	}
	defer rival.Close()

	r.Kill()
	start := time.Now()
	_, err = a.GetTools(ctx, "pc")
	if protocol.CodeOf(err) != protocol.CodeInternalError || !strings.Contains(err.Error(), "Redis") {
		t.Fatalf("request with Redis down: %v, want a 500 naming Redis", err)
	}
	t.Logf("request refused %s after Redis went down: %v", time.Since(start).Round(time.Millisecond), err)
	_, err = rival.Call(ctx, protocol.EventJoinOffice, protocol.EnterOfficeReq{Role: protocol.RoleAgent, Name: "rival", OfficeID: "o1"})
	if protocol.CodeOf(err) != protocol.CodeInternalError {
		t.Fatalf("join with Redis down: %v, want 500", err)
	}
	// After the lease the nodes hold no client and refuse new ones.
	testutil.EventuallyNil(t, wait, "the nodes refusing connections", func() error {
		dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		c, err := sio.Dial(dctx, sio.Options{URL: nodes[0].URL})
		if err == nil {
			_ = c.Close()
			return errors.New("a node accepted a connection without Redis")
		}
		if !strings.Contains(err.Error(), "503") {
			return fmt.Errorf("refused with %v, want HTTP 503", err)
		}
		return nil
	})
	// The node drops its clients when the lease ends; the agent hears of
	// it over its connection, which may be a moment after the node
	// refuses new ones.
	testutil.EventuallyNil(t, wait, "the agent dropped by the node without Redis", func() error {
		if st := a.State(); st == agent.StateConnected {
			return fmt.Errorf("agent state %v", st)
		}
		return nil
	})

	r.Restart(0)
	took := testutil.EventuallyNil(t, wait, "the office after Redis came back", func() error { return officeWhole(ctx, a) })
	t.Logf("office whole again %s after Redis came back", took.Round(time.Millisecond))
	// The rival, reconnected too, still cannot take the office's seat.
	rctx, rcancel := context.WithTimeout(ctx, wait)
	defer rcancel()
	var once sync.Once
	testutil.EventuallyNil(t, wait, "the rival's join refused as 4101", func() error {
		_, err := rival.Call(rctx, protocol.EventJoinOffice, protocol.EnterOfficeReq{Role: protocol.RoleAgent, Name: "rival", OfficeID: "o1"})
		if protocol.CodeOf(err) == protocol.CodeRoomFull {
			return nil
		}
		once.Do(func() { t.Logf("rival's join while reconnecting: %v", err) })
		if err == nil {
			t.Fatal("a second agent was seated in the office")
		}
		return err
	})
}

// cpuTicks is the process's user+system CPU time in clock ticks.
func (n *node) cpuTicks(t *testing.T) int {
	t.Helper()
	testutil.NeedProc(t)
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", n.cmd.Process.Pid))
	if err != nil {
		t.Fatalf("node (pid %d) is gone: %v", n.cmd.Process.Pid, err)
	}
	// Fields after the command name (which is in parentheses).
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	utime, _ := strconv.Atoi(f[11])
	stime, _ := strconv.Atoi(f[12])
	return utime + stime
}

// TestAdapterIdleWhileRedisDown: a node whose Redis is down waits between
// its attempts to reach it. The Socket.IO Redis adapter's subscription
// loops try again at once after an error; before the subscriber client's
// dialer backed off, a node spent 1.4 cores on them (about 57,000 dials a
// second) for as long as Redis was down.
func TestAdapterIdleWhileRedisDown(t *testing.T) {
	t.Parallel()
	r, nodes := cluster(t, 1, 3*time.Second)
	time.Sleep(time.Second) // a node that has run a while (one killed at once did not spin)
	r.Kill()
	time.Sleep(500 * time.Millisecond) // the loops notice
	const span = 3 * time.Second
	before := nodes[0].cpuTicks(t)
	time.Sleep(span)
	used := nodes[0].cpuTicks(t) - before
	// 100 ticks a second on Linux: a quarter of a core over the span is
	// far above the node's idle cost and far below a spinning loop's.
	if limit := int(span.Seconds() * 25); used > limit {
		t.Fatalf("the node used %d CPU ticks in %s with Redis down (limit %d)", used, span, limit)
	}
	t.Logf("%d CPU ticks in %s with Redis down", used, span)
}

// TestRedisHung: Redis stops answering without closing its connections
// (SIGSTOP, as an overloaded or partitioned Redis looks). What an operator
// expects: requests fail at once with a 500 naming Redis (well before the
// nodes give up on Redis), the nodes then drop their clients, which are
// told so, and refuse new ones with a 503 naming Redis; within a lease
// after Redis answers again the office is whole, and every request after
// that gets the answer to its own request, none lost.
func TestRedisHung(t *testing.T) {
	t.Parallel()
	// A lease of 6 s: a node gives up on Redis 2-4 s after it hangs, well
	// after a command's 1 s timeout has answered the request.
	const lease = 6 * time.Second
	r, nodes := cluster(t, 2, lease)
	ctx, cancel := context.WithTimeout(context.Background(), 3*wait)
	defer cancel()
	var handled atomic.Int64
	a := officeWith(ctx, t, nodes, urls(nodes, 0), func(_ context.Context, raw json.RawMessage) (any, error) {
		var req protocol.ComputerCall
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, err
		}
		handled.Add(1)
		return protocol.GetToolsRet{ReqID: req.ReqID}, nil
	})
	var answered atomic.Int64 // requests answered by the computer
	getTools := func() (*protocol.GetToolsRet, error) {
		ret, err := a.GetTools(ctx, "pc")
		if err == nil {
			answered.Add(1)
		}
		return ret, err
	}

	r.Pause()
	resumed := false
	defer func() {
		if !resumed {
			r.Resume()
		}
	}()
	start := time.Now()
	errs := make(chan error, 8)
	for range cap(errs) {
		go func() { _, err := getTools(); errs <- err }()
	}
	for range cap(errs) {
		if err := <-errs; protocol.CodeOf(err) != protocol.CodeInternalError || !strings.Contains(err.Error(), "Redis") {
			t.Fatalf("request with Redis hung: %v, want a 500 naming Redis", err)
		}
	}
	refused := time.Since(start)
	t.Logf("%d requests refused within %s after Redis hung", cap(errs), refused.Round(time.Millisecond))
	if refused >= lease {
		t.Errorf("requests refused %s after Redis hung: not before the nodes gave up on it", refused)
	}

	testutil.EventuallyNil(t, wait, "the agent told its node dropped it", func() error {
		if a.State() == agent.StateConnected {
			return errors.New("still connected")
		}
		return nil
	})
	for _, n := range nodes {
		testutil.EventuallyNil(t, wait, "a new client refused with a 503 naming Redis", func() error {
			dctx, dcancel := context.WithTimeout(ctx, 2*time.Second)
			defer dcancel()
			c, err := sio.Dial(dctx, sio.Options{URL: n.URL})
			if err == nil {
				_ = c.Close()
				return errors.New("a node accepted a connection while Redis hangs")
			}
			if !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "Redis") {
				return fmt.Errorf("refused with %v, want HTTP 503 naming Redis", err)
			}
			return nil
		})
	}

	r.Resume()
	resumed = true
	took := testutil.EventuallyNil(t, wait, "the office after Redis answered again", func() error {
		list, err := a.ListRoom(ctx)
		if err != nil {
			return err
		}
		if len(list) != 2 {
			return fmt.Errorf("office has %d members", len(list))
		}
		_, err = getTools()
		return err
	})
	t.Logf("office whole again %s after Redis answered again", took.Round(time.Millisecond))
	if took > lease {
		t.Errorf("office whole again only %s after Redis answered again, more than a lease (%s)", took, lease)
	}

	// Every request gets the answer to its own request, and every request
	// the computer answered reached its agent.
	rets := make(chan *protocol.GetToolsRet, 32)
	for range cap(rets) {
		go func() {
			ret, err := getTools()
			if err != nil {
				t.Errorf("request after Redis answered again: %v", err)
			}
			rets <- ret
		}()
	}
	seen := map[string]bool{}
	for range cap(rets) {
		if ret := <-rets; ret != nil {
			if ret.ReqID == "" || seen[ret.ReqID] {
				t.Errorf("answer for req_id %q: empty or given twice", ret.ReqID)
			}
			seen[ret.ReqID] = true
		}
	}
	if h, n := handled.Load(), answered.Load(); h != n {
		t.Errorf("the computer answered %d requests, its agent got %d answers", h, n)
	}
}

// TestServerWithoutRedis: `server --redis` with no Redis there does not
// start: it exits 1 with an error naming Redis, before saying it listens.
func TestServerWithoutRedis(t *testing.T) {
	t.Parallel()
	bin := testutil.Binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "server", "--listen", "127.0.0.1:0", "--redis", "redis://127.0.0.1:1/0").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1\n%s", err, out)
	}
	if !strings.Contains(string(out), "Redis at 127.0.0.1:1") || strings.Contains(string(out), "listening") {
		t.Fatalf("output:\n%s", out)
	}
}
