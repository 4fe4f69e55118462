package sio_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
)

// TestVersionMismatchFailsLoudly: a client refused with 4008 fails with an
// error naming both versions and the flag to pin the Server's; it never
// retries with the Server's version by itself (versioning.md). Pinned to
// the Server's version, it connects.
func TestVersionMismatchFailsLoudly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	var tried sync.Map // a2c_version values the server saw
	srv := server.New(server.Options{Version: "0.5.0"})
	t.Cleanup(srv.Close)
	inner := srv.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.URL.Query().Get("a2c_version"); v != "" {
			tried.Store(v, true)
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)

	_, err := sio.Dial(ctx, sio.Options{URL: hs.URL})
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeVersionMismatch || pe.Extra["server_version"] != "0.5.0" {
		t.Fatalf("got %v, want the 4008 refusal naming 0.5.0", err)
	}
	for _, want := range []string{protocol.Version, "0.5.0", "--a2c-version 0.5.0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if _, retried := tried.Load("0.5.0"); retried {
		t.Error("the client retried with the Server's version by itself")
	}

	c, err := sio.Dial(ctx, sio.Options{URL: hs.URL, Version: "0.5.0"})
	if err != nil {
		t.Fatalf("pinned to the Server's version: %v", err)
	}
	defer c.Close()
	if c.Version() != "0.5.0" {
		t.Errorf("version sent %q", c.Version())
	}
	if _, err := c.Call(ctx, protocol.EventJoinOffice, protocol.EnterOfficeReq{Role: protocol.RoleAgent, Name: "a", OfficeID: "o"}); err != nil {
		t.Errorf("join at the pinned version: %v", err)
	}
}

// TestWrongSocketPathIsExplained: a Server whose Socket.IO path is /smcp
// (the official SDK's) answers 404 at /socket.io/; the error names the
// path tried and suggests --socket-path /smcp.
func TestWrongSocketPathIsExplained(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	srv := server.New(server.Options{})
	t.Cleanup(srv.Close)
	mux := http.NewServeMux()
	mux.Handle("/smcp/", srv.Handler())
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)

	_, err := sio.Dial(ctx, sio.Options{URL: hs.URL})
	if err == nil {
		t.Fatal("connected at a path the Server does not serve")
	}
	for _, want := range []string{"/socket.io/", "404", "--socket-path /smcp"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	c, err := sio.Dial(ctx, sio.Options{URL: hs.URL, Path: "/smcp"})
	if err != nil {
		t.Fatalf("with the suggested path: %v", err)
	}
	_ = c.Close()
}
