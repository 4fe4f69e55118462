package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/redistest"
	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// TestClusterNodeStopped: the node of a computer holding a request stops
// (a restart for an upgrade). The agent, on another node, is answered 404
// at once; the computer, given both nodes' URLs, moves to the other node
// and re-joins; the office hears it leave and come back, and requests
// reach it again.
func TestClusterNodeStopped(t *testing.T) {
	nodes := startCluster(t, 2, server.Options{})
	ctx := testCtx(t)
	held := make(chan struct{}, 1)
	servertest.NewComputer(t, nodes[0].URL+","+nodes[1].URL, "o1", "pc", servertest.Handlers{
		protocol.EventGetTools: func(ctx context.Context, raw json.RawMessage) (any, error) {
			var req protocol.ComputerCall
			_ = json.Unmarshal(raw, &req)
			if req.ReqID == "held" {
				held <- struct{}{}
				<-ctx.Done()
			}
			return protocol.GetToolsRet{ReqID: req.ReqID}, nil
		},
	})
	in := newInbox(t)
	bot := dial(t, nodes[1].URL)
	listenAll(bot, in)
	join(t, bot, protocol.RoleAgent, "bot", "o1")

	errc := make(chan error, 1)
	go func() {
		_, err := bot.Call(ctx, protocol.EventGetTools, protocol.ComputerCall{ReqID: "held", Computer: "pc"})
		errc <- err
	}()
	<-held
	if err := nodes[0].Stop(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; codeOf(t, err) != protocol.CodeNotFound || !strings.Contains(err.Error(), "disconnected") {
		t.Fatalf("request held by the stopped node's computer: %v, want 404 disconnected", err)
	}
	// Two events' notifications reach a client's listeners in any order.
	got := []string{in.next(), in.next()}
	slices.Sort(got)
	if want := []string{`notify:enter_office {"computer":"pc","office_id":"o1"}`, `notify:leave_office {"computer":"pc","office_id":"o1"}`}; !slices.Equal(got, want) {
		t.Fatalf("notifications %q, want %q", got, want)
	}
	raw, err := bot.Call(ctx, protocol.EventGetTools, protocol.ComputerCall{ReqID: "after", Computer: "pc"})
	if err != nil || !strings.Contains(string(raw), `"req_id":"after"`) {
		t.Fatalf("request after the move: %s %v", raw, err)
	}
}

// TestStoppedNodeTellsEveryLeave: a node stopping gracefully answers the
// requests its computers held and tells the offices on other nodes that
// each of its computers left. Its sessions'
// disconnections are handled as their sockets close, after the node has
// begun to stop; their notices must still go out before it stops
// publishing (none is reaped later: their seats are already gone).
func TestStoppedNodeTellsEveryLeave(t *testing.T) {
	nodes := startCluster(t, 2, server.Options{})
	ctx := testCtx(t)
	const n = 20
	held := make(chan struct{}, n)
	hold := func(ctx context.Context, _ json.RawMessage) (any, error) {
		held <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	for i := range n {
		servertest.NewComputer(t, nodes[0].URL, "o1", fmt.Sprintf("pc%02d", i), servertest.Handlers{protocol.EventGetTools: hold})
	}
	in := newInbox(t)
	bot := dial(t, nodes[1].URL)
	listenAll(bot, in)
	join(t, bot, protocol.RoleAgent, "bot", "o1")
	errc := make(chan error, n)
	for i := range n {
		go func() {
			_, err := bot.Call(ctx, protocol.EventGetTools, protocol.ComputerCall{ReqID: "held", Computer: fmt.Sprintf("pc%02d", i)})
			errc <- err
		}()
	}
	for range n {
		<-held
	}
	if err := nodes[0].Stop(); err != nil {
		t.Fatal(err)
	}
	for range n {
		if err := <-errc; protocol.CodeOf(err) != protocol.CodeNotFound {
			t.Errorf("request held by the stopped node's computer: %v, want 404", err)
		}
	}
	var got []string
	for range n {
		got = append(got, in.next())
	}
	slices.Sort(got)
	for i, g := range got {
		if want := fmt.Sprintf(`notify:leave_office {"computer":"pc%02d","office_id":"o1"}`, i); g != want {
			t.Errorf("notification %d: %s, want %s", i, g, want)
		}
	}
}

// TestDialTriesTheNextNode: a client given several URLs connects to the
// first node that accepts.
func TestDialTriesTheNextNode(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := sio.Dial(ctx, sio.Options{URL: "http://127.0.0.1:1, " + srv.URL, Logger: servertest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	join(t, c, protocol.RoleComputer, "pc", "o1")
	// A refusal is the Server's answer everywhere: it is not tried again.
	_, err = sio.Dial(ctx, sio.Options{URL: srv.URL + "," + srv.URL, Version: "9.0.0"})
	if protocol.CodeOf(err) != protocol.CodeVersionMismatch {
		t.Fatalf("dial with a refused version: %v, want 4008", err)
	}
}

// TestLargeAnswerAcrossNodes: a 3 MB answer (a big page) crosses nodes
// byte for byte, as it crosses one node.
func TestLargeAnswerAcrossNodes(t *testing.T) {
	eachTopology(t, server.Options{}, func(t *testing.T, tp topology) {
		body := strings.Repeat("é<>&\"\\ line\n", 3<<20/12)
		servertest.NewComputer(t, tp.at(0), "o1", "pc", servertest.Handlers{
			protocol.EventReadResource: servertest.Reply(protocol.ReadResourceRet{Contents: []protocol.ResourceContents{{URI: "dpe://h/doc", Text: body}}}),
		})
		bot := dial(t, tp.at(1))
		join(t, bot, protocol.RoleAgent, "bot", "o1")
		raw, err := bot.Call(testCtx(t), protocol.EventReadResource, map[string]any{"computer": "pc", "req_id": "1", "uri": "dpe://h/doc"})
		if err != nil {
			t.Fatal(err)
		}
		var ret protocol.ReadResourceRet
		if err := json.Unmarshal(raw, &ret); err != nil || len(ret.Contents) != 1 || ret.Contents[0].Text != body {
			t.Fatalf("answer of %d bytes does not carry the body (%v)", len(raw), err)
		}
	})
}

// TestAnswersStayWithTheirRequests: many requests of several agents in
// flight at once, each answered with its own body (of varying size), each
// get their own answer whole, whichever nodes the agents and the computer
// are on (frames between nodes reuse their buffers).
func TestAnswersStayWithTheirRequests(t *testing.T) {
	eachTopology(t, server.Options{}, func(t *testing.T, tp topology) {
		ctx := testCtx(t)
		var wg sync.WaitGroup
		for a := range 4 {
			bot := dial(t, tp.at(1+a))
			join(t, bot, protocol.RoleAgent, "bot", fmt.Sprint("o", a+2))
			// Each agent in an office of its own, with its own computer.
			own := dial(t, tp.at(a))
			own.Handle(protocol.EventGetTools, func(_ context.Context, raw json.RawMessage) (any, error) {
				var req protocol.ComputerCall
				if err := json.Unmarshal(raw, &req); err != nil {
					return nil, err
				}
				return map[string]any{"req_id": req.ReqID, "body": strings.Repeat(req.ReqID, len(req.ReqID)*7%200+1)}, nil
			})
			join(t, own, protocol.RoleComputer, "pc", fmt.Sprint("o", a+2))
			for w := range 8 {
				wg.Go(func() {
					for i := range 60 {
						id := fmt.Sprintf("a%d-w%d-%d", a, w, i)
						raw, err := bot.Call(ctx, protocol.EventGetTools, protocol.ComputerCall{ReqID: id, Computer: "pc"})
						var got struct {
							ReqID string `json:"req_id"`
							Body  string `json:"body"`
						}
						if err == nil {
							err = json.Unmarshal(raw, &got)
						}
						if err != nil || got.ReqID != id || got.Body != strings.Repeat(id, len(id)*7%200+1) {
							t.Errorf("request %s answered %.200s (%v)", id, raw, err)
							return
						}
					}
				})
			}
		}
		wg.Wait()
	})
}

// lateJoin has agent conns join their offices (office -> conn) while
// Redis hangs (SIGSTOP): each is told 500 naming Redis, though Redis still
// runs the joins once it answers again. It returns with Redis hung.
func lateJoin(ctx context.Context, t *testing.T, r *redistest.Redis, conns map[string]*sio.Conn) {
	t.Helper()
	r.Pause()
	errs := make(chan error, len(conns))
	for office, c := range conns {
		go func() {
			_, err := c.Call(ctx, protocol.EventJoinOffice, protocol.EnterOfficeReq{Role: protocol.RoleAgent, Name: "bot", OfficeID: office})
			errs <- err
		}()
	}
	for range conns {
		if err := <-errs; codeOf(t, err) != protocol.CodeInternalError || !strings.Contains(err.Error(), "Redis") {
			r.Resume()
			t.Fatalf("join with Redis hung: %v, want a 500 naming Redis", err)
		}
	}
}

// TestClusterJoinRunLateThenLeft: an agent's join is told 500 while Redis
// hangs (for less than a lease) and the agent leaves; Redis runs the join
// when it answers again. The seat it took does not outlive the agent:
// another agent can take the office.
func TestClusterJoinRunLateThenLeft(t *testing.T) {
	t.Parallel() // mostly waiting (for answers that never come, timeouts, Redis)
	r := redistest.Start(t)
	opts := server.Options{Redis: r.URL, ClusterTTL: 9 * time.Second}
	nodes := []*servertest.Server{servertest.Start(t, opts), servertest.Start(t, opts)}
	ctx := testCtx(t)
	servertest.NewComputer(t, nodes[1].URL, "o1", "pc", servertest.Handlers{protocol.EventGetTools: echo(protocol.EventGetTools)})
	gone := dial(t, nodes[0].URL)
	lateJoin(ctx, t, r, map[string]*sio.Conn{"o1": gone})
	_ = gone.Close()
	r.Resume()

	other := dial(t, nodes[1].URL)
	var err error
	if !testutil.WaitUntil(wait, func() bool {
		_, err = other.Call(ctx, protocol.EventJoinOffice, protocol.EnterOfficeReq{Role: protocol.RoleAgent, Name: "bot2", OfficeID: "o1"})
		return err == nil
	}) {
		t.Fatalf("another agent still cannot take the office of the agent that left: %v", err)
	}
}

// TestClusterJoinRunLateThenRetried: an agent's join is told 500 while
// Redis hangs; Redis runs it when it answers again, and the agent tries
// again at once. It is in its office for real: listed, its requests reach
// the computer, and the computer heard it enter. (A lease of 30 s: the
// node's check for seats left behind, once a heartbeat, comes after the
// retry.)
func TestClusterJoinRunLateThenRetried(t *testing.T) {
	t.Parallel() // mostly waiting (for answers that never come, timeouts, Redis)
	r := redistest.Start(t)
	opts := server.Options{Redis: r.URL, ClusterTTL: 30 * time.Second}
	nodes := []*servertest.Server{servertest.Start(t, opts), servertest.Start(t, opts)}
	ctx := testCtx(t)
	in := newInbox(t)
	pc := servertest.NewComputer(t, nodes[1].URL, "o1", "pc", servertest.Handlers{protocol.EventGetTools: echo(protocol.EventGetTools)})
	listenAll(pc.Conn, in)
	bot := dial(t, nodes[0].URL)
	lateJoin(ctx, t, r, map[string]*sio.Conn{"o1": bot})
	r.Resume()

	join(t, bot, protocol.RoleAgent, "bot", "o1")
	raw, err := bot.Call(ctx, protocol.EventListRoom, protocol.ListRoomReq{OfficeID: "o1", ReqID: "l1"})
	if err != nil || !strings.Contains(string(raw), `"name":"bot"`) || !strings.Contains(string(raw), `"name":"pc"`) {
		t.Fatalf("office after the join Redis ran late: %s %v", raw, err)
	}
	raw, err = bot.Call(ctx, protocol.EventGetTools, protocol.ComputerCall{ReqID: "t1", Computer: "pc"})
	if err != nil || !strings.Contains(string(raw), `"handled":"client:get_tools"`) || !strings.Contains(string(raw), `"req_id":"t1"`) {
		t.Fatalf("request after the join Redis ran late: %s %v", raw, err)
	}
	in.expect(`notify:enter_office {"agent":"bot","office_id":"o1"}`)
}

// TestRoutingFollowsMembershipAtOnce: an agent's requests reach its
// computer wherever it is now, right after it moved, whichever node the
// computer and the agent are on. The requests before the change make the
// agent's node know where the computer was; the one after the change must
// not go there: a computer that moved to another office is 4104, one that
// left is 404, and a new computer under the same name, on another node,
// is reached.
func TestRoutingFollowsMembershipAtOnce(t *testing.T) {
	eachTopology(t, server.Options{}, func(t *testing.T, tp topology) {
		ctx := testCtx(t)
		bot := dial(t, tp.at(0))
		join(t, bot, protocol.RoleAgent, "bot", "o1")
		ask := func() (string, error) {
			raw, err := bot.Call(ctx, protocol.EventGetTools, protocol.ComputerCall{ReqID: "r", Computer: "pc"})
			if err != nil {
				return "", err
			}
			var got struct {
				Handled string `json:"handled"`
			}
			_ = json.Unmarshal(raw, &got)
			return got.Handled, nil
		}
		for round := range 20 {
			name := fmt.Sprint("pc-", round)
			pc := dial(t, tp.at(1+round)) // the nodes in turn
			pc.Handle(protocol.EventGetTools, echo(name))
			join(t, pc, protocol.RoleComputer, "pc", "o1")
			for range 3 {
				if got, err := ask(); err != nil || got != name {
					t.Fatalf("round %d: answered by %q (%v), want %q", round, got, err, name)
				}
			}
			switch round % 3 {
			case 0: // moves to another office
				join(t, pc, protocol.RoleComputer, "pc", "o2")
				if _, err := ask(); codeOf(t, err) != protocol.CodeCrossRoomAccess {
					t.Fatalf("round %d: after the move: %v, want 4104", round, err)
				}
				// Out of every office, so that no "pc" is left anywhere.
				if _, err := pc.Call(ctx, protocol.EventLeaveOffice, protocol.LeaveOfficeReq{OfficeID: "o2"}); err != nil {
					t.Fatal(err)
				}
			case 1: // leaves
				if _, err := pc.Call(ctx, protocol.EventLeaveOffice, protocol.LeaveOfficeReq{OfficeID: "o1"}); err != nil {
					t.Fatal(err)
				}
				if _, err := ask(); codeOf(t, err) != protocol.CodeNotFound {
					t.Fatalf("round %d: after the leave: %v, want 404", round, err)
				}
			case 2: // replaced by another computer of that name, on another node
				next := dial(t, tp.at(2+round))
				next.Handle(protocol.EventGetTools, echo(name+"-next"))
				if _, err := pc.Call(ctx, protocol.EventLeaveOffice, protocol.LeaveOfficeReq{OfficeID: "o1"}); err != nil {
					t.Fatal(err)
				}
				join(t, next, protocol.RoleComputer, "pc", "o1")
				if got, err := ask(); err != nil || got != name+"-next" {
					t.Fatalf("round %d: after the replacement: answered by %q (%v), want %q", round, got, err, name+"-next")
				}
				if _, err := next.Call(ctx, protocol.EventLeaveOffice, protocol.LeaveOfficeReq{OfficeID: "o1"}); err != nil {
					t.Fatal(err)
				}
				_ = next.Close()
			}
			_ = pc.Close()
		}
	})
}
