package sioserver

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
	"github.com/zishang520/socket.io/parsers/engine/v3/packet"
	"github.com/zishang520/socket.io/servers/engine/v3/transports"
	"github.com/zishang520/socket.io/v3/pkg/types"
)

// wsTransport is the Server's engine.io WebSocket transport, in place of
// the library's. The library's transport reads each message into a
// growing buffer, decodes it into a packet that crosses three event
// emitters and two goroutine hand-offs (the namespace socket's task queue
// and the transport's write queue) before a handler sees it, and hands
// every outgoing packet to a write goroutine. Here the reader goroutine
// hands each message to the session's gate (gatedTransport), which
// dispatches the Socket.IO events and acks of a joined /smcp session
// straight to the Server's handler (fastSocket) and everything else to
// the library as its own transport would; writes go to the socket from
// the writer's goroutine (frameWriter).
//
// Sessions that start on polling keep the library's transports, also
// after they upgrade to WebSocket.
type wsTransport struct {
	transports.Transport // the library's base: events, state, parser

	conn  *types.WebSocketConn // gorilla's, after the handshake only closed
	w     *frameWriter
	gate  *gatedTransport // where the reader hands incoming messages
	idle  time.Duration   // read deadline per message (engine's idleTimeout)
	limit int64           // the largest message (engine's maxHttpBufferSize)
}

// newWSTransport returns the transport of a WebSocket session whose
// handshake gorilla made; its reader starts with start, once the gate is
// attached. The connection is read and written here, not by gorilla.
func newWSTransport(ctx *types.HttpContext, limit int64) *wsTransport {
	t := &wsTransport{Transport: transports.MakeTransport()}
	t.Prototype(t)
	t.Transport.Construct(ctx)
	t.conn = ctx.Websocket
	t.idle = ctx.IdleTimeout
	t.limit = limit
	t.w = newFrameWriter(t.conn.NetConn(), max(minQueueLimit, 4*limit))
	t.SetWritable(true)
	return t
}

// start runs the reader.
func (t *wsTransport) start(g *gatedTransport) {
	t.gate = g
	go t.read()
}

func (t *wsTransport) Name() string          { return transports.WEBSOCKET }
func (t *wsTransport) HandlesUpgrades() bool { return true }

// maxKeptBuffer bounds the buffers kept for reuse (frames, the write
// queue): a big message's buffer is dropped after use.
const maxKeptBuffer = 64 << 10

// readBufferSize is the read buffer of a connection: an answer of a few
// kilobytes comes in one read (gorilla's reader, sized by the library,
// took 1 KiB and a second read for most answers).
const readBufferSize = 4096

// read delivers every message of the connection to the gate, in order,
// until the connection ends; then the transport closes.
func (t *wsTransport) read() {
	fr := frameReader{br: bufio.NewReaderSize(t.conn.NetConn(), readBufferSize), limit: t.limit, w: t.w}
	var renewed time.Time // when the read deadline was last pushed back
	for {
		// The idle deadline moves at most once a second: moving it costs
		// a timer update per message otherwise.
		if now := time.Now(); t.idle > 0 && now.Sub(renewed) >= time.Second {
			_ = t.conn.NetConn().SetReadDeadline(now.Add(t.idle))
			renewed = now
		}
		msg, binary, err := fr.next()
		if err != nil {
			t.readFailed(err)
			return
		}
		t.gate.fromWS(msg, binary)
	}
}

// readFailed ends the transport after a read error, as the library's:
// an error that is not the peer going away is reported first.
func (t *wsTransport) readFailed(err error) {
	if !errors.Is(err, errPeerClosed) && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.OnError("websocket error", err)
	}
	_ = t.conn.Close()
	t.OnClose()
}

// frameReader reads the messages of a client's WebSocket (RFC 6455),
// answering its control frames through the writer. No extension is ever
// negotiated (the engine's perMessageDeflate is off), so reserved bits are
// an error.
type frameReader struct {
	br    *bufio.Reader
	limit int64 // the largest message; bigger ones end the connection
	w     *frameWriter
	hdr   [14]byte
}

// Errors of the frame reader.
var (
	errPeerClosed   = errors.New("websocket: closed by the peer")
	errProtocol     = errors.New("websocket: protocol error")
	errMessageLimit = errors.New("websocket: message over the size limit")
)

// WebSocket opcodes and close codes used here.
const (
	opContinuation   = 0
	closeNormal      = 1000
	closeProtocol    = 1002
	closeNoStatus    = 1005
	closeMessageSize = 1009
)

// next returns the next text or binary message.
func (r *frameReader) next() (msg []byte, binary bool, err error) {
	started := false // a fragmented message is being read
	for {
		fin, op, payload, err := r.frame(len(msg), started)
		if err != nil {
			return nil, false, err
		}
		switch op {
		case websocket.PingMessage:
			r.w.write(makeFrame(websocket.PongMessage, payload))
			continue
		case websocket.PongMessage:
			continue
		case websocket.CloseMessage:
			code := closeNoStatus
			if len(payload) >= 2 {
				code = int(payload[0])<<8 | int(payload[1])
			}
			reply := []byte{}
			if code != closeNoStatus {
				reply = websocket.FormatCloseMessage(code, "")
			}
			r.w.write(makeFrame(websocket.CloseMessage, reply))
			return nil, false, errPeerClosed
		case websocket.TextMessage, websocket.BinaryMessage:
			if started {
				return nil, false, r.fail(closeProtocol, errProtocol)
			}
			started, binary = true, op == websocket.BinaryMessage
		case opContinuation:
			if !started {
				return nil, false, r.fail(closeProtocol, errProtocol)
			}
		}
		if msg == nil {
			msg = payload // the whole message, most of the time
		} else {
			msg = append(msg, payload...)
		}
		if fin {
			if msg == nil {
				msg = []byte{}
			}
			return msg, binary, nil
		}
	}
}

// frame reads one frame; have is the size of the message read so far.
func (r *frameReader) frame(have int, started bool) (fin bool, op int, payload []byte, err error) {
	h := r.hdr[:2]
	if _, err := io.ReadFull(r.br, h); err != nil {
		return false, 0, nil, err
	}
	fin, op = h[0]&0x80 != 0, int(h[0]&0x0F)
	masked, n := h[1]&0x80 != 0, uint64(h[1]&0x7F)
	if h[0]&0x70 != 0 || !masked {
		return false, 0, nil, r.fail(closeProtocol, errProtocol)
	}
	switch op {
	case opContinuation, websocket.TextMessage, websocket.BinaryMessage:
	case websocket.CloseMessage, websocket.PingMessage, websocket.PongMessage:
		if !fin || n > 125 {
			return false, 0, nil, r.fail(closeProtocol, errProtocol)
		}
	default:
		return false, 0, nil, r.fail(closeProtocol, errProtocol)
	}
	switch n {
	case 126:
		if _, err := io.ReadFull(r.br, r.hdr[2:4]); err != nil {
			return false, 0, nil, err
		}
		n = uint64(r.hdr[2])<<8 | uint64(r.hdr[3])
	case 127:
		if _, err := io.ReadFull(r.br, r.hdr[2:10]); err != nil {
			return false, 0, nil, err
		}
		n = binary.BigEndian.Uint64(r.hdr[2:10])
		if n >= 1<<63 {
			return false, 0, nil, r.fail(closeProtocol, errProtocol)
		}
	}
	if op < websocket.CloseMessage && r.limit > 0 && (n > uint64(r.limit) || uint64(have)+n > uint64(r.limit)) {
		return false, 0, nil, r.fail(closeMessageSize, errMessageLimit)
	}
	var key [4]byte
	if _, err := io.ReadFull(r.br, key[:]); err != nil {
		return false, 0, nil, err
	}
	payload = make([]byte, n)
	if _, err := io.ReadFull(r.br, payload); err != nil {
		return false, 0, nil, err
	}
	unmask(key, payload)
	return fin, op, payload, nil
}

// fail answers a broken stream with a close frame and returns err.
func (r *frameReader) fail(code int, err error) error {
	r.w.write(makeFrame(websocket.CloseMessage, websocket.FormatCloseMessage(code, "")))
	return err
}

// unmask applies a client frame's masking key to its payload.
func unmask(key [4]byte, b []byte) {
	k := uint64(binary.LittleEndian.Uint32(key[:]))
	k |= k << 32
	i := 0
	for ; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], binary.LittleEndian.Uint64(b[i:])^k)
	}
	for ; i < len(b); i++ {
		b[i] ^= key[i&3]
	}
}

// Send writes engine.io packets (the library's own: open, ping, the
// namespace CONNECT answer, packets with binary attachments...). It is
// called with the gate's send lock held, which orders it with the fast
// writes.
func (t *wsTransport) Send(packets []*packet.Packet) {
	for _, p := range packets {
		data, err := t.Parser().EncodePacket(p, t.SupportsBinary())
		if err != nil {
			t.OnError("websocket encode error", err)
			continue
		}
		op := websocket.BinaryMessage
		if _, text := data.(*types.StringBuffer); text {
			op = websocket.TextMessage
		}
		t.w.write(makeFrame(op, data.Bytes()))
	}
	// The engine counts its send callbacks by "drain"; "ready" is not
	// emitted since the transport never stops being writable (and the
	// engine's flush, which calls Send, would deadlock on it).
	t.Emit("drain")
}

// DoClose closes the connection; the reader then closes the transport.
// fn (the engine's "forced close") runs first, as in the library's
// transport: a client that sees its connection end finds its session gone.
func (t *wsTransport) DoClose(fn types.Callable) {
	t.w.close()
	if fn != nil {
		fn()
	}
	_ = t.conn.Close()
}

// writeText writes one text frame holding payload, which starts maxHeader
// bytes into frame (see newFrame).
func (t *wsTransport) writeText(frame []byte) {
	t.w.write(finishFrame(frame, websocket.TextMessage))
}

// maxHeader is the size of the longest header of a server's frame.
const maxHeader = 10

// framePool recycles the buffers outgoing frames are encoded in.
var framePool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// newFrame returns a pooled buffer with room for a frame header, to append
// a payload to and pass to finishFrame; give it back with freeFrame.
func newFrame() *[]byte {
	b := framePool.Get().(*[]byte)
	*b = append((*b)[:0], make([]byte, maxHeader)...)
	return b
}

// freeFrame returns a buffer to the pool (big ones are dropped).
func freeFrame(b *[]byte) {
	if cap(*b) <= maxKeptBuffer {
		framePool.Put(b)
	}
}

// finishFrame writes the header of an unmasked, final frame of type op in
// front of the payload that starts maxHeader bytes into buf, and returns
// the frame (a sub-slice of buf).
func finishFrame(buf []byte, op int) []byte {
	n := len(buf) - maxHeader
	var h []byte
	switch {
	case n < 126:
		h = buf[maxHeader-2 : maxHeader]
		h[1] = byte(n)
	case n <= 0xFFFF:
		h = buf[maxHeader-4 : maxHeader]
		h[1] = 126
		h[2], h[3] = byte(n>>8), byte(n)
	default:
		h = buf[:maxHeader]
		h[1] = 127
		for i := range 8 {
			h[2+i] = byte(uint64(n) >> (56 - 8*i))
		}
	}
	h[0] = 0x80 | byte(op)
	return buf[maxHeader-len(h):]
}

// makeFrame returns a complete frame of type op holding payload.
func makeFrame(op int, payload []byte) []byte {
	buf := make([]byte, maxHeader, maxHeader+len(payload))
	buf = append(buf, payload...)
	return finishFrame(buf, op)
}

// frameWriter writes frames to a connection in the order write is called,
// without ever blocking its caller on the network: a frame is written at
// once with one non-blocking write when nothing is queued, which is the
// common case and costs no goroutine hand-off; what the socket does not
// take (a peer that reads slowly, or not at all) is queued and written by
// a goroutine started for it. A peer that stops reading is then closed by
// the engine's heartbeat, whose ping is queued like any frame instead of
// blocking the heartbeat timer (or the routing of another client's answer)
// on a full socket.
type frameWriter struct {
	conn     net.Conn
	raw      syscall.RawConn // nil: every write is queued (no file descriptor)
	maxQueue int             // a peer that leaves more unread is closed

	mu       sync.Mutex
	queue    []byte // bytes not written yet, in order
	spare    []byte // the other queue buffer, reused
	flushing bool   // a goroutine is writing the queue
	err      error  // the first failure: later frames are dropped

	// The non-blocking write in progress (w.mu held): what to write,
	// how much went, the error; writeFd is bound once, so that a write
	// allocates nothing.
	out     []byte
	outN    int
	outErr  error
	writeFd func(fd uintptr) bool
}

// minQueueLimit is the least a writer queues for a peer that does not
// read before it closes the connection (else four of the largest messages).
const minQueueLimit = 64 << 20

func newFrameWriter(conn net.Conn, maxQueue int64) *frameWriter {
	w := &frameWriter{conn: conn, maxQueue: int(min(maxQueue, int64(^uint(0)>>1)))}
	if sc, ok := conn.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			w.raw = raw
			w.writeFd = w.writeNow
		}
	}
	return w
}

// Errors of the writer.
var (
	errWriterClosed   = errors.New("websocket closed")
	errPeerNotReading = errors.New("websocket: the peer left too much unread; connection closed")
)

// write sends one complete frame (or several). frame is not retained.
func (w *frameWriter) write(frame []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return
	}
	if !w.flushing && w.raw != nil {
		n, err := w.tryWrite(frame)
		if err != nil {
			w.fail(err)
			return
		}
		frame = frame[n:]
		if len(frame) == 0 {
			return
		}
	}
	if len(w.queue)+len(frame) > w.maxQueue {
		// The heartbeat would close such a peer only after its timeout;
		// meanwhile what it does not read must not grow without bound.
		w.fail(errPeerNotReading)
		return
	}
	w.queue = append(w.queue, frame...)
	if !w.flushing {
		w.flushing = true
		go w.flush()
	}
}

// tryWrite writes what the socket takes without waiting. w.mu is held.
func (w *frameWriter) tryWrite(b []byte) (int, error) {
	w.out, w.outN, w.outErr = b, 0, nil
	err := w.raw.Write(w.writeFd)
	n, werr := w.outN, w.outErr
	w.out = nil
	if err != nil {
		return n, err
	}
	return n, werr
}

// writeNow is tryWrite's call on the file descriptor: it returns true
// ("done") also when the socket is full, so that nothing waits.
func (w *frameWriter) writeNow(fd uintptr) bool {
	for w.outN < len(w.out) {
		m, err := syscall.Write(int(fd), w.out[w.outN:])
		if m > 0 {
			w.outN += m
		}
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return true // full: the rest is queued
		case err != nil:
			w.outErr = err
			return true
		case m <= 0:
			w.outErr = io.ErrShortWrite
			return true
		}
	}
	return true
}

// flush writes the queue, blocking, until it is empty.
func (w *frameWriter) flush() {
	for {
		w.mu.Lock()
		if len(w.queue) == 0 || w.err != nil {
			w.flushing = false
			w.queue = w.queue[:0]
			w.mu.Unlock()
			return
		}
		out := w.queue
		w.queue = w.spare[:0]
		w.mu.Unlock()
		_, err := w.conn.Write(out)
		w.mu.Lock()
		if cap(out) <= maxKeptBuffer {
			w.spare = out[:0]
		} else {
			w.spare = nil
		}
		if err != nil {
			w.fail(err)
		}
		w.mu.Unlock()
	}
}

// fail records a write error and closes the connection, so that its
// reader ends the transport. w.mu is held.
func (w *frameWriter) fail(err error) {
	if w.err == nil {
		w.err = err
		w.queue = nil
		_ = w.conn.Close()
	}
}

// close drops what is queued; later writes do nothing.
func (w *frameWriter) close() {
	w.mu.Lock()
	if w.err == nil {
		w.err = errWriterClosed
	}
	w.queue = nil
	w.mu.Unlock()
}
