package agent_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/internal/sio/sioserver"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// TestRejoinDoesNotHoldBackState: after a reconnect the agent re-joins its
// office, and a Server that still holds its old seat refuses (4101) for a
// while, so the re-join keeps trying. If the connection drops meanwhile
// (the node it reached went down too, as when a cluster's Redis hangs),
// the agent says so at once: State is Reconnecting, not Connected until
// the re-join gives up. Once the seat is free it re-joins.
func TestRejoinDoesNotHoldBackState(t *testing.T) {
	var conns atomic.Int32
	var seatFree atomic.Bool
	var joined atomic.Int32
	socks := make(chan *sioserver.Socket, 4)
	url := socketServer(t, func(sock *sioserver.Socket) {
		n := conns.Add(1)
		var once sync.Once
		sock.OnEvent(func(event string, _ any, ack sioserver.Ack) {
			if event != protocol.EventJoinOffice || ack == nil {
				return
			}
			if n == 1 || seatFree.Load() {
				ack.Send(true, nil)
				joined.Add(1)
			} else {
				ack.Send(map[string]any{"code": protocol.CodeRoomFull, "message": "office o1 already has an agent"})
			}
			if n <= 2 {
				once.Do(func() { socks <- sock })
			}
		})
	})
	states := make(chan agent.State, 64)
	a := connect(t, url, agent.Options{Handlers: agent.Handlers{State: func(s agent.State) { states <- s }}})
	if err := a.JoinOffice(testCtx(t), "o1"); err != nil {
		t.Fatalf("join: %v", err)
	}
	deadline := time.After(wait)
	next := func(want agent.State) {
		t.Helper()
		for {
			select {
			case s := <-states:
				if s == want {
					return
				}
			case <-deadline:
				t.Fatalf("state %s not reported; State() = %s", want, a.State())
			}
		}
	}
	next(agent.StateConnected)

	(<-socks).Disconnect() // the first connection drops
	next(agent.StateReconnecting)
	next(agent.StateConnected)
	second := <-socks // its re-join was refused: the old seat is still held
	second.Disconnect()
	next(agent.StateReconnecting)

	seatFree.Store(true)
	next(agent.StateConnected)
	for joined.Load() < 2 {
		select {
		case <-deadline:
			t.Fatalf("not re-joined after the seat was free (%d connections)", conns.Load())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if a.Office() != "o1" {
		t.Fatalf("office %q", a.Office())
	}
}
