package sioserver

import (
	"bytes"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/zishang520/socket.io/parsers/engine/v3/packet"
	engine "github.com/zishang520/socket.io/servers/engine/v3"
	"github.com/zishang520/socket.io/servers/engine/v3/transports"
	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/smcp-browse/smcp-browse/internal/sio/wire"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// gatedEngine is the engine.io server with two races of the library
// closed, both of which a fast client (a WebSocket one above all) hits:
//
//   - The engine sends a new session's open packet before it announces the
//     session to Socket.IO, so the client's namespace CONNECT can be
//     delivered before anyone listens, and the connection hangs. Incoming
//     packets of a new session are held until it has been announced
//     (gates.adopt, called from an engine connection listener registered
//     after Socket.IO's own).
//   - Socket.IO writes the namespace CONNECT answer before it records the
//     namespace as joined, so the client's first event can arrive in
//     between, and Socket.IO then closes the connection as out of order.
//     A client may also send its first event right behind the CONNECT,
//     without waiting for the answer (in the same polling payload, or as
//     the next WebSocket message), which Socket.IO treats the same way.
//     After a CONNECT to /smcp comes in, outgoing packets and the incoming
//     packets behind it are held until the namespace connection is
//     complete or refused (gates.releaseOut, called from the namespace's
//     connection handler and the token check).
//
// It also answers the long-polls of the sessions it closes: the library's
// polling transport shuts its write queue before it queues the close
// packet, so a pending poll (or the next one, which it waits for to carry
// the close) is never answered, and its connection hangs until the client
// gives up.
type gatedEngine struct {
	engine.Server
	gates  *gates
	bursts bursts // of every WebSocket session's reader (wsTransport)
}

func newGatedEngine(opts any, gs *gates) *gatedEngine {
	e := &gatedEngine{Server: engine.MakeServer(), gates: gs}
	e.Prototype(e) // the engine's handshake now calls our CreateTransport
	e.Construct(opts)
	return e
}

// cleanupWait bounds how long a finished HTTP request waits for the
// engine to finish with its context.
const cleanupWait = time.Second

// ServeHTTP hands a request to the engine, and returns only after the
// engine has finished with the request's context. The library answers a
// long-poll, wakes the handler, and only then runs the context's cleanup,
// which clears "the pending poll" of the session unconditionally; a
// client that polls again at once could have its new poll cleared that
// way, and the next write then failed and closed the session. The "close"
// event of a context is emitted after its cleanup, so waiting for it
// orders the old cleanup before the client can see a response that waits
// in the connection's write buffer until the handler returns. A bigger
// response reaches the client before that: a new poll of the session
// waits for the handler of an answered one (startPoll).
func (e *gatedEngine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if websocket.IsWebSocketUpgrade(r) {
		e.Server.ServeHTTP(w, r)
		return
	}
	ctx := types.NewHttpContext(w, r)
	finished := make(chan struct{})
	_ = ctx.Once("close", func(...any) { close(finished) })
	if g := e.gates.poll(r); g != nil {
		lp := g.startPoll(ctx)
		if lp == nil {
			answerClosed(ctx)
			return
		}
		defer g.endPoll(lp)
	}
	e.HandleRequest(ctx)
	select {
	case <-finished:
	case <-time.After(cleanupWait):
	}
}

// CreateTransport wraps the transport of a new session in a gate; a
// session that starts on WebSocket gets the Server's own transport
// (wsTransport). (The library creates the WebSocket transport of an
// upgrade itself, without this method.)
func (e *gatedEngine) CreateTransport(name string, ctx *types.HttpContext) (transports.Transport, error) {
	echo := pongEcho(e.Opts().PingInterval(), e.Opts().PingTimeout())
	if name == transports.WEBSOCKET && ctx.Websocket != nil && ctx.Websocket.Conn != nil && e.Opts().PerMessageDeflate() == nil {
		ws := newWSTransport(ctx, e.Opts().MaxHttpBufferSize(), &e.bursts)
		g := &gatedTransport{Transport: ws, ws: ws, echo: echo}
		ws.start(g)
		return g, nil
	}
	t, err := e.Server.CreateTransport(name, ctx)
	if err != nil {
		return nil, err
	}
	g := &gatedTransport{Transport: t, echo: echo}
	if p, ok := t.(transports.Polling); ok {
		p.Prototype(&pollWriter{Polling: p, g: g}) // the library's writes now call pollWriter.DoWrite
	}
	return g, nil
}

// pollWriter is a polling transport whose writes to a long-poll exclude
// the gate's own answer to it (answerClosed when the session closes). The
// library sets the poll's response headers and then writes it from its
// write queue's goroutine; a close packet written to the same poll by
// another goroutine meanwhile (net/http clones the headers in WriteHeader)
// was a data race on the response's header map.
type pollWriter struct {
	transports.Polling
	g *gatedTransport
}

// DoWrite answers the long-poll ctx with data, unless the gate answered it
// already. callback runs after the lock is released: it may send again or
// close the session, which take it.
func (p *pollWriter) DoWrite(ctx *types.HttpContext, data types.BufferInterface, opts *packet.Options, callback func(error)) {
	var (
		mu       sync.Mutex
		locked   = true
		finished bool
		result   error
	)
	inner := func(err error) {
		mu.Lock()
		if locked { // called from inside the library's DoWrite, as it does
			finished, result = true, err
			mu.Unlock()
			return
		}
		mu.Unlock()
		callback(err)
	}
	p.g.answerMu.Lock()
	if ctx.IsDone() {
		// The gate sent the close packet: the session is closing.
		if ctx.Cleanup != nil {
			ctx.Cleanup()
		}
		inner(nil)
	} else {
		p.Polling.DoWrite(ctx, data, opts, inner)
	}
	p.g.answerMu.Unlock()
	mu.Lock()
	locked = false
	done, err := finished, result
	mu.Unlock()
	if done {
		callback(err)
	}
}

// gates maps engine session ids to the gate of their first transport, so
// the gate is found again after the session upgraded to another transport.
type gates struct {
	m    sync.Map
	open atomic.Int64 // sessions announced and not closed
}

// adopt is called when the engine announces a session: it ties the
// session's gate to it and opens the incoming side.
func (gs *gates) adopt(sock engine.Socket) {
	g, ok := sock.Transport().(*gatedTransport)
	if !ok {
		return
	}
	g.mu.Lock()
	g.owner = sock
	g.mu.Unlock()
	gs.m.Store(sock.Id(), g)
	gs.open.Add(1)
	_ = sock.Once("close", func(...any) {
		gs.m.Delete(sock.Id())
		gs.open.Add(-1)
	})
	g.release()
}

// poll returns the gate of the session a polling GET belongs to, or nil.
func (gs *gates) poll(r *http.Request) *gatedTransport {
	if r.Method != http.MethodGet {
		return nil
	}
	q := r.URL.Query()
	sid := q.Get("sid")
	if sid == "" || q.Get("transport") != "polling" {
		return nil
	}
	if g, ok := gs.m.Load(sid); ok {
		return g.(*gatedTransport)
	}
	return nil
}

// answerClosed answers a long-poll with the engine.io close packet.
func answerClosed(ctx *types.HttpContext) {
	ctx.ResponseHeaders().Set("Content-Type", "text/plain; charset=UTF-8")
	_, _ = ctx.Write([]byte("1")) // the engine.io close packet
}

// get returns the gate of a session, or nil.
func (gs *gates) get(sock engine.Socket) *gatedTransport {
	if g, ok := gs.m.Load(sock.Id()); ok {
		return g.(*gatedTransport)
	}
	return nil
}

// releaseOut lets the held outgoing packets of a session go.
func (gs *gates) releaseOut(sock engine.Socket) {
	if g := gs.get(sock); g != nil {
		g.releaseOut()
	}
}

// holdLimit bounds how long outgoing packets are held should no release
// come.
const holdLimit = 2 * time.Second

// connectPrefix starts the engine.io message of a Socket.IO CONNECT to the
// SMCP namespace ("0" is CONNECT).
const connectPrefix = "0" + protocol.Namespace

// gatedTransport delays the transport's "packet" events until release, and
// both its outgoing packets and the incoming packets behind a namespace
// CONNECT while that CONNECT is being handled. On the Server's own
// WebSocket transport it also dispatches the events and acks of a joined
// session itself (fastSocket), in their place among the other packets.
type gatedTransport struct {
	transports.Transport
	ws *wsTransport // the Server's WebSocket transport, or nil (polling)

	mu         sync.Mutex
	open       bool   // the session was announced
	inHold     bool   // a CONNECT is being handled: later packets wait
	inLeave    bool   // a DISCONNECT of /smcp is being handled: later packets wait
	leaves     uint64 // DISCONNECTs of /smcp delivered, to tell their timers apart
	draining   bool   // a goroutine is delivering queued packets
	queue      []incoming
	listeners  []types.EventListener // of "packet"
	subscribed bool                  // the gate listens to the inner transport's "packet"
	owner      engine.Socket         // the session, once announced
	closed     bool                  // Close was called
	polling    *longPoll             // the long-poll in progress, if any
	answerMu   sync.Mutex            // orders the writes to a long-poll (see pollWriter)
	fast       *fastSocket           // the joined /smcp session (WebSocket only)
	echo       time.Duration         // when a pong is delivered again (pongEcho)

	sendMu  sync.Mutex // orders sends, held or not
	holding bool
	held    []*packet.Packet
	timer   *time.Timer
}

// incoming is one message waiting for delivery: an engine.io packet, or
// (from wsTransport) a raw message the fast path may take.
type incoming struct {
	p        *packet.Packet
	msg      []byte
	binary   bool // msg is a binary message
	borrowed bool // msg is the reader's buffer: valid only until push returns
	connect  bool // a CONNECT to /smcp: the packets behind it wait for its outcome
	leave    bool // a DISCONNECT of /smcp: the packets behind it wait until it is done
}

// own makes in's message its own, a copy of the reader's buffer.
func (in *incoming) own() {
	if in.borrowed {
		in.msg, in.borrowed = bytes.Clone(in.msg), false
	}
}

// On keeps the "packet" listeners, so that packets reach them through the
// gate.
func (g *gatedTransport) On(ev types.EventName, listeners ...types.EventListener) error {
	if ev != "packet" {
		return g.Transport.On(ev, listeners...)
	}
	g.mu.Lock()
	g.listeners = append(g.listeners, listeners...)
	subscribe := g.ws == nil && !g.subscribed
	g.subscribed = g.subscribed || subscribe
	g.mu.Unlock()
	if subscribe {
		return g.Transport.On("packet", g.fromTransport)
	}
	return nil
}

// RemoveListener removes a "packet" listener (matched as the library's
// emitter matches them, by function).
func (g *gatedTransport) RemoveListener(ev types.EventName, l types.EventListener) bool {
	if ev != "packet" {
		return g.Transport.RemoveListener(ev, l)
	}
	ptr := reflect.ValueOf(l).Pointer()
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, have := range g.listeners {
		if reflect.ValueOf(have).Pointer() == ptr {
			g.listeners = slices.Delete(slices.Clone(g.listeners), i, i+1)
			return true
		}
	}
	return false
}

// fromTransport is the gate's listener of the library transport's packets.
func (g *gatedTransport) fromTransport(args ...any) {
	if p, ok := wire.FirstArg(args).(*packet.Packet); ok {
		g.pushPacket(p)
	}
}

// pushPacket queues an engine.io packet.
func (g *gatedTransport) pushPacket(p *packet.Packet) {
	connect := isConnect(p)
	if connect {
		g.hold()
	}
	g.push(incoming{p: p, connect: connect, leave: isDisconnect(p)})
	if p.Type == packet.PONG {
		g.echoPongLater() // see pongEcho
	}
}

// fromWS queues a message wsTransport read. The events and acks of /smcp
// stay raw: whether the fast path takes them is decided on delivery, once
// the packets before them have been delivered.
// msg is the reader's buffer, valid until fromWS returns: what is kept
// longer (queued, handed to the library) is copied.
func (g *gatedTransport) fromWS(msg []byte, binary bool) {
	if binary || isFastText(msg) {
		g.push(incoming{msg: msg, binary: binary, borrowed: true})
		return
	}
	// A message that does not decode becomes the library's error packet,
	// on which the engine closes the session ("parse error").
	p, _ := g.ws.Parser().DecodePacket(types.NewStringBuffer(bytes.Clone(msg)))
	g.pushPacket(p)
}

// setFast makes fs the session's fast path (nil: none).
func (g *gatedTransport) setFast(fs *fastSocket) {
	g.mu.Lock()
	g.fast = fs
	g.mu.Unlock()
}

// deliver hands one message on: to the session's fast path fs when it
// has one, else to the "packet" listeners ls.
func (g *gatedTransport) deliver(in incoming, fs *fastSocket, ls []types.EventListener) {
	p := in.p
	if in.msg != nil && !(fs != nil && !in.binary) {
		in.own() // the library keeps it
	}
	switch {
	case in.msg != nil && in.binary:
		if fs != nil && fs.dec.Reconstructing() {
			fs.deliverBinary(in.msg)
			return
		}
		p = &packet.Packet{Type: packet.MESSAGE, Data: types.NewBytesBuffer(in.msg)}
	case in.msg != nil:
		if fs != nil {
			fs.deliverText(in.msg, in.borrowed)
			return
		}
		p, _ = g.ws.Parser().DecodePacket(types.NewStringBuffer(in.msg))
	case fs != nil && p.Type == packet.MESSAGE:
		// A text message the fast path does not take ends a binary packet
		// still waiting for attachments, as in the library's decoder.
		fs.dropBinary()
		if in.leave {
			// The client leaves the namespace: what follows is the
			// library's to judge (it closes the session on an event).
			g.setFast(nil)
		}
	}
	for _, l := range ls {
		l(p)
	}
}

// isDisconnect reports whether p carries a Socket.IO DISCONNECT of /smcp.
func isDisconnect(p *packet.Packet) bool { return isNamespacePacket(p, "1"+protocol.Namespace) }

// isNamespacePacket reports whether p is a Socket.IO packet that starts
// with prefix (type and namespace) followed by its end or a comma.
func isNamespacePacket(p *packet.Packet, prefix string) bool {
	if p.Type != packet.MESSAGE {
		return false
	}
	b, ok := p.Data.(interface{ Bytes() []byte })
	if !ok {
		return false
	}
	data := b.Bytes()
	return len(data) >= len(prefix) && string(data[:len(prefix)]) == prefix &&
		(len(data) == len(prefix) || data[len(prefix)] == ',')
}

// writeFast writes a frame the fast path encoded (see newFrame): at once,
// or held with the other outgoing packets.
func (g *gatedTransport) writeFast(frame []byte) {
	g.sendMu.Lock()
	defer g.sendMu.Unlock()
	if g.holding {
		msg := frame[maxHeader+1:] // the Socket.IO packet, after "4"
		g.held = append(g.held, &packet.Packet{Type: packet.MESSAGE, Data: types.NewStringBuffer(bytes.Clone(msg))})
		return
	}
	g.ws.writeText(frame)
}

// isConnect reports whether p carries a Socket.IO CONNECT to /smcp.
func isConnect(p *packet.Packet) bool { return isNamespacePacket(p, connectPrefix) }

// hold starts holding outgoing packets.
func (g *gatedTransport) hold() {
	g.sendMu.Lock()
	defer g.sendMu.Unlock()
	if g.holding {
		return
	}
	g.holding = true
	g.timer = time.AfterFunc(holdLimit, g.releaseOut)
}

// Send passes packets on, or keeps them while holding.
func (g *gatedTransport) Send(packets []*packet.Packet) {
	g.sendMu.Lock()
	defer g.sendMu.Unlock()
	if g.holding {
		g.held = append(g.held, packets...)
		return
	}
	g.Transport.Send(packets)
}

// releaseOut stops holding: it sends what was held, in one batch, and then
// delivers the incoming packets that waited behind the CONNECT.
func (g *gatedTransport) releaseOut() {
	g.flushOut()
	g.mu.Lock()
	g.inHold = false
	g.mu.Unlock()
	g.drain()
}

func (g *gatedTransport) flushOut() {
	g.sendMu.Lock()
	defer g.sendMu.Unlock()
	if !g.holding {
		return
	}
	g.holding = false
	g.timer.Stop()
	held := g.held
	g.held = nil
	if len(held) == 0 {
		return
	}
	g.mu.Lock()
	owner := g.owner
	g.mu.Unlock()
	if owner != nil {
		if cur := owner.Transport(); cur != nil && cur != transports.Transport(g) {
			// The session upgraded (polling to WebSocket) meanwhile.
			cur.Send(held)
			return
		}
	}
	g.Transport.Send(held)
}

// longPoll is a long-poll being served.
type longPoll struct {
	ctx   *types.HttpContext
	ended chan struct{} // closed when its handler has returned
}

// startPoll records a long-poll of the session; nil when the transport is
// already closed (the caller answers the close itself).
//
// A client without keep-alive polls again on a new connection, served
// while the handler of its last poll may still be running; one big enough
// to leave the write buffer is in its hands before that handler's cleanup,
// which would forget the new poll (the session then ended with "transport
// error" at its next answer). A poll that comes after an answered one
// waits for the answered one's handler (at most cleanupWait). One that
// comes while the last poll is unanswered is the client's overlap, left to
// the library to refuse.
func (g *gatedTransport) startPoll(ctx *types.HttpContext) *longPoll {
	g.mu.Lock()
	prev := g.polling
	g.mu.Unlock()
	if prev != nil && prev.ctx.IsDone() {
		select {
		case <-prev.ended:
		case <-time.After(cleanupWait):
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil
	}
	lp := &longPoll{ctx: ctx, ended: make(chan struct{})}
	g.polling = lp
	return lp
}

// endPoll forgets a long-poll whose handler returns. A write of the
// library to it may still be under way: a client that has read a big
// answer can close its connection, which ends the poll's context, before
// the write call returns, and net/http must not flush the response
// meanwhile (a data race on its buffer). Such a write holds answerMu.
func (g *gatedTransport) endPoll(lp *longPoll) {
	g.answerMu.Lock()
	//lint:ignore SA2001 the lock orders this after the write that holds it
	g.answerMu.Unlock()
	close(lp.ended)
	g.mu.Lock()
	if g.polling == lp {
		g.polling = nil
	}
	g.mu.Unlock()
}

// Close closes the transport, and answers the long-poll the library would
// leave hanging. A polling transport with no poll to carry the close
// packet is discarded, so the session ends now rather than after the
// library's close timeout.
func (g *gatedTransport) Close(fn ...types.Callable) {
	g.mu.Lock()
	g.closed = true
	poll := g.polling
	g.mu.Unlock()
	if g.Name() == transports.POLLING && poll == nil {
		g.Discard()
	}
	g.Transport.Close(fn...)
	if poll != nil {
		g.answerMu.Lock()
		if !poll.ctx.IsDone() {
			answerClosed(poll.ctx)
		}
		g.answerMu.Unlock()
	}
}

// push delivers one incoming message, at once when nothing is ahead of
// it, else after what is.
func (g *gatedTransport) push(in incoming) {
	g.mu.Lock()
	if len(g.queue) == 0 && g.deliverable() {
		g.deliverLocked(in)
	} else {
		in.own()
		g.queue = append(g.queue, in)
	}
	g.drainLocked()
}

// releaseLeave lets the packets behind a DISCONNECT of /smcp go.
func (g *gatedTransport) releaseLeave() {
	g.mu.Lock()
	g.inLeave = false
	g.drainLocked()
}

// leaveTimedOut ends the wait behind the leave-th DISCONNECT, unless a
// later one is being waited for.
func (g *gatedTransport) leaveTimedOut(leave uint64) {
	g.mu.Lock()
	if g.leaves == leave {
		g.inLeave = false
	}
	g.drainLocked()
}

// release opens the incoming side once the session is announced.
func (g *gatedTransport) release() {
	g.mu.Lock()
	g.open = true
	g.mu.Unlock()
	g.drain()
}

// drain delivers queued packets in order, one goroutine at a time, until
// the queue is empty or a CONNECT's outcome is awaited. A delivery that
// releases the gate itself (the namespace connected at once) finds the
// drainer running and leaves the rest to it.
func (g *gatedTransport) drain() {
	g.mu.Lock()
	g.drainLocked()
}

// drainLocked is drain with g.mu held; it returns with g.mu released.
func (g *gatedTransport) drainLocked() {
	for len(g.queue) > 0 && g.deliverable() {
		in := g.queue[0]
		g.queue[0] = incoming{}
		if len(g.queue) == 1 {
			g.queue = g.queue[:0] // keeps the array for the next message
		} else {
			g.queue = g.queue[1:]
		}
		g.deliverLocked(in)
	}
	g.mu.Unlock()
}

// deliverable reports whether the next packet may be delivered. g.mu is
// held.
func (g *gatedTransport) deliverable() bool {
	return g.open && !g.draining && !g.inHold && !g.inLeave
}

// deliverLocked delivers in, with g.mu held except during the delivery.
func (g *gatedTransport) deliverLocked(in incoming) {
	if in.connect {
		g.inHold = true
	}
	if in.leave {
		// The library handles a DISCONNECT on the namespace socket's own
		// goroutine, after the packets behind it: a CONNECT right behind
		// it found the namespace still joined and closed the session as
		// out of order. The packets behind it wait for the socket's
		// "disconnect" (releaseLeave), or holdLimit.
		g.inLeave = true
		g.leaves++
		leave := g.leaves
		time.AfterFunc(holdLimit, func() { g.leaveTimedOut(leave) })
	}
	g.draining = true
	fs, ls := g.fast, g.listeners
	g.mu.Unlock()
	g.deliver(in, fs, ls)
	g.mu.Lock()
	g.draining = false
}
