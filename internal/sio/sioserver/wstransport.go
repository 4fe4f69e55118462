package sioserver

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
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

	conn   *types.WebSocketConn // gorilla's, after the handshake only closed
	w      *frameWriter
	gate   *gatedTransport // where the reader hands incoming messages
	idle   time.Duration   // read deadline per message (engine's idleTimeout)
	limit  int64           // the largest message (engine's maxHttpBufferSize)
	bursts *bursts         // the server's, nil for none
}

// newWSTransport returns the transport of a WebSocket session whose
// handshake gorilla made; its reader starts with start, once the gate is
// attached. The connection is read and written here, not by gorilla.
// Writes made while a reader of the server delivers a burst wait for its
// end (bs).
func newWSTransport(ctx *types.HttpContext, limit int64, bs *bursts) *wsTransport {
	t := &wsTransport{Transport: transports.MakeTransport()}
	t.Prototype(t)
	t.Transport.Construct(ctx)
	t.conn = ctx.Websocket
	t.idle = ctx.IdleTimeout
	t.limit = limit
	t.bursts = bs
	t.w = newFrameWriter(t.conn.NetConn(), max(minQueueLimit, 4*limit))
	t.w.bursts = bs
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
//
// On a socket it reads until the socket says EAGAIN, then waits for the
// poller, the whole loop inside one RawConn.Read (whose readiness flag a
// later call would clear): the connection is therefore only closed once
// the loop has returned (others shut it down: closeConn). A read that
// leaves room in the buffer has not always emptied the socket: an end of
// stream behind the data is only reported by the next read, and libuv's
// shortcut (wait after a short read) relies on level-triggered polling,
// which Go's poller is not.
func (t *wsTransport) read() {
	fr := newFrameReader(t.limit, t.w)
	var err error
	if raw := rawConn(t.conn.NetConn()); raw != nil {
		err = t.readRaw(raw, fr)
	} else {
		err = t.readBlocking(fr)
	}
	t.readFailed(err)
}

// readRaw is read on a socket.
func (t *wsTransport) readRaw(raw syscall.RawConn, fr *frameReader) error {
	var (
		err     error
		renewed time.Time
	)
	rerr := raw.Read(func(fd uintptr) bool {
		for {
			renewed = t.renewDeadline(renewed)
			buf := fr.space()
			n, e := readFd(fd, buf)
			switch {
			case e == errInterrupted:
				continue
			case e == errWouldBlock:
				return false // wait for the poller
			case e != nil:
				err = e
				return true
			case n == 0:
				err = io.EOF
				return true
			}
			fr.w += n
			if err = t.deliver(fr); err != nil {
				return true
			}
			// Read on even after a read that left room in the buffer: the
			// end of the stream (or an error) may wait right behind the
			// data, and the poller, edge-triggered, will not wake the
			// reader for it again (TestCloseRightBehindAMessageIsSeen).
		}
	})
	if err == nil {
		err = rerr
	}
	return err
}

// readBlocking is read on a connection without a file descriptor.
func (t *wsTransport) readBlocking(fr *frameReader) error {
	var renewed time.Time
	for {
		renewed = t.renewDeadline(renewed)
		n, err := t.conn.NetConn().Read(fr.space())
		fr.w += n
		if derr := t.deliver(fr); derr != nil {
			return derr
		}
		if err != nil {
			return err
		}
	}
}

// renewDeadline pushes the idle deadline back, at most once a second (a
// timer update per message otherwise), and returns when it last did.
func (t *wsTransport) renewDeadline(renewed time.Time) time.Time {
	if t.idle <= 0 {
		return renewed
	}
	if now := time.Now(); now.Sub(renewed) >= time.Second {
		_ = t.conn.NetConn().SetReadDeadline(now.Add(t.idle))
		return now
	}
	return renewed
}

// deliver hands every message the buffer holds to the gate, in order.
// Messages that came in one read are a burst: what their delivery writes,
// to any connection, goes out at its end, each connection's frames in one
// write.
func (t *wsTransport) deliver(fr *frameReader) error {
	inBurst := false
	for {
		msg, binary, ok, err := fr.next()
		if err != nil || !ok {
			if inBurst {
				t.bursts.end()
			}
			return err
		}
		if !inBurst && t.bursts != nil && fr.buffered() {
			t.bursts.begin()
			inBurst = true
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

// closeConn ends c both ways without waiting: on a socket it is shut down
// (its reader then closes it), since closing waits for a RawConn.Read in
// progress, which may be the caller's own.
func closeConn(c net.Conn) {
	if raw := rawConn(c); raw != nil {
		if err := raw.Control(shutdownFd); err == nil {
			return
		}
	}
	_ = c.Close()
}

// frameReader parses the messages of a client's WebSocket (RFC 6455) out
// of what its reader read, answering its control frames through the
// writer. No extension is ever negotiated (the engine's perMessageDeflate
// is off), so reserved bits are an error.
type frameReader struct {
	buf   []byte // buf[r:w] is read and not parsed yet
	r, w  int
	limit int64        // the largest message; bigger ones end the connection
	out   *frameWriter // pongs and close frames

	msg     []byte // the fragments of the message being read
	started bool   // a message is being read (msg holds its start)
	binary  bool
}

func newFrameReader(limit int64, out *frameWriter) *frameReader {
	return &frameReader{buf: make([]byte, readBufferSize), limit: limit, out: out}
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

// frameHead is what a frame's header says.
type frameHead struct {
	fin  bool
	op   int
	head int    // bytes of header and masking key
	size uint64 // bytes of payload
}

// header parses the header of the next frame: ok false while it is not
// all read; a frame the client must not send is an error with the close
// code to answer it with.
func (r *frameReader) header() (h frameHead, ok bool, code int, err error) {
	b := r.buf[r.r:r.w]
	if len(b) < 2 {
		return h, false, 0, nil
	}
	h.fin, h.op = b[0]&0x80 != 0, int(b[0]&0x0F)
	masked, n := b[1]&0x80 != 0, uint64(b[1]&0x7F)
	if b[0]&0x70 != 0 || !masked {
		return h, false, closeProtocol, errProtocol
	}
	switch h.op {
	case opContinuation, websocket.TextMessage, websocket.BinaryMessage:
	case websocket.CloseMessage, websocket.PingMessage, websocket.PongMessage:
		if !h.fin || n > 125 {
			return h, false, closeProtocol, errProtocol
		}
	default:
		return h, false, closeProtocol, errProtocol
	}
	h.head = 2
	switch n {
	case 126:
		if len(b) < 4 {
			return h, false, 0, nil
		}
		n, h.head = uint64(binary.BigEndian.Uint16(b[2:4])), 4
	case 127:
		if len(b) < 10 {
			return h, false, 0, nil
		}
		n, h.head = binary.BigEndian.Uint64(b[2:10]), 10
		if n >= 1<<63 {
			return h, false, closeProtocol, errProtocol
		}
	}
	if h.op < websocket.CloseMessage && r.limit > 0 && (n > uint64(r.limit) || uint64(len(r.msg))+n > uint64(r.limit)) {
		return h, false, closeMessageSize, errMessageLimit
	}
	h.size = n
	h.head += 4 // the masking key
	return h, len(b) >= h.head, 0, nil
}

// buffered reports whether a whole frame is read already (next then
// returns without waiting for the network, unless it is a fragment).
func (r *frameReader) buffered() bool {
	h, ok, _, err := r.header()
	return ok && err == nil && uint64(r.w-r.r-h.head) >= h.size
}

// space returns where the next read goes: after what is read, with room
// for the whole frame being read (a buffer of its size for a frame bigger
// than the usual one).
func (r *frameReader) space() []byte {
	if r.r == r.w {
		r.r, r.w = 0, 0
		if len(r.buf) > maxKeptBuffer {
			r.buf = make([]byte, readBufferSize)
		}
	}
	need := readBufferSize
	if h, ok, _, err := r.header(); ok && err == nil {
		need = max(need, h.head+int(h.size))
	}
	if r.r+need <= len(r.buf) && r.w < len(r.buf) {
		return r.buf[r.w:]
	}
	if need <= len(r.buf) { // room once what is left moves to the start
		r.w = copy(r.buf, r.buf[r.r:r.w])
		r.r = 0
		return r.buf[r.w:]
	}
	nb := make([]byte, need)
	r.w = copy(nb, r.buf[r.r:r.w])
	r.buf, r.r = nb, 0
	return r.buf[r.w:]
}

// frame returns the next frame when it is all read (ok false when not).
func (r *frameReader) frame() (h frameHead, payload []byte, ok bool, err error) {
	h, ok, code, err := r.header()
	if err != nil {
		return h, nil, false, r.fail(code, err)
	}
	if !ok || uint64(r.w-r.r-h.head) < h.size {
		return h, nil, false, nil
	}
	start := r.r + h.head
	end := start + int(h.size)
	var key [4]byte
	copy(key[:], r.buf[start-4:start])
	p := r.buf[start:end]
	unmask(key, p)
	if len(r.buf) > readBufferSize && r.r == 0 && end == r.w {
		// A buffer made for this frame alone: the payload keeps it.
		payload = p[:len(p):len(p)]
		r.buf, r.r, r.w = make([]byte, readBufferSize), 0, 0
		return h, payload, true, nil
	}
	r.r = end
	// A view of the buffer, valid until the next read into it: next and
	// the gate copy what they keep.
	return h, p[:len(p):len(p)], true, nil
}

// next returns the next text or binary message when it is all read (ok
// false when not). A message that came in one frame is a view of the
// buffer, valid until the next read.
func (r *frameReader) next() (msg []byte, binary bool, ok bool, err error) {
	for {
		h, payload, ok, err := r.frame()
		if err != nil || !ok {
			return nil, false, false, err
		}
		switch h.op {
		case websocket.PingMessage:
			r.out.write(makeFrame(websocket.PongMessage, payload))
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
			r.out.write(makeFrame(websocket.CloseMessage, reply))
			return nil, false, false, errPeerClosed
		case websocket.TextMessage, websocket.BinaryMessage:
			if r.started {
				return nil, false, false, r.fail(closeProtocol, errProtocol)
			}
			r.started, r.binary = true, h.op == websocket.BinaryMessage
		case opContinuation:
			if !r.started {
				return nil, false, false, r.fail(closeProtocol, errProtocol)
			}
		}
		switch {
		case r.msg == nil && h.fin:
			r.msg = payload // the whole message, most of the time
		case r.msg == nil:
			r.msg = bytes.Clone(payload) // a first fragment: the others follow in later reads
		default:
			r.msg = append(r.msg, payload...)
		}
		if h.fin {
			msg, binary = r.msg, r.binary
			r.msg, r.started = nil, false
			return msg, binary, true, nil
		}
	}
}

// fail answers a broken stream with a close frame and returns err.
func (r *frameReader) fail(code int, err error) error {
	r.out.write(makeFrame(websocket.CloseMessage, websocket.FormatCloseMessage(code, "")))
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
	closeConn(t.conn.NetConn())
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
	bursts   *bursts         // nil: nothing is held

	mu       sync.Mutex
	queue    []byte // bytes not written yet, in order
	spare    []byte // the other queue buffer, reused
	flushing bool   // a goroutine is writing the queue
	err      error  // the first failure: later frames are dropped
	held     []byte // frames waiting for the end of a burst
	holding  bool   // held is registered with bursts

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
	if raw := rawConn(conn); raw != nil {
		w.raw = raw
		w.writeFd = w.writeNow
	}
	return w
}

// Errors of the writer.
var (
	errWriterClosed   = errors.New("websocket closed")
	errPeerNotReading = errors.New("websocket: the peer left too much unread; connection closed")
)

// maxHeld bounds the bytes a connection holds for the end of a burst;
// more are written at once.
const maxHeld = 64 << 10

// write sends one complete frame (or several): at once, or, during a
// burst, with the connection's other frames when it ends. frame is not
// retained.
func (w *frameWriter) write(frame []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return
	}
	if w.holding || (w.bursts != nil && w.bursts.hold(w)) {
		w.holding = true
		w.held = append(w.held, frame...)
		if len(w.held) < maxHeld {
			return
		}
		w.holding = false // enough waiting: out it goes (the burst's end finds nothing)
		w.writeLocked(w.held)
		w.held = reuse(w.held)
		return
	}
	w.writeLocked(frame)
}

// release writes what was held for a burst that ended.
func (w *frameWriter) release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.holding {
		return
	}
	w.holding = false
	if w.err == nil {
		w.writeLocked(w.held)
	}
	w.held = reuse(w.held)
}

// reuse empties b, or drops it when it grew big.
func reuse(b []byte) []byte {
	if cap(b) > maxKeptBuffer {
		return nil
	}
	return b[:0]
}

// writeLocked writes frame at once, or queues what the socket does not
// take. w.mu is held.
func (w *frameWriter) writeLocked(frame []byte) {
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
		m, err := writeFd(fd, w.out[w.outN:])
		if m > 0 {
			w.outN += m
		}
		switch {
		case err == errInterrupted:
			continue
		case err == errWouldBlock:
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
		closeConn(w.conn)
	}
}

// close drops what is queued; later writes do nothing.
func (w *frameWriter) close() {
	w.mu.Lock()
	if w.err == nil {
		w.err = errWriterClosed
	}
	w.queue, w.held = nil, nil
	w.mu.Unlock()
}

// bursts lets the frames a server writes while one of its readers delivers
// messages that came together (a burst: several requests of a client in
// one read, several answers of a computer) leave together: a connection
// written to during a burst holds its frames, and writes them in one
// syscall when the burst ends (at most maxHeld bytes wait). Outside a
// burst a frame is written at once. Every burst is short: it ends when its
// reader has delivered what it had read, and delivering never waits.
type bursts struct {
	active atomic.Int32 // bursts under way
	mu     sync.Mutex
	held   []*frameWriter // connections holding frames
}

func (b *bursts) begin() { b.active.Add(1) }

// end ends a burst and writes what every connection holds (also frames
// held during other bursts still under way, which then hold anew).
func (b *bursts) end() {
	b.mu.Lock()
	b.active.Add(-1)
	held := b.held
	b.held = nil
	b.mu.Unlock()
	for _, w := range held {
		w.release()
	}
}

// hold registers w to be released at the end of a burst, and reports
// whether one is under way. w.mu is held.
func (b *bursts) hold(w *frameWriter) bool {
	if b.active.Load() == 0 {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.active.Load() == 0 {
		return false
	}
	b.held = append(b.held, w)
	return true
}
