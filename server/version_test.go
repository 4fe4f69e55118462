package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// TestOneVersionAtATime: a Server admits its own MAJOR.MINOR only (any
// patch), and one pinned to another version admits that one instead.
func TestOneVersionAtATime(t *testing.T) {
	tests := []struct {
		server, client string
		want           bool
		min, max       string // the range a refusal names
	}{
		{"0.4.0", "0.4.0", true, "", ""}, // a2c-smcp 0.4.2, the newest Python SDK
		{"0.4.0", "0.4.7", true, "", ""},
		{"0.4.0", "0.4.0-dev", true, "", ""},
		{"0.4.0", "0.3.0", false, "0.4.0", "0.4.999"},
		{"0.4.0", "0.2.0", false, "0.4.0", "0.4.999"},
		{"0.4.0", "0.5.0", false, "0.4.0", "0.4.999"},
		{"0.4.0", "1.0.0", false, "0.4.0", "0.4.999"},
		{"0.2.0", "0.2.0", true, "", ""}, // pinned for an older peer
		{"0.2.0", "0.4.0", false, "0.2.0", "0.2.999"},
		{"1.2.0", "1.1.0", true, "", ""},
		{"1.2.0", "1.3.0", false, "1.0.0", "1.2.999"},
	}
	for _, tt := range tests {
		srv := New(Options{Version: tt.server})
		r := httptest.NewRequest(http.MethodGet, "/socket.io/?EIO=4&transport=polling&a2c_version="+tt.client, nil)
		e := checkVersion(r, srv.version)
		srv.Close()
		if got := e == nil; got != tt.want {
			t.Errorf("server %s, client %s: admitted %v, want %v (%v)", tt.server, tt.client, got, tt.want, e)
		}
		if e != nil && (e.Code != protocol.CodeVersionMismatch || e.Extra["server_version"] != tt.server || e.Extra["client_version"] != tt.client) {
			t.Errorf("server %s, client %s: refusal %+v does not name both versions", tt.server, tt.client, e)
		}
		if e != nil && (e.Extra["min_supported"] != tt.min || e.Extra["max_supported"] != tt.max) {
			t.Errorf("server %s, client %s: refusal %+v, want min_supported %s and max_supported %s", tt.server, tt.client, e, tt.min, tt.max)
		}
	}
}

func TestVersionMiddleware(t *testing.T) {
	srv := New(Options{})
	defer srv.Close()
	h := srv.Handler()
	tests := []struct {
		name      string
		path      string
		ws        bool
		status    int
		code      int
		errHeader string
	}{
		{"polling handshake ok", "/socket.io/?EIO=4&transport=polling&a2c_version=0.4.1", false, 200, 0, ""},
		{"python sdk path ok", "/smcp/?EIO=4&transport=polling&a2c_version=0.4.0", false, 200, 0, ""},
		{"missing", "/socket.io/?EIO=4&transport=polling", false, 400, 400, ""},
		{"malformed", "/socket.io/?EIO=4&transport=polling&a2c_version=zero", false, 400, 400, ""},
		{"too old", "/socket.io/?EIO=4&transport=polling&a2c_version=0.3.5", false, 400, 4008, "4008"},
		{"too new", "/smcp/?EIO=4&transport=polling&a2c_version=1.0.0", false, 400, 4008, "4008"},
		{"direct websocket missing", "/socket.io/?EIO=4&transport=websocket", true, 400, 400, ""},
		{"direct websocket incompatible", "/socket.io/?EIO=4&transport=websocket&a2c_version=9.9.9", true, 400, 4008, "4008"},
		{"existing session passes to the engine", "/socket.io/?EIO=4&transport=polling&sid=nope", false, 400, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, tt.path, nil)
			if tt.ws {
				req.Header.Set("Connection", "Upgrade")
				req.Header.Set("Upgrade", "websocket")
				req.Header.Set("Sec-WebSocket-Version", "13")
				req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d; body %s", rec.Code, tt.status, rec.Body)
			}
			if got := rec.Header().Get("X-A2C-Error-Code"); got != tt.errHeader {
				t.Errorf("X-A2C-Error-Code %q, want %q", got, tt.errHeader)
			}
			if tt.code == 0 {
				if tt.status == 200 && !strings.HasPrefix(rec.Body.String(), "0{") {
					t.Errorf("not an engine.io open packet: %s", rec.Body)
				}
				return
			}
			var body map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatalf("body is not JSON: %s", rec.Body)
			}
			if body["code"] != float64(tt.code) || body["message"] == "" {
				t.Errorf("body %v, want code %d and a message", body, tt.code)
			}
			if tt.code == protocol.CodeVersionMismatch {
				for k, want := range map[string]any{"server_version": protocol.Version, "min_supported": "0.4.0", "max_supported": "0.4.999"} {
					if body[k] != want {
						t.Errorf("%s = %v, want %v", k, body[k], want)
					}
				}
				if body["client_version"] == "" || body["client_version"] == nil {
					t.Errorf("client_version not echoed: %v", body)
				}
			}
		})
	}
}

func TestUnknownPathIs404(t *testing.T) {
	srv := New(Options{})
	defer srv.Close()
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/other/?a2c_version=0.2.0", nil))
	if rec.Code != http.StatusNotFound {
		t.Fatalf("status %d", rec.Code)
	}
}
