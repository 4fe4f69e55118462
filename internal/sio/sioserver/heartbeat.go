package sioserver

import (
	"time"

	"github.com/zishang520/socket.io/parsers/engine/v3/packet"
	engine "github.com/zishang520/socket.io/servers/engine/v3"
	"github.com/zishang520/socket.io/servers/engine/v3/transports"
	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/smcp-browse/smcp-browse/internal/sio/wire"
)

// The engine's heartbeat sends a ping and only then arms the timer that
// waits for the pong (engine.io v3.0.4, socket.schedulePing). A client
// that answers at once, as one in the same process does, can have its
// pong handled in between: the pong clears the timer of the ping before,
// the new timer is armed after it and fires one pingTimeout later, and a
// session that answered every ping is closed on "ping timeout". The demo
// lost its own agent and computer that way every minute or two.
//
// The gate hands the engine every pong a second time, pongEcho after the
// first: by then the timer is armed, and the echo clears it as the pong
// should have. An echo that was not needed clears nothing and postpones
// the next ping by pongEcho, which is harmless.

// pongEcho returns how long after a pong its echo is delivered: well
// inside both the ping timeout (the timer it must clear) and the ping
// interval (so it never lands between the next ping and its timer).
func pongEcho(interval, timeout time.Duration) time.Duration {
	return min(interval, timeout) / 2
}

// echoPongLater delivers a pong to the session after g.echo, unless the
// transport is closed by then. The echo goes through the queue, behind
// whatever came in meanwhile.
func (g *gatedTransport) echoPongLater() {
	if g.echo <= 0 {
		return
	}
	time.AfterFunc(g.echo, func() {
		g.mu.Lock()
		closed := g.closed
		g.mu.Unlock()
		if !closed {
			g.push(incoming{p: &packet.Packet{Type: packet.PONG}})
		}
	})
}

// echoPongsAfterUpgrade does for a session that upgraded to the library's
// own transport (polling first, then WebSocket) what the gate does for the
// transports it wraps: each pong is delivered again, echo later. Its
// listener runs after the engine's own, which was added first.
func echoPongsAfterUpgrade(sock engine.Socket, echo time.Duration) {
	if echo <= 0 {
		return
	}
	_ = sock.On("upgrade", func(args ...any) {
		t, ok := wire.FirstArg(args).(transports.Transport)
		if !ok {
			return
		}
		if _, gated := t.(*gatedTransport); gated {
			return // the gate echoes its pongs itself
		}
		echoed := &packet.Packet{Type: packet.PONG}
		_ = t.On("packet", func(args ...any) {
			p, ok := wire.FirstArg(args).(*packet.Packet)
			if !ok || p.Type != packet.PONG || p == echoed {
				return
			}
			time.AfterFunc(echo, func() {
				if sock.ReadyState() == "open" && sock.Transport() == t {
					t.Emit(types.EventName("packet"), echoed)
				}
			})
		})
	})
}
