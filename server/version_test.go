package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

func TestSupported(t *testing.T) {
	tests := []struct {
		v    string
		want bool
	}{
		{"0.1.9", false},
		{"0.2.0", true},
		{"0.2.0-dev", true},
		{"0.2.3", true},
		{"0.3.0", true},
		{"0.4.0", true}, // a2c-smcp 0.4.2, the newest Python SDK
		{"0.4.999", true},
		{"0.4.1000", true},
		{"0.5.0", false},
		{"0.5.0-dev", false},
		{"1.0.0", false},
		{"1.2.0", false},
	}
	for _, tt := range tests {
		v, err := protocol.ParseVersion(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		if got := Supported(v); got != tt.want {
			t.Errorf("Supported(%s) = %v, want %v", tt.v, got, tt.want)
		}
	}
	// The advertised bounds are themselves accepted, and this project's
	// own version too.
	for _, s := range []string{MinSupported, MaxSupported, protocol.Version} {
		v, _ := protocol.ParseVersion(s)
		if !Supported(v) {
			t.Errorf("%s is advertised but refused", s)
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
		{"polling handshake ok", "/socket.io/?EIO=4&transport=polling&a2c_version=0.2.0", false, 200, 0, ""},
		{"python sdk path ok", "/smcp/?EIO=4&transport=polling&a2c_version=0.4.0", false, 200, 0, ""},
		{"missing", "/socket.io/?EIO=4&transport=polling", false, 400, 400, ""},
		{"malformed", "/socket.io/?EIO=4&transport=polling&a2c_version=zero", false, 400, 400, ""},
		{"too old", "/socket.io/?EIO=4&transport=polling&a2c_version=0.1.5", false, 400, 4008, "4008"},
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
				for k, want := range map[string]any{
					"server_version": protocol.Version, "min_supported": MinSupported, "max_supported": MaxSupported,
				} {
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
