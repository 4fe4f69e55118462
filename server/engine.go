package server

import (
	"bytes"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/zishang520/socket.io/parsers/engine/v3/packet"
	engine "github.com/zishang520/socket.io/servers/engine/v3"
	"github.com/zishang520/socket.io/servers/engine/v3/transports"
	"github.com/zishang520/socket.io/v3/pkg/types"

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
//     After a CONNECT to /smcp comes in, outgoing packets are held until
//     the namespace connection is complete or refused (gates.releaseOut,
//     called from the namespace's connection handler and the token check).
type gatedEngine struct {
	engine.Server
}

func newGatedEngine(opts any) *gatedEngine {
	e := &gatedEngine{Server: engine.MakeServer()}
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
// orders the old cleanup before the client can see the response.
func (e *gatedEngine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if websocket.IsWebSocketUpgrade(r) {
		e.Server.ServeHTTP(w, r)
		return
	}
	ctx := types.NewHttpContext(w, r)
	finished := make(chan struct{})
	_ = ctx.Once("close", func(...any) { close(finished) })
	e.HandleRequest(ctx)
	select {
	case <-finished:
	case <-time.After(cleanupWait):
	}
}

// CreateTransport wraps the transport of a new session in a gate.
func (e *gatedEngine) CreateTransport(name string, ctx *types.HttpContext) (transports.Transport, error) {
	t, err := e.Server.CreateTransport(name, ctx)
	if err != nil {
		return nil, err
	}
	return &gatedTransport{Transport: t}, nil
}

// gates maps engine session ids to the gate of their first transport, so
// the gate is found again after the session upgraded to another transport.
type gates struct{ m sync.Map }

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
	_ = sock.Once("close", func(...any) { gs.m.Delete(sock.Id()) })
	g.release()
}

// releaseOut lets the held outgoing packets of a session go.
func (gs *gates) releaseOut(sock engine.Socket) {
	if g, ok := gs.m.Load(sock.Id()); ok {
		g.(*gatedTransport).releaseOut()
	}
}

// holdLimit bounds how long outgoing packets are held should no release
// come.
const holdLimit = 2 * time.Second

// connectPrefix starts the engine.io message of a Socket.IO CONNECT to the
// SMCP namespace ("0" is CONNECT).
const connectPrefix = "0" + protocol.Namespace

// gatedTransport delays the transport's "packet" events until release, and
// its outgoing packets while a namespace CONNECT is being handled.
type gatedTransport struct {
	transports.Transport

	mu    sync.Mutex
	open  bool
	queue []func()
	owner engine.Socket // the session, once announced

	sendMu  sync.Mutex // orders sends, held or not
	holding bool
	held    []*packet.Packet
	timer   *time.Timer
}

// On wraps "packet" listeners so that they go through the gate.
func (g *gatedTransport) On(ev types.EventName, listeners ...types.EventListener) error {
	if ev != "packet" {
		return g.Transport.On(ev, listeners...)
	}
	wrapped := make([]types.EventListener, len(listeners))
	for i, l := range listeners {
		wrapped[i] = func(args ...any) {
			if p, ok := firstArg(args).(*packet.Packet); ok && isConnect(p) {
				g.hold()
			}
			g.deliver(func() { l(args...) })
		}
	}
	return g.Transport.On(ev, wrapped...)
}

// isConnect reports whether p carries a Socket.IO CONNECT to /smcp.
func isConnect(p *packet.Packet) bool {
	if p.Type != packet.MESSAGE {
		return false
	}
	b, ok := p.Data.(interface{ Bytes() []byte })
	if !ok {
		return false
	}
	data := b.Bytes()
	return bytes.HasPrefix(data, []byte(connectPrefix)) &&
		(len(data) == len(connectPrefix) || data[len(connectPrefix)] == ',')
}

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

// releaseOut stops holding and sends what was held, in one batch.
func (g *gatedTransport) releaseOut() {
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

func (g *gatedTransport) deliver(fn func()) {
	g.mu.Lock()
	if !g.open {
		g.queue = append(g.queue, fn)
		g.mu.Unlock()
		return
	}
	g.mu.Unlock()
	fn()
}

// release delivers the held packets in order and lets later ones through;
// packets arriving while it drains join the queue, so order is kept.
func (g *gatedTransport) release() {
	for {
		g.mu.Lock()
		if len(g.queue) == 0 {
			g.open = true
			g.mu.Unlock()
			return
		}
		q := g.queue
		g.queue = nil
		g.mu.Unlock()
		for _, fn := range q {
			fn()
		}
	}
}
