package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// TestTrickledBodyIsCut posts to a polling session a body that arrives
// one byte at a time: the Server cuts the request off after
// BodyReadTimeout instead of holding the connection for as long as the
// client cares to trickle.
func TestTrickledBodyIsCut(t *testing.T) {
	srv := servertest.Start(t, server.Options{BodyReadTimeout: 300 * time.Millisecond})
	p := openPollRaw(t, srv.URL)
	u, _ := url.Parse(p.url)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n", u.RequestURI(), u.Host)
	cut := make(chan struct{})
	go func() {
		defer close(cut)
		_, _ = io.Copy(io.Discard, conn) // until the server answers and closes
	}()
	for i := 0; ; i++ {
		select {
		case <-cut:
			return
		case <-time.After(100 * time.Millisecond):
		}
		if time.Duration(i)*100*time.Millisecond > wait {
			t.Fatalf("the server still reads a body trickled for %s", wait)
		}
		if _, err := conn.Write([]byte("4")); err != nil {
			return // closed by the server
		}
	}
}

// TestSessionLimit fills the Server up to MaxSessions; the next handshake
// is refused with 429 and a message saying why, and a client says so.
func TestSessionLimit(t *testing.T) {
	srv := servertest.Start(t, server.Options{MaxSessions: 3})
	for range 3 {
		openPollRaw(t, srv.URL)
	}
	resp, err := http.Get(srv.URL + "/socket.io/?EIO=4&transport=polling&a2c_version=" + protocol.Version)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	pe, ok := protocol.DecodeError(body)
	if resp.StatusCode != http.StatusTooManyRequests || !ok || pe.Code != protocol.CodeTooManyRequests || !strings.Contains(pe.Message, "limit 3") {
		t.Fatalf("handshake over the limit answered %d %s", resp.StatusCode, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, err = sio.Dial(ctx, sio.Options{URL: srv.URL})
	if protocol.CodeOf(err) != protocol.CodeTooManyRequests || !strings.Contains(err.Error(), "server full") {
		t.Fatalf("client over the limit: %v", err)
	}
}

// TestDefaultNamespaceIsRefused: a CONNECT to the default namespace "/",
// which every Socket.IO server has and admits, is refused and the session
// closed; nothing is served there.
func TestDefaultNamespaceIsRefused(t *testing.T) {
	srv := servertest.Start(t, server.Options{Token: "s3cret"})
	ws := rawWS(t, srv.URL)
	wsSend(t, ws, "0")
	got := wsWaitFor(t, ws, "4")
	if !strings.Contains(got, "namespace / is not served") {
		t.Fatalf("CONNECT to / answered %s", got)
	}
	wsClosedByServer(t, ws)
}

// TestSessionWithoutNamespaceIsClosed: with --token, a session that never
// sends an accepted CONNECT (no token, nothing at all) is closed after
// ConnectTimeout instead of being held.
func TestSessionWithoutNamespaceIsClosed(t *testing.T) {
	srv := servertest.Start(t, server.Options{Token: "s3cret", ConnectTimeout: 300 * time.Millisecond})
	ws := rawWS(t, srv.URL)
	wsClosedByServer(t, ws)
	waitSessions(t, srv.Srv, 0)
	if n := server.EngineSessions(srv.Srv); n != 0 {
		t.Fatalf("%d engine sessions left", n)
	}
}

// silent is a client:* handler that never answers before the test ends.
func silent(t *testing.T) sio.Handler {
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	return func(ctx context.Context, _ json.RawMessage) (any, error) {
		select {
		case <-stop:
		case <-ctx.Done():
		}
		return nil, nil
	}
}

// burst sends n requests at once on c and returns the errors of those
// answered within a short while (the others wait on a silent computer).
func burst(t *testing.T, c *sio.Conn, n int, payload func(i int) any) []error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := c.Call(ctx, protocol.EventToolCall, payload(i))
			errs <- err
		}()
	}
	var got []error
	timeout := time.After(2 * time.Second)
	for {
		select {
		case err := <-errs:
			got = append(got, err)
		case <-timeout:
			return got
		}
	}
}

// TestInFlightLimits: requests waiting for a computer are bounded per
// connection and over the Server; one over a limit is answered 429 at once.
func TestInFlightLimits(t *testing.T) {
	t.Parallel() // mostly waiting (for answers that never come, timeouts, Redis)
	eachTopology(t, server.Options{MaxInFlightConn: 3, MaxInFlight: 5}, testInFlightLimits)
}

func testInFlightLimits(t *testing.T, tp topology) {
	for _, office := range []string{"o1", "o2"} {
		servertest.NewComputer(t, tp.at(0), office, "pc", servertest.Handlers{protocol.EventToolCall: silent(t)})
	}
	a, b := dial(t, tp.at(1)), dial(t, tp.at(1))
	join(t, a, protocol.RoleAgent, "a", "o1")
	join(t, b, protocol.RoleAgent, "b", "o2")
	call := func(i int) any {
		return protocol.ToolCallReq{Agent: "x", ReqID: fmt.Sprint("r", i), Computer: "pc", ToolName: "t", Params: map[string]any{}}
	}
	refused := func(errs []error, want int, what string) {
		t.Helper()
		n := 0
		for _, err := range errs {
			if protocol.CodeOf(err) != protocol.CodeTooManyRequests {
				t.Fatalf("%s: answered %v, want only 429s", what, err)
			}
			n++
		}
		if n != want {
			t.Fatalf("%s: %d requests refused, want %d", what, n, want)
		}
	}
	refused(burst(t, a, 4, call), 1, "4 requests on a connection limited to 3")
	refused(burst(t, b, 3, call), 1, "3 more with 3 of 5 in flight on the Server")
}

// TestDuplicateToolCallIsRefused: a second client:tool_call with the
// req_id of one still in flight from the same agent is refused (the older
// one could no longer be told apart or cancelled).
func TestDuplicateToolCallIsRefused(t *testing.T) {
	t.Parallel() // mostly waiting (for answers that never come, timeouts, Redis)
	eachTopology(t, server.Options{}, testDuplicateToolCallIsRefused)
}

func testDuplicateToolCallIsRefused(t *testing.T, tp topology) {
	servertest.NewComputer(t, tp.at(0), "o1", "pc", servertest.Handlers{protocol.EventToolCall: silent(t)})
	a := dial(t, tp.at(1))
	join(t, a, protocol.RoleAgent, "a", "o1")
	errs := burst(t, a, 2, func(int) any {
		return protocol.ToolCallReq{Agent: "a", ReqID: "same", Computer: "pc", ToolName: "t", Params: map[string]any{}}
	})
	if len(errs) != 1 || protocol.CodeOf(errs[0]) != protocol.CodeBadRequest || !strings.Contains(errs[0].Error(), `req_id "same" is already in flight`) {
		t.Fatalf("two tool calls with one req_id answered %v", errs)
	}
}

// TestSenderIsStamped: whatever a request says its agent is (in any case
// or escape, duplicated), the computer receives the name the sender
// joined with.
func TestSenderIsStamped(t *testing.T) { eachTopology(t, server.Options{}, testSenderIsStamped) }

func testSenderIsStamped(t *testing.T, tp topology) {
	servertest.NewComputer(t, tp.at(0), "o1", "pc", servertest.Handlers{protocol.EventGetTools: echo(protocol.EventGetTools)})
	alice := dial(t, tp.at(1))
	join(t, alice, protocol.RoleAgent, "alice", "o1")
	for _, payload := range []string{
		`{"agent":"bob","req_id":"1","computer":"pc"}`,
		`{"req_id":"2","computer":"pc"}`,
		`{"agent":"alice","Agent":"bob","req_id":"3","computer":"pc"}`,
		`{"agent":"alice","req_id":"4","computer":"pc","\u0061gent":"bob"}`,
	} {
		raw, err := alice.Call(testCtx(t), protocol.EventGetTools, json.RawMessage(payload))
		if err != nil {
			t.Fatal(err)
		}
		var ans struct {
			Got map[string]any `json:"got"`
		}
		if err := json.Unmarshal(raw, &ans); err != nil {
			t.Fatal(err)
		}
		var agents []string
		for k, v := range ans.Got {
			if strings.EqualFold(k, "agent") {
				agents = append(agents, fmt.Sprint(k, "=", v))
			}
		}
		if len(agents) != 1 || agents[0] != "agent=alice" {
			t.Errorf("sent %s, the computer got agent %v", payload, agents)
		}
	}
}

// TestLongInputIsNotEchoed: errors quote a client's huge strings (a
// computer name, an event, a version) shortened, not whole.
func TestLongInputIsNotEchoed(t *testing.T) {
	eachTopology(t, server.Options{}, testLongInputIsNotEchoed)
}

func testLongInputIsNotEchoed(t *testing.T, tp topology) {
	a := dial(t, tp.at(1))
	join(t, a, protocol.RoleAgent, "a", "o1")
	huge := strings.Repeat("x", 100_000)
	for _, tc := range []struct{ event, computer string }{
		{protocol.EventGetTools, huge},
		{"client:" + huge, "pc"},
		{"server:" + huge, "pc"},
	} {
		_, err := a.Call(testCtx(t), tc.event, protocol.ComputerCall{Agent: "a", ReqID: "1", Computer: tc.computer})
		if err == nil || len(err.Error()) > 1000 {
			t.Errorf("error of %d bytes: %.200v", len(fmt.Sprint(err)), err)
		}
	}
	resp, err := http.Get(tp.at(0) + "/socket.io/?EIO=4&transport=polling&a2c_version=0.4." + strings.Repeat("9", 50_000))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(bufio.NewReader(resp.Body))
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || len(body) > 1000 {
		t.Errorf("a 50 kB version answered %d with %d bytes", resp.StatusCode, len(body))
	}
}
