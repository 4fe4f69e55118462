package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// TestRoutingEveryClientEvent sends each client:* event through the
// server and checks that the computer got the agent's payload unchanged
// (fields the server does not know included) and that its answer came
// back unchanged.
func TestRoutingEveryClientEvent(t *testing.T) {
	eachTopology(t, server.Options{}, testRoutingEveryClientEvent)
}

func testRoutingEveryClientEvent(t *testing.T, tp topology) {
	ctx := testCtx(t)
	h := servertest.Handlers{}
	for _, ev := range protocol.ClientEvents() {
		h[ev] = echo(ev)
	}
	servertest.NewComputer(t, tp.at(0), "o1", "pc", h)
	servertest.NewComputer(t, tp.at(1), "o2", "pc-other", h)
	bot := dial(t, tp.at(1))
	join(t, bot, protocol.RoleAgent, "bot", "o1")

	for _, ev := range protocol.ClientEvents() {
		t.Run(ev, func(t *testing.T) {
			payload := map[string]any{
				"agent": "bot", "req_id": "r-" + ev, "computer": "pc",
				"x_extension": map[string]any{"n": 1.5, "list": []any{"a", true, nil}},
			}
			if ev == protocol.EventToolCall {
				payload["tool_name"] = "docs__search"
				payload["params"] = map[string]any{"q": "β"}
				payload["timeout"] = 5.0
			}
			raw, err := bot.Call(ctx, ev, payload)
			if err != nil {
				t.Fatal(err)
			}
			var ans struct {
				Handled string         `json:"handled"`
				Got     map[string]any `json:"got"`
			}
			if err := json.Unmarshal(raw, &ans); err != nil {
				t.Fatalf("answer %s: %v", raw, err)
			}
			if ans.Handled != ev {
				t.Errorf("handled by %q", ans.Handled)
			}
			if !reflect.DeepEqual(ans.Got, payload) {
				t.Errorf("the computer got\n%v\nwant\n%v", ans.Got, payload)
			}
		})
	}
}

// TestDisconnectMidRequest checks that a computer dropping while it holds
// a request answers the agent at once with 404 (not after the 30 s
// timeout), while a request in flight to another computer completes.
func TestDisconnectMidRequest(t *testing.T) {
	eachTopology(t, server.Options{}, testDisconnectMidRequest)
}

func testDisconnectMidRequest(t *testing.T, tp topology) {
	ctx := testCtx(t)
	started := make(chan string, 2)
	release := make(chan struct{})
	hold := func(name string) sio.Handler {
		return func(ctx context.Context, _ json.RawMessage) (any, error) {
			started <- name
			select {
			case <-release:
			case <-ctx.Done():
			}
			return protocol.GetToolsRet{ReqID: name}, nil
		}
	}
	slow := servertest.NewComputer(t, tp.at(0), "o1", "slow", servertest.Handlers{protocol.EventGetTools: hold("slow")})
	servertest.NewComputer(t, tp.at(1), "o1", "steady", servertest.Handlers{protocol.EventGetTools: hold("steady")})
	a := newAgent(t, tp.at(1), "bot", agent.Handlers{})
	if err := a.JoinOffice(ctx, "o1"); err != nil {
		t.Fatal(err)
	}
	type res struct {
		ret *protocol.GetToolsRet
		err error
	}
	slowRes, steadyRes := make(chan res, 1), make(chan res, 1)
	go func() { r, err := a.GetTools(ctx, "slow"); slowRes <- res{r, err} }()
	go func() { r, err := a.GetTools(ctx, "steady"); steadyRes <- res{r, err} }()
	<-started
	<-started

	start := time.Now()
	_ = slow.Conn.Close()
	r := <-slowRes
	if code := codeOf(t, r.err); code != protocol.CodeNotFound || !strings.Contains(r.err.Error(), "disconnected") {
		t.Fatalf("request to the dropped computer: %v (code %d), want 404 disconnected", r.err, code)
	}
	if d := time.Since(start); d >= server.DefaultRequestTimeout {
		t.Fatalf("answered after %s, i.e. by the timeout, not the disconnect", d)
	}
	close(release)
	if r := <-steadyRes; r.err != nil || r.ret.ReqID != "steady" {
		t.Fatalf("request to the other computer: %+v %v", r.ret, r.err)
	}
}

// TestRequestTimeout checks the server's own timeouts (default and
// tool_call's) and that a late answer does not disturb later requests.
func TestRequestTimeout(t *testing.T) {
	eachTopology(t, server.Options{RequestTimeout: 300 * time.Millisecond, ToolCallGrace: 100 * time.Millisecond}, testRequestTimeout)
}

func testRequestTimeout(t *testing.T, tp topology) {
	ctx := testCtx(t)
	late := make(chan struct{})
	mute := func(ctx context.Context, _ json.RawMessage) (any, error) {
		select {
		case <-late:
		case <-ctx.Done():
		}
		return map[string]any{"late": true}, nil
	}
	servertest.NewComputer(t, tp.at(0), "o1", "mute", servertest.Handlers{
		protocol.EventGetTools: mute,
		protocol.EventToolCall: mute,
		protocol.EventGetConfig: servertest.Reply(protocol.GetComputerConfigRet{
			Servers: map[string]json.RawMessage{"docs": json.RawMessage(`{"type":"stdio"}`)},
		}),
	})
	a := newAgent(t, tp.at(1), "bot", agent.Handlers{})
	if err := a.JoinOffice(ctx, "o1"); err != nil {
		t.Fatal(err)
	}
	_, err := a.GetTools(ctx, "mute")
	if code := codeOf(t, err); code != protocol.CodeTimeout || !strings.Contains(err.Error(), "did not answer") {
		t.Fatalf("get_tools: %v, want the server's 408", err)
	}
	// The protocol's tool_call timeout is whole seconds: the agent sends
	// 200 ms as 1 s, and the server waits that plus its grace.
	_, err = a.CallTool(ctx, "mute", "sleep", nil, 200*time.Millisecond)
	if code := codeOf(t, err); code != protocol.CodeTimeout || !strings.Contains(err.Error(), "did not answer client:tool_call within 1.1s") {
		t.Fatalf("tool_call: %v, want the server's 408 after timeout+grace", err)
	}
	close(late) // both answers now arrive late and must be dropped
	cfg, err := a.GetConfig(ctx, "mute")
	if err != nil || string(cfg.Servers["docs"]) != `{"type":"stdio"}` {
		t.Fatalf("request after the late answers: %+v %v", cfg, err)
	}
}

// TestConcurrentRequestsCorrelated sends 200 requests at once on one
// connection to a computer that answers in random order; each answer must
// match its own request.
func TestConcurrentRequestsCorrelated(t *testing.T) {
	eachTopology(t, server.Options{}, testConcurrentRequestsCorrelated)
}

func testConcurrentRequestsCorrelated(t *testing.T, tp topology) {
	ctx := testCtx(t)
	servertest.NewComputer(t, tp.at(0), "o1", "pc", servertest.Handlers{
		protocol.EventGetFinder: func(_ context.Context, raw json.RawMessage) (any, error) {
			var req protocol.GetFinderReq
			if err := json.Unmarshal(raw, &req); err != nil {
				return nil, err
			}
			time.Sleep(time.Duration(rand.IntN(5000)) * time.Microsecond)
			return protocol.GetFinderRet{
				Documents:  []protocol.DPEDocumentSummary{{Title: req.Keywords[0]}},
				TotalCount: *req.Offset, ReqID: req.ReqID,
			}, nil
		},
	})
	a := newAgent(t, tp.at(1), "bot", agent.Handlers{})
	if err := a.JoinOffice(ctx, "o1"); err != nil {
		t.Fatal(err)
	}
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			kw := fmt.Sprintf("kw-%03d", i)
			ret, err := a.GetFinder(ctx, "pc", agent.FinderQuery{Keywords: []string{kw}, Offset: i + 1})
			switch {
			case err != nil:
				errs <- fmt.Errorf("request %d: %w", i, err)
			case len(ret.Documents) != 1 || ret.Documents[0].Title != kw || ret.TotalCount != i+1:
				errs <- fmt.Errorf("request %d got the answer to another: %+v", i, ret)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestNotificationsStayInTheirOffice checks that each server:update_* and
// tool_call_cancel reaches the rest of the sender's office only: not the
// sender, not another office.
func TestNotificationsStayInTheirOffice(t *testing.T) {
	eachTopology(t, server.Options{}, testNotificationsStayInTheirOffice)
}

func testNotificationsStayInTheirOffice(t *testing.T, tp topology) {
	ctx := testCtx(t)
	a1In, a2In, c1In, c2In, c3In := newInbox(t), newInbox(t), newInbox(t), newInbox(t), newInbox(t)
	c1 := servertest.NewComputer(t, tp.at(0), "o1", "pc1", nil)
	listenAll(c1.Conn, c1In)
	c2 := servertest.NewComputer(t, tp.at(1), "o1", "pc2", nil)
	listenAll(c2.Conn, c2In)
	c1In.expect(`notify:enter_office {"computer":"pc2","office_id":"o1"}`)
	c3 := servertest.NewComputer(t, tp.at(0), "o2", "pc3", nil)
	listenAll(c3.Conn, c3In)
	a1 := newAgent(t, tp.at(1), "bot1", agentHandlers(a1In))
	a2 := newAgent(t, tp.at(0), "bot2", agentHandlers(a2In))
	if err := a1.JoinOffice(ctx, "o1"); err != nil {
		t.Fatal(err)
	}
	c1In.expect(`notify:enter_office {"agent":"bot1","office_id":"o1"}`)
	c2In.expect(`notify:enter_office {"agent":"bot1","office_id":"o1"}`)
	if err := a2.JoinOffice(ctx, "o2"); err != nil {
		t.Fatal(err)
	}
	c3In.expect(`notify:enter_office {"agent":"bot2","office_id":"o2"}`)

	for _, ev := range []string{protocol.EventUpdateConfig, protocol.EventUpdateToolList, protocol.EventUpdateDesktop, protocol.EventUpdateFinder} {
		notify, _ := protocol.NotificationFor(ev)
		if err := c1.Update(ctx, ev); err != nil {
			t.Fatalf("%s: %v", ev, err)
		}
		a1In.expect(notify + ` {"computer":"pc1"}`)
		c2In.expect(notify + ` {"computer":"pc1"}`)
		// Markers sent afterwards: if pc1 or office o2 had been sent the
		// notification, it would arrive before the marker.
		if err := c2.Update(ctx, ev); err != nil {
			t.Fatal(err)
		}
		c1In.expect(notify + ` {"computer":"pc2"}`)
		a1In.expect(notify + ` {"computer":"pc2"}`)
		if err := c3.Update(ctx, ev); err != nil {
			t.Fatal(err)
		}
		a2In.expect(notify + ` {"computer":"pc3"}`)
	}

	if err := a1.CancelToolCall(ctx, "req-42"); err != nil {
		t.Fatal(err)
	}
	c1In.expect(`notify:tool_call_cancel {"agent":"bot1","req_id":"req-42"}`)
	c2In.expect(`notify:tool_call_cancel {"agent":"bot1","req_id":"req-42"}`)
	if err := a2.CancelToolCall(ctx, "req-43"); err != nil {
		t.Fatal(err)
	}
	c3In.expect(`notify:tool_call_cancel {"agent":"bot2","req_id":"req-43"}`)
	// Anything misrouted would have arrived before these markers.
	for _, in := range []*inbox{a1In, a2In, c1In, c2In, c3In} {
		in.empty()
	}
}

// TestGracefulShutdown stops a server holding an office and a request in
// flight: Serve returns, the request fails at once instead of hanging,
// the agent starts reconnecting and new connections are refused.
func TestGracefulShutdown(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	ctx := testCtx(t)
	started := make(chan struct{}, 1)
	servertest.NewComputer(t, srv.URL, "o1", "slow", servertest.Handlers{
		protocol.EventGetTools: func(ctx context.Context, _ json.RawMessage) (any, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		},
	})
	states := make(chan agent.State, 16)
	a := newAgent(t, srv.URL, "bot", agent.Handlers{State: func(s agent.State) { states <- s }})
	if err := a.JoinOffice(ctx, "o1"); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { _, err := a.GetTools(ctx, "slow"); errc <- err }()
	<-started
	if err := srv.Stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	err := <-errc
	if err == nil {
		t.Fatal("request in flight succeeded after shutdown")
	}
	if !errors.Is(err, agent.ErrNotConnected) && protocol.CodeOf(err) != protocol.CodeNotFound {
		t.Fatalf("request in flight: %v, want a lost connection or 404", err)
	}
	for s := range states {
		if s == agent.StateReconnecting {
			break
		}
	}
	if _, err := a.GetTools(ctx, "slow"); !errors.Is(err, agent.ErrNotConnected) {
		t.Fatalf("request while disconnected: %v, want ErrNotConnected", err)
	}
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if c, err := sio.Dial(dctx, sio.Options{URL: srv.URL}); err == nil {
		_ = c.Close()
		t.Fatal("a stopped server accepted a connection")
	}
}

// TestReconnectRejoins restarts the server on the same port: the agent
// and the computer reconnect, re-join their office by themselves and
// requests work again.
func TestReconnectRejoins(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	ctx := testCtx(t)
	servertest.NewComputer(t, srv.URL, "o1", "pc", servertest.Handlers{
		protocol.EventGetFinder: servertest.Finder(protocol.DPEDocumentSummary{Title: "report"}),
	})
	states := make(chan agent.State, 16)
	a := newAgent(t, srv.URL, "bot", agent.Handlers{State: func(s agent.State) { states <- s }})
	if err := a.JoinOffice(ctx, "o1"); err != nil {
		t.Fatal(err)
	}
	waitState := func(want agent.State) {
		t.Helper()
		for {
			select {
			case s := <-states:
				if s == want {
					return
				}
			case <-time.After(wait):
				t.Fatalf("state %s never came (now %s)", want, a.State())
			}
		}
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	waitState(agent.StateReconnecting)
	servertest.StartAt(t, srv.Addr, server.Options{})
	waitState(agent.StateConnected)

	var list []protocol.SessionInfo
	var err error
	if !testutil.WaitUntil(wait, func() bool {
		list, err = a.ListRoom(ctx)
		return err == nil && names(list) == "agent:bot@o1/0.4.0 computer:pc@o1/0.4.0"
	}) {
		t.Fatalf("office not re-joined: %s %v", names(list), err)
	}
	ret, err := a.GetFinder(ctx, "pc", agent.FinderQuery{})
	if err != nil || len(ret.Documents) != 1 || ret.Documents[0].Title != "report" {
		t.Fatalf("get_finder after the restart: %+v %v", ret, err)
	}
	if a.Office() != "o1" {
		t.Fatalf("Office() = %q", a.Office())
	}
}

// TestConnectChurn connects, joins and disconnects many times in a row.
// It guards the fixes for the Socket.IO library's start-up races (a
// client's first packets lost or refused as out of order), which made
// about one connection in fifty hang before.
func TestConnectChurn(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	for i := range 200 {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		c, err := sio.Dial(ctx, sio.Options{URL: srv.URL, Logger: servertest.Logger()})
		if err != nil {
			cancel()
			t.Fatalf("connection %d: %v", i, err)
		}
		_, err = c.Call(ctx, protocol.EventJoinOffice, protocol.EnterOfficeReq{
			Role: protocol.RoleComputer, Name: fmt.Sprint("pc", i), OfficeID: "churn",
		})
		_ = c.Close()
		cancel()
		if err != nil {
			t.Fatalf("connection %d: join: %v", i, err)
		}
	}
}

// TestEmptyAckIsNotSupported checks that a computer acking a request with
// no value (what python-socketio does for an event it has no handler for,
// e.g. client:get_finder on the official SDK's Computer) reaches the agent
// at once as a 404 saying the event is not supported there.
func TestEmptyAckIsNotSupported(t *testing.T) {
	eachTopology(t, server.Options{}, testEmptyAckIsNotSupported)
}

func testEmptyAckIsNotSupported(t *testing.T, tp topology) {
	ctx := testCtx(t)
	empty := func(context.Context, json.RawMessage) (any, error) { return nil, nil }
	servertest.NewComputer(t, tp.at(0), "o1", "pc", servertest.Handlers{
		protocol.EventGetFinder:    empty,
		protocol.EventReadResource: empty,
	})
	bot := dial(t, tp.at(1))
	join(t, bot, protocol.RoleAgent, "bot", "o1")
	for _, ev := range []string{protocol.EventGetFinder, protocol.EventReadResource} {
		_, err := bot.Call(ctx, ev, map[string]any{"agent": "bot", "req_id": "r1", "computer": "pc", "uri": "dpe://h/"})
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.CodeNotFound {
			t.Fatalf("%s: got %v, want a 404 protocol error", ev, err)
		}
		if !strings.Contains(pe.Message, ev+" is not supported by computer 'pc'") || pe.Details["reason"] != "empty_ack" || pe.Details["event"] != ev {
			t.Errorf("%s: error %q details %v", ev, pe.Message, pe.Details)
		}
	}
}
