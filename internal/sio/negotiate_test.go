package sio_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
)

// strictServer serves this project's Server behind a gate that, like a
// 0.x server of the official SDK, accepts only a2c_version want and refuses
// any other with the 4008 body naming serverVersion.
func strictServer(t *testing.T, want, serverVersion string) string {
	t.Helper()
	srv := server.New(server.Options{})
	t.Cleanup(srv.Close)
	inner := srv.Handler()
	gate := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("sid") == "" && q.Get("a2c_version") != want {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{
				"code": 4008, "message": "Protocol version mismatch",
				"server_version": serverVersion, "client_version": q.Get("a2c_version"),
				"min_supported": want, "max_supported": want,
			})
			return
		}
		inner.ServeHTTP(w, r)
	})
	hs := httptest.NewServer(gate)
	t.Cleanup(hs.Close)
	return hs.URL
}

func TestVersionNegotiation(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	t.Run("adopts a server version it speaks", func(t *testing.T) {
		url := strictServer(t, "0.4.0", "0.4.0")
		c, err := sio.Dial(ctx, sio.Options{URL: url})
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		defer c.Close()
		if c.Version() != "0.4.0" {
			t.Errorf("version sent %q, want 0.4.0", c.Version())
		}
		if _, err := c.Call(ctx, protocol.EventJoinOffice, protocol.EnterOfficeReq{Role: protocol.RoleAgent, Name: "a", OfficeID: "o"}); err != nil {
			t.Errorf("join after negotiation: %v", err)
		}
	})
	t.Run("keeps an explicit version", func(t *testing.T) {
		url := strictServer(t, "0.4.0", "0.4.0")
		_, err := sio.Dial(ctx, sio.Options{URL: url, Version: protocol.Version})
		if protocol.CodeOf(err) != protocol.CodeVersionMismatch {
			t.Fatalf("got %v, want the 4008 refusal", err)
		}
	})
	t.Run("refuses a server version it does not speak", func(t *testing.T) {
		url := strictServer(t, "0.5.0", "0.5.0")
		_, err := sio.Dial(ctx, sio.Options{URL: url})
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.CodeVersionMismatch || pe.Extra["server_version"] != "0.5.0" {
			t.Fatalf("got %v, want the 4008 refusal naming 0.5.0", err)
		}
	})
	t.Run("default is this project's version", func(t *testing.T) {
		url := strictServer(t, protocol.Version, protocol.Version)
		c, err := sio.Dial(ctx, sio.Options{URL: url})
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		defer c.Close()
		if c.Version() != protocol.Version {
			t.Errorf("version sent %q, want %s", c.Version(), protocol.Version)
		}
	})
}
