// Package servertest runs a real SMCP Server on a loopback port for tests
// and provides a scriptable fake Computer built on internal/sio, so that tests
// of the agent, the TUI or other clients meet the real wire.
package servertest

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
)

// Logger returns a debug logger on stderr when SMCP_TEST_LOG=1, otherwise
// one that discards (server goroutines may log after a test ends, so the
// test's own log is not used).
func Logger() *slog.Logger {
	if os.Getenv("SMCP_TEST_LOG") == "1" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// maxKeptLog bounds what LogFor keeps: the newest lines win.
const maxKeptLog = 1 << 20

// LogFor returns a debug logger for the parts a test starts whose lines are
// kept in memory and printed with the test's output only when it fails, so
// that a rare failure in CI comes with the story of what happened. With
// SMCP_TEST_LOG=1 it is Logger (everything on stderr).
func LogFor(t testing.TB) *slog.Logger {
	if os.Getenv("SMCP_TEST_LOG") == "1" {
		return Logger()
	}
	kept := &tailBuffer{max: maxKeptLog}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("logs of the server and clients the test started:\n%s", kept.String())
		}
	})
	return slog.New(slog.NewTextHandler(kept, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// tailBuffer is a concurrency-safe writer keeping the last max bytes.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// Server is a running Server.
type Server struct {
	URL  string // http://127.0.0.1:PORT
	Addr string // 127.0.0.1:PORT
	Srv  *server.Server

	cancel context.CancelFunc
	done   chan error
}

// Start runs a Server on a free loopback port until the test ends.
func Start(t testing.TB, opts server.Options) *Server {
	t.Helper()
	return StartAt(t, "127.0.0.1:0", opts)
}

// StartAt runs a Server on addr (e.g. the address of a stopped one, to
// test reconnection); it retries briefly while the port is still in use.
func StartAt(t testing.TB, addr string, opts server.Options) *Server {
	t.Helper()
	var ln net.Listener
	var err error
	for range 50 {
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	return StartOn(t, ln, opts)
}

// StartOn runs a Server on ln (a listener the test shapes, e.g. one whose
// connections misbehave) until the test ends.
func StartOn(t testing.TB, ln net.Listener, opts server.Options) *Server {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = Logger()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		URL: "http://" + ln.Addr().String(), Addr: ln.Addr().String(),
		Srv: server.New(opts), cancel: cancel, done: make(chan error, 1),
	}
	go func() { s.done <- s.Srv.Serve(ctx, ln) }()
	t.Cleanup(func() { _ = s.Stop() })
	return s
}

// Stop shuts the server down gracefully and returns Serve's result. It is
// safe to call more than once.
func (s *Server) Stop() error {
	s.cancel()
	err, ok := <-s.done
	if !ok {
		return nil
	}
	close(s.done)
	return err
}

// Computer is a fake Computer: an internal/sio connection that joined an office
// and answers client:* events with the handlers it was given.
type Computer struct {
	Conn   *sio.Conn
	Name   string
	Office string
}

// Handlers maps client:* events to their handlers.
type Handlers map[string]sio.Handler

// NewComputer connects a Computer named name to the server at url, joins
// office and re-joins it after every reconnect. It is closed when the test
// ends.
func NewComputer(t testing.TB, url, office, name string, h Handlers) *Computer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := sio.Dial(ctx, sio.Options{URL: url, Logger: Logger(), ReconnectMin: 50 * time.Millisecond, ReconnectMax: 500 * time.Millisecond})
	if err != nil {
		t.Fatalf("computer %s: dial: %v", name, err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	for ev, fn := range h {
		conn.Handle(ev, fn)
	}
	c := &Computer{Conn: conn, Name: name, Office: office}
	// Registered before the first join, so that a reconnect during it
	// still ends in the office.
	conn.OnReconnect(func(ctx context.Context) {
		for i := 0; i < 100 && ctx.Err() == nil; i++ {
			jctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := c.join(jctx)
			cancel()
			if err == nil || errors.Is(err, sio.ErrClosed) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	if err := c.join(ctx); err != nil {
		t.Fatalf("computer %s: join %s: %v", name, office, err)
	}
	return c
}

func (c *Computer) join(ctx context.Context) error {
	_, err := c.Conn.Call(ctx, protocol.EventJoinOffice, protocol.EnterOfficeReq{
		Role: protocol.RoleComputer, Name: c.Name, OfficeID: c.Office,
	})
	return err
}

// Update sends a server:update_* event (e.g. protocol.EventUpdateFinder)
// for this computer and waits for the Server's ack.
func (c *Computer) Update(ctx context.Context, event string) error {
	_, err := c.Conn.Call(ctx, event, protocol.UpdateComputerConfigReq{Computer: c.Name})
	return err
}

// Reply returns a handler answering every request with v.
func Reply(v any) sio.Handler {
	return func(context.Context, json.RawMessage) (any, error) { return v, nil }
}

// Finder returns a client:get_finder handler answering with docs (echoing
// the request's req_id); the request's limit is honoured.
func Finder(docs ...protocol.DPEDocumentSummary) sio.Handler {
	return func(_ context.Context, raw json.RawMessage) (any, error) {
		var req protocol.GetFinderReq
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, protocol.Errorf(protocol.CodeBadRequest, "bad request: %v", err)
		}
		out := docs
		if req.Limit != nil && *req.Limit < len(out) {
			out = out[:*req.Limit]
		}
		return protocol.GetFinderRet{Documents: out, TotalCount: len(docs), ReqID: req.ReqID}, nil
	}
}
