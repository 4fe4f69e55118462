package sio_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

const wait = 10 * time.Second

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*wait)
	t.Cleanup(cancel)
	return ctx
}

func dial(t *testing.T, url string) *sio.Conn {
	t.Helper()
	c, err := sio.Dial(testCtx(t), sio.Options{
		URL: url, Logger: servertest.Logger(),
		ReconnectMin: 20 * time.Millisecond, ReconnectMax: 200 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// agentIn dials a connection that joined office as agent "bot".
func agentIn(t *testing.T, url, office string) *sio.Conn {
	t.Helper()
	c := dial(t, url)
	if _, err := c.Call(testCtx(t), protocol.EventJoinOffice, protocol.EnterOfficeReq{Role: "agent", Name: "bot", OfficeID: office}); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestDecodeAck(t *testing.T) {
	tests := []struct {
		name string
		args []any
		want string // JSON result, or "error CODE message"
	}{
		{"empty ack", []any{}, "null"},
		{"legacy success", []any{true, nil}, "null"},
		{"legacy success with value", []any{true, map[string]any{"a": 1.0}}, `{"a":1}`},
		{"legacy failure", []any{false, "Room already has an agent"}, "error 400 Room already has an agent"},
		{"legacy failure without message", []any{false, nil}, "error 400 request refused"},
		{"tuple failure with error payload", []any{false, "name taken", map[string]any{"code": 4105.0, "message": "name 'pc' is taken"}}, "error 4105 name 'pc' is taken"},
		{"tuple failure with a third value that is no error", []any{false, "refused", "x"}, "error 400 refused"},
		{"four values are no tuple", []any{false, "a", "b", "c"}, "false"},
		{"flat error", []any{map[string]any{"code": 4101.0, "message": "full"}}, "error 4101 full"},
		{"nested error", []any{map[string]any{"error": map[string]any{"code": 404.0, "message": "Computer 'x' not found"}}}, "error 404 Computer 'x' not found"},
		{"code that is not a number", []any{map[string]any{"code": "E1", "message": "m"}}, `{"code":"E1","message":"m"}`},
		{"result", []any{map[string]any{"documents": []any{}, "total_count": 0.0}}, `{"documents":[],"total_count":0}`},
		{"scalar", []any{5.0}, "5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := sio.DecodeAck(tt.args)
			got := string(raw)
			if err != nil {
				var pe *protocol.Error
				if !errors.As(err, &pe) {
					t.Fatalf("error %v is not a *protocol.Error", err)
				}
				got = fmt.Sprintf("error %d %s", pe.Code, pe.Message)
			}
			if got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// TestHandlerAnswers checks how a Handle'd handler's outcome reaches the
// caller through the real server.
func TestHandlerAnswers(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	ctx := testCtx(t)
	servertest.NewComputer(t, srv.URL, "o1", "pc", servertest.Handlers{
		protocol.EventGetTools: servertest.Reply(protocol.GetToolsRet{ReqID: "v"}),
		protocol.EventReadResource: func(context.Context, json.RawMessage) (any, error) {
			return nil, protocol.Errorf(protocol.CodeDocumentNotFound, "document rpt-2026 not found").
				WithDetails(map[string]any{"doc_ref": "rpt-2026"})
		},
		protocol.EventGetConfig: func(context.Context, json.RawMessage) (any, error) {
			return nil, errors.New("config file unreadable")
		},
		protocol.EventGetFinder: func(context.Context, json.RawMessage) (any, error) {
			panic("boom")
		},
		protocol.EventListFinder: func(context.Context, json.RawMessage) (any, error) { return nil, nil },
		protocol.EventToolCall: func(context.Context, json.RawMessage) (any, error) {
			return map[string]any{"bad": func() {}}, nil // cannot be encoded
		},
	})
	bot := agentIn(t, srv.URL, "o1")
	call := func(ev string) (json.RawMessage, error) {
		return bot.Call(ctx, ev, map[string]any{"agent": "bot", "req_id": "1", "computer": "pc", "tool_name": "t"})
	}

	// The answer arrives byte for byte as the computer encoded it: no one
	// on the way decodes and re-encodes it (field order kept).
	if raw, err := call(protocol.EventGetTools); err != nil || string(raw) != `{"tools":null,"req_id":"v"}` {
		t.Errorf("value: %s %v", raw, err)
	}
	_, err := call(protocol.EventReadResource)
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != 4201 || pe.Details["doc_ref"] != "rpt-2026" {
		t.Errorf("protocol error: %v (details %v)", err, pe)
	}
	if _, err := call(protocol.EventGetConfig); protocol.CodeOf(err) != 500 || !strings.Contains(err.Error(), "config file unreadable") {
		t.Errorf("plain error: %v", err)
	}
	if _, err := call(protocol.EventGetFinder); protocol.CodeOf(err) != 500 {
		t.Errorf("panic: %v", err)
	}
	// A nil answer goes out as an empty ack, which the server reports as
	// the event not being supported by the computer.
	if _, err := call(protocol.EventListFinder); protocol.CodeOf(err) != 404 || !strings.Contains(err.Error(), "empty acknowledgement") {
		t.Errorf("nil answer: %v", err)
	}
	if _, err := call(protocol.EventToolCall); protocol.CodeOf(err) != 500 || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("unencodable answer: %v", err)
	}
	if _, err := call(protocol.EventGetDesktop); protocol.CodeOf(err) != 404 || !strings.Contains(err.Error(), "not handled") {
		t.Errorf("event without handler: %v", err)
	}
	// The computer survived the panic.
	if _, err := call(protocol.EventGetTools); err != nil {
		t.Errorf("after the panic: %v", err)
	}
}

// TestHandlersRunConcurrently checks that a slow handler does not hold up
// the next request.
func TestHandlersRunConcurrently(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	ctx := testCtx(t)
	release := make(chan struct{})
	servertest.NewComputer(t, srv.URL, "o1", "pc", servertest.Handlers{
		protocol.EventGetTools: func(ctx context.Context, raw json.RawMessage) (any, error) {
			var req protocol.ComputerCall
			_ = json.Unmarshal(raw, &req)
			if req.ReqID == "slow" {
				<-release
			}
			return protocol.GetToolsRet{ReqID: req.ReqID}, nil
		},
	})
	bot := agentIn(t, srv.URL, "o1")
	slow := make(chan error, 1)
	go func() {
		_, err := bot.Call(ctx, protocol.EventGetTools, protocol.ComputerCall{Agent: "bot", ReqID: "slow", Computer: "pc"})
		slow <- err
	}()
	raw, err := bot.Call(ctx, protocol.EventGetTools, protocol.ComputerCall{Agent: "bot", ReqID: "fast", Computer: "pc"})
	if err != nil || !strings.Contains(string(raw), `"req_id":"fast"`) {
		t.Fatalf("fast request behind a slow one: %s %v", raw, err)
	}
	close(release)
	if err := <-slow; err != nil {
		t.Fatal(err)
	}
}

// TestCallDeadline checks the local timeout: a 408 *protocol.Error, and
// the connection still usable.
func TestCallDeadline(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	servertest.NewComputer(t, srv.URL, "o1", "pc", servertest.Handlers{
		protocol.EventGetTools: func(ctx context.Context, _ json.RawMessage) (any, error) {
			<-ctx.Done()
			return nil, nil
		},
		protocol.EventGetConfig: servertest.Reply(protocol.GetComputerConfigRet{}),
	})
	bot := agentIn(t, srv.URL, "o1")
	ctx, cancel := context.WithTimeout(testCtx(t), 200*time.Millisecond)
	defer cancel()
	_, err := bot.Call(ctx, protocol.EventGetTools, protocol.ComputerCall{Agent: "bot", ReqID: "1", Computer: "pc"})
	if protocol.CodeOf(err) != protocol.CodeTimeout || !strings.Contains(err.Error(), "no answer within") {
		t.Fatalf("err %v, want a local 408", err)
	}
	cctx, ccancel := context.WithCancel(testCtx(t))
	ccancel()
	if _, err := bot.Call(cctx, protocol.EventGetConfig, protocol.ComputerCall{Agent: "bot", ReqID: "2", Computer: "pc"}); protocol.CodeOf(err) != protocol.CodeTimeout && !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
	if _, err := bot.Call(testCtx(t), protocol.EventGetConfig, protocol.ComputerCall{Agent: "bot", ReqID: "3", Computer: "pc"}); err != nil {
		t.Fatalf("after the timeout: %v", err)
	}
}

// A call whose context is already done is refused before the connection
// is used: nothing is sent, so no answer can come back and be returned as
// if the caller still waited for it (TestCallDeadline's cancelled call
// returned the computer's answer that way under load).
func TestCallWithDoneContextIsNotSent(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	c := dial(t, srv.URL)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(testCtx(t))
	cancel()
	_, err := c.Call(ctx, protocol.EventGetConfig, protocol.ComputerCall{Agent: "bot", ReqID: "1", Computer: "pc"})
	if !errors.Is(err, context.Canceled) || errors.Is(err, sio.ErrClosed) {
		t.Fatalf("err %v, want the context's cancellation before any use of the connection", err)
	}
}

// TestListenDeliversInOrder relays 200 cancellations and checks they reach
// the listener one at a time, in order.
func TestListenDeliversInOrder(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	pc := servertest.NewComputer(t, srv.URL, "o1", "pc", nil)
	const n = 200
	got := make(chan string, n)
	var inside sync.Mutex
	pc.Conn.Listen(protocol.NotifyToolCallCancel, func(raw json.RawMessage) {
		if !inside.TryLock() {
			t.Error("listener called while another call was running")
			return
		}
		defer inside.Unlock()
		var c protocol.AgentCallData
		_ = json.Unmarshal(raw, &c)
		time.Sleep(100 * time.Microsecond)
		got <- c.ReqID
	})
	bot := agentIn(t, srv.URL, "o1")
	for i := range n {
		if err := bot.Emit(protocol.EventToolCallCancel, protocol.AgentCallData{Agent: "bot", ReqID: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		select {
		case id := <-got:
			if id != fmt.Sprint(i) {
				t.Fatalf("notification %d carried req_id %s", i, id)
			}
		case <-time.After(wait):
			t.Fatalf("only %d of %d notifications arrived", i, n)
		}
	}
}

// TestReconnect checks the states, the reconnect callback and that calls
// fail fast while disconnected.
func TestReconnect(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	c := dial(t, srv.URL)
	states := make(chan sio.State, 16)
	c.OnState(func(s sio.State) { states <- s })
	reconnected := make(chan string, 4)
	c.OnReconnect(func(ctx context.Context) {
		_, err := c.Call(ctx, protocol.EventJoinOffice, protocol.EnterOfficeReq{Role: "computer", Name: "pc", OfficeID: "o1"})
		reconnected <- fmt.Sprint(err)
	})
	expect := func(want sio.State) {
		t.Helper()
		select {
		case s := <-states:
			if s != want {
				t.Fatalf("state %s, want %s", s, want)
			}
		case <-time.After(wait):
			t.Fatalf("state %s never came", want)
		}
	}
	if c.State() != sio.StateConnected {
		t.Fatalf("state after Dial: %s", c.State())
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	expect(sio.StateReconnecting)
	if _, err := c.Call(testCtx(t), protocol.EventListRoom, protocol.ListRoomReq{}); !errors.Is(err, sio.ErrNotConnected) {
		t.Fatalf("call while reconnecting: %v", err)
	}
	if err := c.Emit(protocol.EventUpdateFinder, protocol.UpdateComputerConfigReq{}); !errors.Is(err, sio.ErrNotConnected) {
		t.Fatalf("emit while reconnecting: %v", err)
	}
	servertest.StartAt(t, srv.Addr, server.Options{})
	expect(sio.StateConnected)
	select {
	case err := <-reconnected:
		if err != "<nil>" {
			t.Fatalf("re-join in the reconnect callback: %s", err)
		}
	case <-time.After(wait):
		t.Fatal("reconnect callback not called")
	}
	_ = c.Close()
	expect(sio.StateClosed)
	if _, err := c.Call(testCtx(t), protocol.EventListRoom, protocol.ListRoomReq{}); !errors.Is(err, sio.ErrClosed) {
		t.Fatalf("call after Close: %v", err)
	}
}

// TestStateNeverWaitsForAReconnectCallback: a connection that drops again
// while its reconnect callback is still busy (an agent re-joining its office
// through a node that is itself about to drop it) reports Reconnecting at
// once. The state callbacks once shared the callbacks' queue, and the
// agent's state (and the TUI's status line) said "connected" for as long as
// the re-join kept trying, up to 90 s.
func TestStateNeverWaitsForAReconnectCallback(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	c := dial(t, srv.URL)
	states := make(chan sio.State, 16)
	c.OnState(func(s sio.State) { states <- s })
	inCallback, release := make(chan struct{}, 1), make(chan struct{})
	defer close(release)
	c.OnReconnect(func(ctx context.Context) {
		inCallback <- struct{}{}
		select { // a re-join that keeps trying
		case <-release:
		case <-ctx.Done():
		}
	})
	expect := func(want sio.State) {
		t.Helper()
		select {
		case s := <-states:
			if s != want {
				t.Fatalf("state %s, want %s", s, want)
			}
		case <-time.After(wait):
			t.Fatalf("state %s never came; the Conn says %s", want, c.State())
		}
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	expect(sio.StateReconnecting)
	srv2 := servertest.StartAt(t, srv.Addr, server.Options{})
	expect(sio.StateConnected)
	select {
	case <-inCallback:
	case <-time.After(wait):
		t.Fatal("reconnect callback not called")
	}
	if err := srv2.Stop(); err != nil { // while the callback is still busy
		t.Fatal(err)
	}
	expect(sio.StateReconnecting)
}

// TestRefusedReconnectGivesUp restarts the server with a token the client
// does not have: the client stops trying and closes.
func TestRefusedReconnectGivesUp(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	c := dial(t, srv.URL)
	states := make(chan sio.State, 16)
	c.OnState(func(s sio.State) { states <- s })
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	servertest.StartAt(t, srv.Addr, server.Options{Token: "new-secret"})
	for {
		select {
		case s := <-states:
			if s == sio.StateClosed {
				return
			}
		case <-time.After(wait):
			t.Fatalf("still %s after the server refused it", c.State())
		}
	}
}

func TestDialErrors(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	addr := srv.Addr
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, url, want string
	}{
		{"bad scheme", "ftp://example.com", "scheme must be"},
		{"no host", "http://", "no host"},
		{"nobody listening", "http://" + addr, "connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := sio.Dial(testCtx(t), sio.Options{URL: tt.url})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
			if protocol.CodeOf(err) != 0 {
				t.Errorf("a local failure carries protocol code %d", protocol.CodeOf(err))
			}
			if time.Since(start) > wait/2 {
				t.Errorf("took %s to fail", time.Since(start))
			}
		})
	}
}

func TestStateString(t *testing.T) {
	for s, want := range map[sio.State]string{
		sio.StateConnected: "connected", sio.StateReconnecting: "reconnecting",
		sio.StateClosed: "closed", sio.State(9): "State(9)",
	} {
		if s.String() != want {
			t.Errorf("%d: %q", int(s), s.String())
		}
	}
}

// TestDialBoundedWhenUpgradeHangs: a server that answers the polling
// handshake but never answers the WebSocket upgrade (a proxy holding it,
// say) fails the dial within its deadline instead of hanging.
func TestDialBoundedWhenUpgradeHangs(t *testing.T) {
	srv := server.New(server.Options{Logger: servertest.Logger()})
	var mu sync.Mutex
	var held []net.Conn
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			_ = c.Close()
		}
	})
	h := srv.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			h.ServeHTTP(w, r)
			return
		}
		c, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			mu.Lock()
			held = append(held, c) // never answered
			mu.Unlock()
		}
	}))
	t.Cleanup(hs.Close)
	t.Cleanup(srv.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		c, err := sio.Dial(ctx, sio.Options{URL: hs.URL, Logger: servertest.Logger()})
		if c != nil {
			_ = c.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if protocol.CodeOf(err) != protocol.CodeTimeout {
			t.Fatalf("dial against a hanging upgrade: %v, want a 408", err)
		}
		t.Logf("failed after %s", time.Since(start).Round(time.Millisecond))
	case <-time.After(wait):
		t.Fatalf("dial still hanging %s after its 2 s deadline", wait)
	}
}

// TestAnswerBytesPassThrough: a computer's answer reaches the agent's
// caller as the bytes the computer's encoder wrote — member order kept —
// so nothing on the way (the Server, the agent's connection) decoded it
// into a map and encoded it again. Together with the parser's test this
// is the count of the read path: one encode on the Computer, none on the
// Server, one decode by the caller (plus validating scans on each hop).
func TestAnswerBytesPassThrough(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	ctx := testCtx(t)
	page := strings.Repeat("Lorem ipsum dolor sit amet. ", 40_000) // ~1 MB
	body := `{"zeta":1,"contents":[{"uri":"dpe://h/d/pages/1","mimeType":"text/markdown","text":` + strconv.Quote(page) + `}],"alpha":{"b":2,"a":1}}`
	servertest.NewComputer(t, srv.URL, "o1", "pc", servertest.Handlers{
		protocol.EventReadResource: func(context.Context, json.RawMessage) (any, error) {
			return json.RawMessage(body), nil
		},
	})
	bot := agentIn(t, srv.URL, "o1")
	raw, err := bot.Call(ctx, protocol.EventReadResource, protocol.ReadResourceReq{Agent: "bot", ReqID: "1", Computer: "pc", URI: "dpe://h/d/pages/1"})
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != body {
		t.Fatalf("the answer was re-encoded on the way: got %.120s…, want %.120s…", raw, body)
	}
}

// TestCloseSendsNoCutShortAnswer checks that a handler cut short by Close
// (its context cancelled) cannot answer: the agent hears that the computer
// disconnected, never the value the handler returned as it was cancelled.
func TestCloseSendsNoCutShortAnswer(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	ctx := testCtx(t)
	const n = 20
	started := make(chan struct{}, n)
	cut := func(ctx context.Context, _ json.RawMessage) (any, error) {
		started <- struct{}{}
		<-ctx.Done()
		return protocol.GetToolsRet{ReqID: "cut short"}, nil
	}
	pcs := make([]*servertest.Computer, n)
	for i := range pcs {
		pcs[i] = servertest.NewComputer(t, srv.URL, "o1", fmt.Sprintf("pc%d", i), servertest.Handlers{protocol.EventGetTools: cut})
	}
	bot := agentIn(t, srv.URL, "o1")
	errs := make(chan error, n)
	for i := range pcs {
		go func() {
			raw, err := bot.Call(ctx, protocol.EventGetTools, protocol.ComputerCall{Agent: "bot", ReqID: "1", Computer: pcs[i].Name})
			if err == nil {
				err = fmt.Errorf("answered %s", raw)
			}
			errs <- err
		}()
	}
	for range pcs {
		<-started
	}
	for _, pc := range pcs {
		go func() { _ = pc.Conn.Close() }()
	}
	for range pcs {
		if err := <-errs; protocol.CodeOf(err) != protocol.CodeNotFound || !strings.Contains(err.Error(), "disconnected") {
			t.Errorf("request to a computer that closed: %v, want 404 disconnected", err)
		}
	}
}
