package agent_test

import (
	"errors"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/sio/sioserver"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// bareServer is a Socket.IO server with the /smcp namespace that knows
// server:join_office and answers every other event with an empty ack, as
// a python-socketio server does for an event it has no handler for (the
// official a2c-smcp SDK's Server and client:get_finder).
func bareServer(t *testing.T) string {
	t.Helper()
	return socketServer(t, func(sock *sioserver.Socket) {
		sock.OnEvent(func(event string, _ any, ack sioserver.Ack) {
			switch {
			case ack == nil:
			case event == protocol.EventJoinOffice:
				ack.Send(true, nil)
			default:
				ack.Send()
			}
		})
	})
}

// socketServer serves a bare internal/sio Server (no version check, no
// offices) whose clients onConnection handles.
func socketServer(t *testing.T, onConnection func(*sioserver.Socket)) string {
	t.Helper()
	srv := sioserver.NewServer(sioserver.ServerOptions{OnConnection: onConnection})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		srv.Close()
	})
	return hs.URL
}

// TestServerThatDoesNotRoute checks that a request the Server answers
// with an empty ack fails at once with ErrNotRouted and a sentence naming
// the Finder event, instead of looking like an empty catalog.
func TestServerThatDoesNotRoute(t *testing.T) {
	a := connect(t, bareServer(t), agent.Options{})
	ctx := testCtx(t)
	if err := a.JoinOffice(ctx, "o1"); err != nil {
		t.Fatalf("join: %v", err)
	}
	start := time.Now()
	_, err := a.GetFinder(ctx, "pc", agent.FinderQuery{})
	if !errors.Is(err, agent.ErrNotRouted) || !strings.Contains(err.Error(), "this server does not route Finder requests (client:get_finder)") {
		t.Fatalf("get_finder: %v, want ErrNotRouted naming client:get_finder", err)
	}
	if _, err := a.ReadDocument(ctx, "pc", dpe.Document("h", "doc")); !errors.Is(err, agent.ErrNotRouted) || !strings.Contains(err.Error(), "(client:read_resource)") {
		t.Errorf("read_resource: %v, want ErrNotRouted naming client:read_resource", err)
	}
	if _, err := a.GetDesktop(ctx, "pc", 0, ""); !errors.Is(err, agent.ErrNotRouted) || !strings.Contains(err.Error(), "does not route client:get_desktop") {
		t.Errorf("get_desktop: %v, want ErrNotRouted", err)
	}
	t.Logf("three refused requests took %s", time.Since(start))
}

// TestJoinOfficeSurvivesADroppedConnection: a connection that drops while
// the join is on its way (a server closing it, or a network blip) does not
// fail JoinOffice; the client reconnects and joins within the caller's
// deadline.
func TestJoinOfficeSurvivesADroppedConnection(t *testing.T) {
	var joins atomic.Int32
	url := socketServer(t, func(sock *sioserver.Socket) {
		sock.OnEvent(func(event string, _ any, ack sioserver.Ack) {
			if event != protocol.EventJoinOffice {
				return
			}
			if joins.Add(1) == 1 {
				sock.Disconnect() // the first join loses its connection
				return
			}
			if ack != nil {
				ack.Send(true, nil)
			}
		})
	})
	a := connect(t, url, agent.Options{})
	if err := a.JoinOffice(testCtx(t), "o1"); err != nil {
		t.Fatalf("join across a dropped connection: %v", err)
	}
	if a.Office() != "o1" || joins.Load() < 2 {
		t.Fatalf("office %q after %d joins", a.Office(), joins.Load())
	}
}
