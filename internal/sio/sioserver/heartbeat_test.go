package sioserver

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// The heartbeat of the tests below: pings every 100 ms, so that many take
// a few seconds, and a timeout long enough for a loaded machine's client
// to answer (the race needs an answer before the engine arms its timer,
// not a fast one; a 100 ms timeout failed once beside make test's other
// packages). A pong taken for the ping before still closes the session
// one timeout later, well inside the run.
const (
	testPingInterval = 100 * time.Millisecond
	testPingTimeout  = 500 * time.Millisecond
	testPingCycles   = 12
)

// TestPongRightBehindThePingKeepsTheSession answers every ping at once,
// as a client in the same process does. The engine sends a ping and only
// then arms its wait for the pong; a pong handled in between was taken
// for the answer to the ping before, and the session was closed on "ping
// timeout" one pingTimeout later, although the client had answered every
// ping (the demo's own agent and computer were dropped every minute).
func TestPongRightBehindThePingKeepsTheSession(t *testing.T) {
	es, gone := startHeartbeatEcho(t)
	c := dialWS(t, es.url, nil, true)
	checkHeartbeatHolds(t, c.ws, gone)
}

// TestPongRightBehindThePingAfterUpgrade is the same for a session that
// starts on polling and upgrades to WebSocket, as the npm and Python
// Socket.IO clients do by default: its WebSocket is the library's own
// transport, which the gate does not wrap.
func TestPongRightBehindThePingAfterUpgrade(t *testing.T) {
	es, gone := startHeartbeatEcho(t)
	pollURL := "http" + strings.TrimPrefix(strings.TrimSuffix(es.url, "websocket"), "ws") + "polling"
	open := pollOnce(t, http.MethodGet, pollURL, "")
	var hs struct{ Sid string }
	if !strings.HasPrefix(open, "0") || json.Unmarshal([]byte(open[1:]), &hs) != nil || hs.Sid == "" {
		t.Fatalf("polling handshake answered %q", open)
	}
	pollURL += "&sid=" + hs.Sid
	pollOnce(t, http.MethodPost, pollURL, "40"+ns+",")
	if got := pollOnce(t, http.MethodGet, pollURL, ""); !strings.Contains(got, "40"+ns+",{") {
		t.Fatalf("CONNECT over polling answered %q", got)
	}
	ws, _, err := (&websocket.Dialer{HandshakeTimeout: testWait}).Dial(es.url+"&sid="+hs.Sid, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	c := &wsClient{t: t, ws: ws}
	c.send("2probe")
	if got := c.read(); got != "3probe" {
		t.Fatalf("probe answered %q", got)
	}
	c.send("5") // upgrade
	checkHeartbeatHolds(t, ws, gone)
}

// startHeartbeatEcho starts an echo server with the tests' heartbeat; the
// reason of the first disconnection arrives on the channel.
func startHeartbeatEcho(t *testing.T) (*echoServer, <-chan string) {
	gone := make(chan string, 1)
	es := startEcho(t, ServerOptions{PingInterval: testPingInterval, PingTimeout: testPingTimeout}, func(s *Socket) {
		s.OnDisconnect(func(reason string) {
			select {
			case gone <- reason:
			default: // the first is the one that counts
			}
		})
	})
	return es, gone
}

// pollOnce sends one polling request and returns the answer's body.
func pollOnce(t *testing.T, method, url, body string) string {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Timeout: testWait}).Do(req)
	if err != nil {
		t.Fatalf("%s poll: %v", method, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s poll: %v", method, err)
	}
	return string(b)
}

// checkHeartbeatHolds answers every ping on ws the moment it arrives for
// testPingCycles heartbeat periods, and fails if the session is closed
// (its reason arrives on gone) or too few pings came to tell.
func checkHeartbeatHolds(t *testing.T, ws *websocket.Conn, gone <-chan string) {
	t.Helper()
	pings := make(chan int, 1)
	go func() {
		n := 0
		defer func() { pings <- n }()
		for {
			_, msg, err := ws.ReadMessage()
			if err != nil {
				return
			}
			if string(msg) == "2" {
				n++
				if ws.WriteMessage(websocket.TextMessage, []byte("3")) != nil {
					return
				}
			}
		}
	}()
	select {
	case reason := <-gone:
		t.Fatalf("the session that answered every ping at once was closed: %q", reason)
	case <-time.After(testPingCycles * (testPingInterval + testPingTimeout)):
	}
	_ = ws.Close()
	if n := <-pings; n < testPingCycles/4 {
		t.Fatalf("the server sent %d pings in %d heartbeat periods; the test checked too little", n, testPingCycles)
	}
}
