package sioserver

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

const testWait = 10 * time.Second

// echoServer starts a Server whose handler acks every event with its
// payload and records the events' names in arrival order; onConn, when
// set, also runs for every connection.
type echoServer struct {
	srv *Server
	url string

	mu     sync.Mutex
	events []string
	socks  []*Socket
}

func startEcho(t *testing.T, opts ServerOptions, onConn func(*Socket)) *echoServer {
	t.Helper()
	es := &echoServer{}
	opts.OnConnection = func(s *Socket) {
		es.mu.Lock()
		es.socks = append(es.socks, s)
		es.mu.Unlock()
		s.OnEvent(func(event string, payload any, ack Ack) {
			es.mu.Lock()
			es.events = append(es.events, event)
			es.mu.Unlock()
			if ack == nil {
				return
			}
			if b, ok := payload.([]byte); ok {
				ack.Send(json.RawMessage(fmt.Sprintf(`{"binary":%d}`, len(b))))
				return
			}
			ack.Send(payload)
		})
		if onConn != nil {
			onConn(s)
		}
	}
	es.srv = NewServer(opts)
	hs := httptest.NewServer(es.srv)
	t.Cleanup(func() { es.srv.Close(); hs.Close() })
	es.url = "ws" + strings.TrimPrefix(hs.URL, "http") + "/socket.io/?EIO=4&transport=websocket"
	return es
}

func (es *echoServer) seen() []string {
	es.mu.Lock()
	defer es.mu.Unlock()
	return append([]string(nil), es.events...)
}

func (es *echoServer) socket(t *testing.T) *Socket {
	t.Helper()
	es.mu.Lock()
	defer es.mu.Unlock()
	if len(es.socks) != 1 {
		t.Fatalf("%d sockets, want 1", len(es.socks))
	}
	return es.socks[0]
}

// wsClient is a raw engine.io client over WebSocket.
type wsClient struct {
	t  *testing.T
	ws *websocket.Conn
}

// dialWS opens a session and, when join, connects namespace /smcp.
func dialWS(t *testing.T, url string, d *websocket.Dialer, join bool) *wsClient {
	t.Helper()
	if d == nil {
		d = &websocket.Dialer{}
	}
	d.HandshakeTimeout = testWait
	ws, _, err := d.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	c := &wsClient{t: t, ws: ws}
	if open := c.read(); !strings.HasPrefix(open, "0{") {
		t.Fatalf("open packet %q", open)
	}
	if join {
		c.send("40" + protocol.Namespace + ",")
		if got := c.read(); !strings.HasPrefix(got, "40"+protocol.Namespace+",{") {
			t.Fatalf("CONNECT answered %q", got)
		}
	}
	return c
}

func (c *wsClient) send(msgs ...string) {
	c.t.Helper()
	for _, m := range msgs {
		if err := c.ws.WriteMessage(websocket.TextMessage, []byte(m)); err != nil {
			c.t.Fatalf("write %q: %v", m, err)
		}
	}
}

// read returns the next message, answering the engine's pings.
func (c *wsClient) read() string {
	c.t.Helper()
	_ = c.ws.SetReadDeadline(time.Now().Add(testWait))
	for {
		mt, msg, err := c.ws.ReadMessage()
		if err != nil {
			c.t.Fatalf("read: %v", err)
		}
		if mt == websocket.TextMessage && string(msg) == "2" {
			c.send("3")
			continue
		}
		if mt == websocket.BinaryMessage {
			return "<binary " + string(msg) + ">"
		}
		return string(msg)
	}
}

// closed waits for the server to end the connection and returns the
// close code it sent (0 for none).
func (c *wsClient) closed() int {
	c.t.Helper()
	_ = c.ws.SetReadDeadline(time.Now().Add(testWait))
	for {
		_, _, err := c.ws.ReadMessage()
		if err == nil {
			continue
		}
		if ce, ok := err.(*websocket.CloseError); ok {
			return ce.Code
		}
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			c.t.Fatalf("the server kept the connection open")
		}
		return 0
	}
}

const ns = protocol.Namespace

// TestFastPathKeepsOrder sends a burst of events, one of them with a binary
// attachment, without waiting for answers: the handler sees them in the
// order sent and every ack comes back with its id, in order.
func TestFastPathKeepsOrder(t *testing.T) {
	es := startEcho(t, ServerOptions{}, nil)
	c := dialWS(t, es.url, nil, true)
	var want []string
	for i := range 20 {
		ev := fmt.Sprintf("ev%d", i)
		want = append(want, ev)
		if i == 7 {
			c.send(fmt.Sprintf(`451-%s,%d["%s",{"_placeholder":true,"num":0}]`, ns, i, ev))
			if err := c.ws.WriteMessage(websocket.BinaryMessage, []byte{1, 2, 3}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		c.send(fmt.Sprintf(`42%s,%d["%s",{"i":%d}]`, ns, i, ev, i))
	}
	for i := range 20 {
		answer := fmt.Sprintf(`{"i":%d}`, i)
		if i == 7 {
			answer = `{"binary":3}`
		}
		if got, exp := c.read(), fmt.Sprintf(`43%s,%d[%s]`, ns, i, answer); got != exp {
			t.Fatalf("answer %d: %s, want %s", i, got, exp)
		}
	}
	if got := es.seen(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("handler saw %v, want %v", got, want)
	}
}

// TestEmitDuringConnectFollowsTheAnswer: an event the Server sends while
// the CONNECT is being handled reaches the client after the CONNECT's
// answer, never before it.
func TestEmitDuringConnectFollowsTheAnswer(t *testing.T) {
	es := startEcho(t, ServerOptions{}, func(s *Socket) { s.Emit("hello", json.RawMessage(`{"n":1}`)) })
	c := dialWS(t, es.url, nil, false)
	c.send("40" + ns + ",")
	if got := c.read(); !strings.HasPrefix(got, "40"+ns+",{") {
		t.Fatalf("first message %q, want the CONNECT answer", got)
	}
	if got := c.read(); got != `42`+ns+`,["hello",{"n":1}]` {
		t.Fatalf("second message %q, want the event", got)
	}
}

// TestEmitWithAckTable: the Server's requests are answered through its own
// ack table; an answer for no request is ignored.
func TestEmitWithAckTable(t *testing.T) {
	es := startEcho(t, ServerOptions{}, nil)
	c := dialWS(t, es.url, nil, true)
	sock := es.socket(t)
	got := make(chan string, 2)
	for i := range 2 {
		sock.EmitWithAck("q", json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)), AckFunc(func(args []json.RawMessage, err error) {
			if err != nil {
				got <- "error " + err.Error()
				return
			}
			var parts []string
			for _, a := range args {
				parts = append(parts, string(a))
			}
			got <- strings.Join(parts, " ")
		}))
	}
	first, second := c.read(), c.read()
	if first != `42`+ns+`,0["q",{"n":0}]` || second != `42`+ns+`,1["q",{"n":1}]` {
		t.Fatalf("requests %s, %s", first, second)
	}
	c.send(`43`+ns+`,7["nobody asked"]`, `43`+ns+`,1["b",2]`, `43`+ns+`,0[{"a":1}]`)
	if a, b := <-got, <-got; a != `"b" 2` || b != `{"a":1}` {
		t.Fatalf("answers %q, %q", a, b)
	}
	// The session still works.
	c.send(`42` + ns + `,5["ping",{}]`)
	if got := c.read(); got != `43`+ns+`,5[{}]` {
		t.Fatalf("after the answers: %s", got)
	}
}

// TestFramesOfAnyShape: fragmented messages, a ping between fragments,
// and messages bigger than the read buffer arrive whole; a ping is
// answered with a pong carrying its data.
func TestFramesOfAnyShape(t *testing.T) {
	es := startEcho(t, ServerOptions{}, nil)
	pong := make(chan string, 1)
	c := dialWS(t, es.url, nil, true)
	c.ws.SetPongHandler(func(data string) error { pong <- data; return nil })

	big := strings.Repeat("x", 3*readBufferSize+17)
	c.send(`42` + ns + `,1["big",{"s":"` + big + `"}]`)
	if got := c.read(); got != `43`+ns+`,1[{"s":"`+big+`"}]` {
		t.Fatalf("big message answered with %d bytes", len(got))
	}

	// One message in three frames, a ping between the second and third.
	msg := []byte(`42` + ns + `,2["frag",{"s":"abcdefghij"}]`)
	raw := c.ws.NetConn()
	write := func(b []byte) {
		if _, err := raw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	write(clientFrame(false, websocket.TextMessage, msg[:5]))
	write(clientFrame(false, 0, msg[5:20]))
	write(clientFrame(true, websocket.PingMessage, []byte("hi")))
	write(clientFrame(true, 0, msg[20:]))
	if got := c.read(); got != `43`+ns+`,2[{"s":"abcdefghij"}]` {
		t.Fatalf("fragmented message answered %q", got)
	}
	select {
	case data := <-pong:
		if data != "hi" {
			t.Fatalf("pong %q", data)
		}
	case <-time.After(testWait):
		t.Fatal("no pong")
	}
}

// clientFrame encodes a masked client frame.
func clientFrame(fin bool, op int, payload []byte) []byte {
	b := []byte{byte(op), 0x80}
	if fin {
		b[0] |= 0x80
	}
	switch n := len(payload); {
	case n < 126:
		b[1] |= byte(n)
	case n <= 0xFFFF:
		b[1] |= 126
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b[1] |= 127
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	key := [4]byte{0x12, 0x34, 0x56, 0x78}
	b = append(b, key[:]...)
	masked := bytes.Clone(payload)
	for i := range masked {
		masked[i] ^= key[i%4]
	}
	return append(b, masked...)
}

// TestBrokenFramesEndTheSession: frames a client must not send end the
// connection with the close code RFC 6455 gives, and the session with it.
func TestBrokenFramesEndTheSession(t *testing.T) {
	es := startEcho(t, ServerOptions{MaxPayloadBytes: 1000}, nil)
	unmasked := []byte{0x81, 0x02, '4', '2'}
	reserved := clientFrame(true, websocket.TextMessage, []byte("3"))
	reserved[0] |= 0x40
	longPing := clientFrame(true, websocket.PingMessage, make([]byte, 126))
	badOp := clientFrame(true, 3, []byte("x"))
	lone := clientFrame(true, 0, []byte("x"))
	twice := append(clientFrame(false, websocket.TextMessage, []byte("4")), clientFrame(true, websocket.TextMessage, []byte("2"))...)
	tooBig := clientFrame(true, websocket.TextMessage, []byte(`42`+ns+`,1["x","`+strings.Repeat("y", 1000)+`"]`))
	tooBigInParts := append(clientFrame(false, websocket.TextMessage, make([]byte, 600)), clientFrame(true, 0, make([]byte, 600))...)
	for _, tc := range []struct {
		name  string
		frame []byte
		code  int
	}{
		{"unmasked", unmasked, closeProtocol},
		{"reserved bit", reserved, closeProtocol},
		{"control frame over 125 bytes", longPing, closeProtocol},
		{"unknown opcode", badOp, closeProtocol},
		{"continuation of nothing", lone, closeProtocol},
		{"new message inside a fragmented one", twice, closeProtocol},
		{"message over the limit", tooBig, closeMessageSize},
		{"fragments over the limit", tooBigInParts, closeMessageSize},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialWS(t, es.url, nil, true)
			if _, err := c.ws.NetConn().Write(tc.frame); err != nil {
				t.Fatal(err)
			}
			if code := c.closed(); code != tc.code {
				t.Fatalf("close code %d, want %d", code, tc.code)
			}
		})
	}
	testutil.Eventually(t, testWait, "sessions to close", func() bool { return es.srv.Sessions() == 0 })

	// A close frame from the client is answered with one, and a message at
	// the limit passes.
	c := dialWS(t, es.url, nil, true)
	atLimit := `42` + ns + `,1["x","` + strings.Repeat("y", 1000-len(`42`+ns+`,1["x",""]`)) + `"]`
	c.send(atLimit)
	if got := c.read(); !strings.HasPrefix(got, `43`+ns+`,1["yyy`) {
		t.Fatalf("message at the limit answered %.40q", got)
	}
	if err := c.ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "")); err != nil {
		t.Fatal(err)
	}
	if code := c.closed(); code != websocket.CloseGoingAway {
		t.Fatalf("close answered with %d", code)
	}
	testutil.Eventually(t, testWait, "sessions to close", func() bool { return es.srv.Sessions() == 0 })
}

// TestSlowReaderNeverBlocksTheWriter: a client that stops reading does not
// block the goroutines that write to it (in the Server, another client's
// reader routing an answer): what its socket does not take is queued, and
// arrives in order once it reads again.
func TestSlowReaderNeverBlocksTheWriter(t *testing.T) {
	es := startEcho(t, ServerOptions{}, nil)
	c := dialWS(t, es.url, nil, true)
	sock := es.socket(t)
	chunk := json.RawMessage(`"` + strings.Repeat("z", 64<<10) + `"`)
	const n = 256 // 16 MiB: far more than the sockets' buffers hold
	done := make(chan struct{})
	go func() {
		for i := range n {
			sock.Emit("chunk", json.RawMessage(fmt.Sprint(i)), chunk)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(testWait):
		t.Fatal("Emit blocked on a client that does not read")
	}
	for i := range n {
		want := fmt.Sprintf(`42%s,["chunk",%d,%s]`, ns, i, chunk)
		if got := c.read(); got != want {
			t.Fatalf("event %d: %.60q", i, got)
		}
	}
}

// TestNamespaceRejoin: a client that leaves the namespace and joins it
// again on the same connection is served by the new socket.
func TestNamespaceRejoin(t *testing.T) {
	es := startEcho(t, ServerOptions{}, nil)
	c := dialWS(t, es.url, nil, true)
	c.send(`42` + ns + `,1["a",1]`)
	if got := c.read(); got != `43`+ns+`,1[1]` {
		t.Fatalf("first answer %s", got)
	}
	c.send("41"+ns+",", "40"+ns+",")
	if got := c.read(); !strings.HasPrefix(got, "40"+ns+",{") {
		t.Fatalf("second CONNECT answered %q", got)
	}
	c.send(`42` + ns + `,2["b",2]`)
	if got := c.read(); got != `43`+ns+`,2[2]` {
		t.Fatalf("answer after rejoining %s", got)
	}
	if got := es.seen(); strings.Join(got, " ") != "a b" {
		t.Fatalf("handlers saw %v", got)
	}
}

// TestPeerThatNeverReadsIsClosed: what a peer leaves unread is bounded: once
// the writer's queue would pass its limit the connection is closed, instead
// of growing until the heartbeat notices the peer.
func TestPeerThatNeverReadsIsClosed(t *testing.T) {
	conn, _ := tcpPair(t) // the peer never reads
	const limit = 1 << 20
	w := newFrameWriter(conn, limit)
	frame := makeFrame(websocket.TextMessage, make([]byte, 64<<10))
	for i := 0; i < 1024; i++ { // 64 MiB: far more than socket buffers and the limit hold
		w.write(frame)
		w.mu.Lock()
		err, queued := w.err, len(w.queue)
		w.mu.Unlock()
		if err != nil {
			if err != errPeerNotReading {
				t.Fatalf("writer failed with %v", err)
			}
			if _, werr := conn.Write([]byte("x")); werr == nil {
				t.Fatal("the connection is still open")
			}
			return
		}
		if queued > limit {
			t.Fatalf("%d bytes queued, over the %d limit", queued, limit)
		}
	}
	t.Fatal("64 MiB written to a peer that reads nothing, and the writer still queues")
}

// tcpPair returns the two ends of a loopback TCP connection.
func tcpPair(t *testing.T) (server, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	t.Cleanup(func() { _ = server.Close(); _ = client.Close() })
	return server, client
}

// readN reads exactly n bytes from c.
func readN(t *testing.T, c net.Conn, n int) []byte {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(testWait))
	buf := make([]byte, n)
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatalf("read %d bytes: %v", n, err)
	}
	return buf
}

// TestBurstWritesLeaveTogether: frames written to a connection while a
// burst is under way wait for its end and then leave in one write, in
// order; a burst holds no more than maxHeld bytes; outside a burst a frame
// leaves at once.
func TestBurstWritesLeaveTogether(t *testing.T) {
	conn, peer := tcpPair(t)
	var bs bursts
	w := newFrameWriter(conn, 1<<20)
	w.bursts = &bs

	f1, f2 := makeFrame(websocket.TextMessage, []byte("one")), makeFrame(websocket.TextMessage, []byte("two"))
	w.write(f1) // no burst
	if got := readN(t, peer, len(f1)); !bytes.Equal(got, f1) {
		t.Fatalf("outside a burst: %q", got)
	}

	bs.begin()
	w.write(f1)
	w.write(f2)
	w.mu.Lock()
	held := len(w.held)
	w.mu.Unlock()
	if held != len(f1)+len(f2) {
		t.Fatalf("%d bytes held during the burst, want %d (both frames)", held, len(f1)+len(f2))
	}
	bs.end()
	if got, want := readN(t, peer, len(f1)+len(f2)), append(bytes.Clone(f1), f2...); !bytes.Equal(got, want) {
		t.Fatalf("after the burst: %q, want %q", got, want)
	}

	big := makeFrame(websocket.BinaryMessage, make([]byte, maxHeld/2))
	bs.begin()
	for range 3 {
		w.write(big)
	}
	// Over maxHeld: the first two left without waiting for the end.
	readN(t, peer, 2*len(big))
	bs.end()
	readN(t, peer, len(big))
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.holding || len(w.held) != 0 {
		t.Fatalf("still holding %d bytes after the burst", len(w.held))
	}
}

// TestBurstAnswersInOrder: events a client sends in one write (a burst on
// the server) are answered in order and completely, the acks written
// together.
func TestBurstAnswersInOrder(t *testing.T) {
	es := startEcho(t, ServerOptions{}, nil)
	c := dialWS(t, es.url, nil, true)
	var frames []byte
	for i := range 50 {
		msg := fmt.Sprintf(`42%s,%d["ev",{"i":%d}]`, ns, i, i)
		frames = append(frames, clientFrame(true, websocket.TextMessage, []byte(msg))...)
	}
	if _, err := c.ws.NetConn().Write(frames); err != nil { // one write: one burst
		t.Fatal(err)
	}
	for i := range 50 {
		if got, want := c.read(), fmt.Sprintf(`43%s,%d[{"i":%d}]`, ns, i, i); got != want {
			t.Fatalf("answer %d: %s, want %s", i, got, want)
		}
	}
}

// TestMessageInPieces: a message whose bytes come in pieces (cut in the
// header, in the masking key, in the payload, past the read buffer) is
// read whole once its last piece comes, and the one behind it too: a read
// that emptied the socket waits for the next bytes without missing them.
func TestMessageInPieces(t *testing.T) {
	es := startEcho(t, ServerOptions{}, nil)
	c := dialWS(t, es.url, nil, true)
	raw := c.ws.NetConn()
	text := strings.Repeat("y", readBufferSize+1000)
	frame := clientFrame(true, websocket.TextMessage, []byte(`42`+ns+`,1["e",{"s":"`+text+`"}]`))
	next := clientFrame(true, websocket.TextMessage, []byte(`42`+ns+`,2["e",{"n":2}]`))
	all := append(bytes.Clone(frame), next...)
	cuts := []int{1, 3, 6, 200, readBufferSize - 5, readBufferSize + 3, len(frame) - 1, len(frame) + 1}
	from := 0
	for _, cut := range cuts {
		if _, err := raw.Write(all[from:cut]); err != nil {
			t.Fatal(err)
		}
		from = cut
		time.Sleep(5 * time.Millisecond) // a read of its own for each piece, most of the time
	}
	if _, err := raw.Write(all[from:]); err != nil {
		t.Fatal(err)
	}
	if got := c.read(); got != `43`+ns+`,1[{"s":"`+text+`"}]` {
		t.Fatalf("the message in pieces answered with %d bytes", len(got))
	}
	if got := c.read(); got != `43`+ns+`,2[{"n":2}]` {
		t.Fatalf("the message behind it answered %q", got)
	}
}

// TestEventsBehindTheConnectKeepTheirBytes: events a client sends right
// behind its CONNECT, in the same write, wait for the CONNECT's outcome
// while the reader goes on reading into its buffer; each is answered with
// its own payload, byte for byte.
func TestEventsBehindTheConnectKeepTheirBytes(t *testing.T) {
	es := startEcho(t, ServerOptions{}, nil)
	c := dialWS(t, es.url, nil, false)
	frames := clientFrame(true, websocket.TextMessage, []byte("40"+ns+","))
	for i := range 40 {
		msg := fmt.Sprintf(`42%s,%d["ev",{"i":%d,"pad":"%s"}]`, ns, i, i, strings.Repeat(string(rune('a'+i%26)), 300+i*37))
		frames = append(frames, clientFrame(true, websocket.TextMessage, []byte(msg))...)
	}
	if _, err := c.ws.NetConn().Write(frames); err != nil {
		t.Fatal(err)
	}
	if got := c.read(); !strings.HasPrefix(got, "40"+ns+",{") {
		t.Fatalf("CONNECT answered %q", got)
	}
	for i := range 40 {
		want := fmt.Sprintf(`43%s,%d[{"i":%d,"pad":"%s"}]`, ns, i, i, strings.Repeat(string(rune('a'+i%26)), 300+i*37))
		if got := c.read(); got != want {
			t.Fatalf("answer %d: %.80s..., want %.80s...", i, got, want)
		}
	}
}

// TestCloseRightBehindAMessageIsSeen: a client whose last message and
// close (FIN) arrive together — a process that sends and exits — is seen
// gone at once, not at the next heartbeat. A read that returned the
// message short of its buffer was once taken to have emptied the socket,
// and the end of the stream behind it waited for a wake-up that never
// came (the poller is edge-triggered).
func TestCloseRightBehindAMessageIsSeen(t *testing.T) {
	gone := make(chan string, 1)
	es := startEcho(t, ServerOptions{PingInterval: time.Minute, PingTimeout: time.Minute}, func(s *Socket) {
		s.OnDisconnect(func(reason string) { gone <- reason })
	})
	for round := range 30 {
		c := dialWS(t, es.url, nil, true)
		raw := c.ws.NetConn().(*net.TCPConn)
		msg := clientFrame(true, websocket.TextMessage, []byte(`42`+ns+`["e",{"last":true}]`))
		if _, err := raw.Write(msg); err != nil {
			t.Fatal(err)
		}
		_ = raw.CloseWrite() // FIN right behind the message
		select {
		case <-gone:
		case <-time.After(2 * time.Second):
			t.Fatalf("round %d: the client that sent a message and closed is still connected after 2 s", round)
		}
		_ = raw.Close()
	}
}
