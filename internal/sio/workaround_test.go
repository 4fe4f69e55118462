package sio

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/sio/sioserver"
	"github.com/smcp-browse/smcp-browse/protocol"
)

const testWait = 10 * time.Second

// startEcho starts a bare Socket.IO server whose handler acks every event
// with its payload, and returns its URL.
func startEcho(t *testing.T) string {
	t.Helper()
	srv := sioserver.NewServer(sioserver.ServerOptions{OnConnection: func(s *sioserver.Socket) {
		s.OnEvent(func(_ string, payload any, ack sioserver.Ack) {
			if ack != nil {
				ack.Send(payload)
			}
		})
	}})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Close(); hs.Close() })
	return hs.URL
}

// TestMissedOpenIsNoticed: when the Socket.IO manager misses its engine's
// open event (the library subscribes to it only after the engine has
// started dialling, so a fast handshake can go unheard), the try is given
// up and made again at once, and Dial succeeds within a deadline shorter
// than one try's own timeout. Without the watch (watchOpen) the deaf try
// waits for its timer and Dial fails with 408.
func TestMissedOpenIsNoticed(t *testing.T) {
	url := startEcho(t)
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	const dialTimeout = tryTimeout * 3 / 5 // the deaf try's timer never ends in time
	c, err := Dial(ctx, Options{URL: url, DialTimeout: dialTimeout, deafTries: 1})
	if err != nil {
		t.Fatalf("dial after a missed open: %v (code %d)", err, protocol.CodeOf(err))
	}
	defer func() { _ = c.Close() }()
	if c.deafTries != 1 {
		t.Fatalf("%d deaf tries, want 1: the test did not simulate the missed open", c.deafTries)
	}
	if _, err := c.Call(ctx, "ping", map[string]int{"n": 1}); err != nil {
		t.Fatalf("call after the second try: %v", err)
	}
}

// TestConnectTimerCanNeverFire: the manager's own connect timer of a live
// connection can never fall due. The library registers that timer for
// disarming only after Manager.Open has dialled, so an engine that opens
// first left it armed, and it closed the healthy connection once its
// timeout passed (about 1 connection in 600 on a loaded machine; the race
// is inside the library and cannot be forced from here, so the test checks
// the timer the connection's manager was given). The try's own timer bounds
// the connect instead.
func TestConnectTimerCanNeverFire(t *testing.T) {
	url := startEcho(t)
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	c, err := Dial(ctx, Options{URL: url, DialTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	c.mu.Lock()
	s := c.sock
	c.mu.Unlock()
	const century = 100 * 365 * 24 * time.Hour
	if d := s.Io().Timeout(); d != nil && *d < century {
		t.Fatalf("the manager's connect timer falls due after %s: an engine that opens before Open arms it would be closed then", *d)
	}
}
