package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"golang.org/x/sys/unix"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// rawWS opens an engine.io session over a direct WebSocket, as a client
// that skips polling does, and returns it after the engine's open packet.
func rawWS(t *testing.T, base string) *websocket.Conn {
	t.Helper()
	ws, err := dialRawWS(base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	return ws
}

func dialRawWS(base string) (*websocket.Conn, error) {
	u := "ws" + strings.TrimPrefix(base, "http") + "/socket.io/?EIO=4&transport=websocket&a2c_version=" + protocol.Version
	d := websocket.Dialer{HandshakeTimeout: wait}
	ws, resp, err := d.Dial(u, nil)
	if err != nil {
		if resp != nil {
			body, _ := io.ReadAll(resp.Body)
			return nil, fmt.Errorf("websocket handshake: %w (HTTP %d %s)", err, resp.StatusCode, body)
		}
		return nil, fmt.Errorf("websocket handshake: %w", err)
	}
	_ = ws.SetReadDeadline(time.Now().Add(wait))
	_, open, err := ws.ReadMessage()
	if err != nil || !strings.HasPrefix(string(open), "0{") {
		_ = ws.Close()
		return nil, fmt.Errorf("open packet %q: %v", open, err)
	}
	return ws, nil
}

// wsSend writes engine.io messages ("4" + a Socket.IO packet).
func wsSend(t *testing.T, ws *websocket.Conn, packets ...string) {
	t.Helper()
	for _, p := range packets {
		if err := ws.WriteMessage(websocket.TextMessage, []byte("4"+p)); err != nil {
			t.Fatalf("write %q: %v", p, err)
		}
	}
}

// wsWaitFor reads until a Socket.IO packet starting with prefix arrives,
// answering the engine's pings; it fails the test when the session ends.
func wsWaitFor(t *testing.T, ws *websocket.Conn, prefix string) string {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(wait))
	for {
		_, msg, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("waiting for %q: %v", prefix, err)
		}
		switch s := string(msg); {
		case s == "2":
			_ = ws.WriteMessage(websocket.TextMessage, []byte("3"))
		case strings.HasPrefix(s, "4"+prefix):
			return s[1:]
		}
	}
}

// wsClosedByServer reads until the server closes the session (an engine.io
// close or the socket ending); a session still open after wait fails the
// test.
func wsClosedByServer(t *testing.T, ws *websocket.Conn) {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(wait))
	for {
		_, msg, err := ws.ReadMessage()
		if err != nil {
			var ne interface{ Timeout() bool }
			if ok := asTimeout(err, &ne); ok && ne.Timeout() {
				t.Fatalf("the server kept the session open for %s after an out-of-order packet (wedged)", wait)
			}
			return
		}
		if string(msg) == "1" {
			return
		}
		if string(msg) == "2" {
			_ = ws.WriteMessage(websocket.TextMessage, []byte("3"))
		}
	}
}

func asTimeout(err error, target *interface{ Timeout() bool }) bool {
	te, ok := err.(interface{ Timeout() bool })
	if ok {
		*target = te
	}
	return ok
}

// TestOutOfOrderPacketsCloseTheSessionCleanly sends the packets Socket.IO
// answers by closing the connection (a DISCONNECT for a namespace never
// connected, a second CONNECT, an event for a namespace not connected).
// The library closes from inside its decoder, which once re-entered the
// lenient decoder's lock and wedged the session for ever. The session must
// end, and the Server must forget it.
func TestOutOfOrderPacketsCloseTheSessionCleanly(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	cases := []struct {
		name    string
		packets []string
	}{
		{"41", []string{"1"}},
		{"41/x,", []string{"1/x,"}},
		{"double CONNECT", []string{"0/smcp,", "0/smcp,"}},
		{"event before CONNECT", []string{`2/smcp,1["server:list_room",{"office_id":"o"}]`}},
		{"DISCONNECT of /smcp before CONNECT", []string{"1/smcp,"}},
	}
	for _, tc := range cases {
		t.Run("websocket "+tc.name, func(t *testing.T) {
			ws := rawWS(t, srv.URL)
			wsSend(t, ws, tc.packets...)
			wsClosedByServer(t, ws)
		})
		t.Run("polling "+tc.name, func(t *testing.T) {
			p := openPollRaw(t, srv.URL)
			msgs := make([]string, len(tc.packets))
			for i, pkt := range tc.packets {
				msgs[i] = "4" + pkt
			}
			// The POST must come back (it once never did); the engine
			// answers 429 when the session closes under it.
			p.post(msgs...)
			p.waitClosed()
		})
	}
	waitSessions(t, srv.Srv, 0)
}

// TestConnectAndFirstEventTogether sends a namespace CONNECT and the first
// event without waiting for the CONNECT's answer, in one polling payload
// and as two back-to-back WebSocket messages: both are served, in order.
func TestConnectAndFirstEventTogether(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	join := func(i int) string {
		return fmt.Sprintf(`2/smcp,1["server:join_office",{"role":"agent","name":"a%d","office_id":"o%d"}]`, i, i)
	}
	t.Run("polling, one payload", func(t *testing.T) {
		for i := range 20 {
			p := openPollRaw(t, srv.URL)
			p.send("40/smcp,", "4"+join(i))
			p.waitFor("40/smcp,{")
			if got := p.waitFor("43/smcp,1"); got != "43/smcp,1[true,null]" {
				t.Fatalf("join answered %s", got)
			}
		}
	})
	t.Run("websocket, back to back", func(t *testing.T) {
		for i := 20; i < 40; i++ {
			ws := rawWS(t, srv.URL)
			wsSend(t, ws, "0/smcp,", join(i))
			wsWaitFor(t, ws, "0/smcp,{")
			if got := wsWaitFor(t, ws, "3/smcp,1"); got != "3/smcp,1[true,null]" {
				t.Fatalf("join answered %s", got)
			}
		}
	})
}

// openPollRaw starts a polling session without connecting a namespace.
func openPollRaw(t *testing.T, base string) *pollClient {
	t.Helper()
	hc := &http.Client{Timeout: wait}
	endpoint := base + "/socket.io/?EIO=4&transport=polling&a2c_version=" + protocol.Version
	resp, err := hc.Get(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	var open struct {
		SID string `json:"sid"`
	}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(string(body), "0")), &open); err != nil || open.SID == "" {
		t.Fatalf("handshake answer %q: %v", body, err)
	}
	return &pollClient{t: t, url: endpoint + "&sid=" + url.QueryEscape(open.SID), hc: hc}
}

// post posts packets and returns once the server answers, whatever the
// status.
func (p *pollClient) post(packets ...string) {
	p.t.Helper()
	resp, err := p.hc.Post(p.url, "text/plain;charset=UTF-8", strings.NewReader(strings.Join(packets, "\x1e")))
	if err != nil {
		p.t.Fatalf("POST: %v (the session is wedged)", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
}

// waitClosed polls until the server says the session is gone (a close
// packet or an unknown sid).
func (p *pollClient) waitClosed() {
	p.t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		resp, err := p.hc.Get(p.url)
		if err != nil {
			p.t.Fatalf("poll: %v (the session is wedged)", err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return
		}
		for _, pkt := range strings.Split(string(body), "\x1e") {
			if pkt == "1" {
				return
			}
		}
	}
	p.t.Fatal("the session is still open")
}

// waitSessions waits until the Server holds n sessions.
func waitSessions(t *testing.T, s *server.Server, n int) {
	t.Helper()
	var got int
	if !testutil.WaitUntil(wait, func() bool { got, _ = server.Counts(s); return got == n }) {
		t.Fatalf("the Server holds %d sessions, want %d", got, n)
	}
}

// TestServerOutlivesAFloodOfOutOfOrderPackets runs `smcp-browse server`
// with --token and a 256-file limit, opens 1,000 sessions that each send
// one out-of-order packet (no token needed for that) and hang up, and then
// expects an honest agent to connect and join. Every wedged session once
// kept its file descriptor, and the Server stopped accepting anyone.
func TestServerOutlivesAFloodOfOutOfOrderPackets(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 sessions against a child process")
	}
	proc := testutil.StartServer(t, "--token", "s3cret", "--log-level", "error")
	const limit = 256
	lim := unix.Rlimit{Cur: limit, Max: limit}
	if err := unix.Prlimit(proc.Cmd.Process.Pid, unix.RLIMIT_NOFILE, &lim, nil); err != nil {
		t.Fatalf("prlimit: %v", err)
	}
	packets := []string{"41", "41/x,", "40/smcp,\x1e40/smcp,"}
	const sessions, workers = 1000, 8
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed []string
	)
	next := make(chan int)
	stop := make(chan struct{})
	for range workers {
		wg.Go(func() {
			for i := range next {
				if err := oneBadSession(proc.URL, i%2 == 0, packets[i%len(packets)]); err != nil {
					mu.Lock()
					if failed == nil {
						close(stop)
					}
					failed = append(failed, fmt.Sprintf("session %d: %v", i, err))
					mu.Unlock()
				}
			}
		})
	}
feed:
	for i := range sessions {
		select {
		case next <- i:
		case <-stop:
			break feed
		}
	}
	close(next)
	wg.Wait()
	if len(failed) > 0 {
		t.Fatalf("a bad session could not even be opened (fd exhaustion?): %s\nserver stderr:\n%s",
			failed[0], proc.Stderr.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	a, err := agent.Connect(ctx, proc.URL, agent.Options{Name: "honest", Token: "s3cret", Timeout: wait})
	if err != nil {
		t.Fatalf("after %d bad sessions an honest agent cannot connect: %v\nserver stderr:\n%s", sessions, err, proc.Stderr.String())
	}
	defer a.Close()
	if err := a.JoinOffice(ctx, "o1"); err != nil {
		t.Fatalf("join after the flood: %v", err)
	}
}

// oneBadSession opens a session (WebSocket or polling), sends payload as
// engine.io message(s) and hangs up without waiting for an answer.
func oneBadSession(base string, ws bool, payload string) error {
	if ws {
		c, err := dialRawWS(base)
		if err != nil {
			return err
		}
		for _, p := range strings.Split(payload, "\x1e") {
			if err := c.WriteMessage(websocket.TextMessage, []byte(p)); err != nil {
				_ = c.Close()
				return err
			}
		}
		return c.Close()
	}
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	endpoint := base + "/socket.io/?EIO=4&transport=polling&a2c_version=" + protocol.Version
	resp, err := hc.Get(endpoint)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	var open struct {
		SID string `json:"sid"`
	}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(string(body), "0")), &open); err != nil || open.SID == "" {
		return fmt.Errorf("handshake answer %q: %v", body, err)
	}
	// A POST the server never answers is abandoned after the client's
	// timeout; the server's side of it is what leaks.
	resp, err = hc.Post(endpoint+"&sid="+url.QueryEscape(open.SID), "text/plain;charset=UTF-8", strings.NewReader(payload))
	if err == nil {
		_ = resp.Body.Close()
	}
	return nil
}
