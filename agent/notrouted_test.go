package agent_test

import (
	"errors"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zishang520/socket.io/servers/socket/v3"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// bareServer is a Socket.IO server with the /smcp namespace that knows
// server:join_office and answers every other event with an empty ack, as
// a python-socketio server does for an event it has no handler for (the
// official a2c-smcp SDK's Server and client:get_finder).
func bareServer(t *testing.T) string {
	t.Helper()
	io := socket.NewServer(nil, nil)
	_ = io.Of(protocol.Namespace, nil).On("connection", func(args ...any) {
		sock := args[0].(*socket.Socket)
		sock.OnAny(func(args ...any) {
			if len(args) == 0 {
				return
			}
			ack, ok := args[len(args)-1].(func([]any, error))
			if !ok {
				return
			}
			if args[0] == protocol.EventJoinOffice {
				ack([]any{true, nil}, nil)
				return
			}
			ack([]any{}, nil)
		})
	})
	hs := httptest.NewServer(io.ServeHandler(nil))
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		io.Close(nil)
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
	io := socket.NewServer(nil, nil)
	var joins atomic.Int32
	_ = io.Of(protocol.Namespace, nil).On("connection", func(args ...any) {
		sock := args[0].(*socket.Socket)
		_ = sock.On(protocol.EventJoinOffice, func(args ...any) {
			if joins.Add(1) == 1 {
				sock.Disconnect(true) // the first join loses its connection
				return
			}
			if ack, ok := args[len(args)-1].(func([]any, error)); ok {
				ack([]any{true, nil}, nil)
			}
		})
	})
	hs := httptest.NewServer(io.ServeHandler(nil))
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		io.Close(nil)
	})
	a := connect(t, hs.URL, agent.Options{})
	if err := a.JoinOffice(testCtx(t), "o1"); err != nil {
		t.Fatalf("join across a dropped connection: %v", err)
	}
	if a.Office() != "o1" || joins.Load() < 2 {
		t.Fatalf("office %q after %d joins", a.Office(), joins.Load())
	}
}
