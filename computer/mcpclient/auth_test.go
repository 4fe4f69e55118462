package mcpclient

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/computer/config"
)

// RefuseToolCalls wraps an MCP HTTP handler: every tools/call POST is
// answered with status (the server's authorization layer refusing it),
// everything else goes through.
func RefuseToolCalls(h http.Handler, status int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"tools/call"`)) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="test"`)
				http.Error(w, "no entry", status)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// TestToolCallAuthRefusals: a 401 or 403 answer to tools/call from a real
// HTTP MCP server (Streamable HTTP and SSE) is an *AuthError with that
// status, at once, not a hang or a generic failure.
func TestToolCallAuthRefusals(t *testing.T) {
	transports := map[string]func(status int) (*httptest.Server, string){
		config.TypeStreamable: func(status int) (*httptest.Server, string) {
			ts := httptest.NewServer(RefuseToolCalls(server.NewStreamableHTTPServer(newTestServer()), status))
			return ts, ts.URL + "/mcp"
		},
		config.TypeSSE: func(status int) (*httptest.Server, string) {
			ts := httptest.NewUnstartedServer(nil)
			ts.Config.Handler = RefuseToolCalls(server.NewSSEServer(newTestServer(), server.WithBaseURL("http://"+ts.Listener.Addr().String())), status)
			ts.Start()
			return ts, ts.URL + "/sse"
		},
	}
	for typ, serve := range transports {
		for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
			t.Run(typ+"/"+http.StatusText(status), func(t *testing.T) {
				ts, url := serve(status)
				t.Cleanup(ts.Close)
				s := config.Server{Key: "web", Name: "web", BundleID: "web", Type: typ, Params: config.Params{URL: url}}
				_, rec := startManager(t, Options{}, s)
				c := rec.up(t)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				_, err := c.CallTool(ctx, "echo", map[string]any{"message": "x"})
				var ae *AuthError
				if !errors.As(err, &ae) || ae.Status != status || ae.Server != "web" {
					t.Fatalf("CallTool = %v, want an AuthError with %d", err, status)
				}
				if ctx.Err() != nil {
					t.Fatal("the refusal waited for the deadline")
				}
				// Other requests still work: only the tool is refused.
				if _, _, err := c.ListResources(ctx, ""); err != nil {
					t.Errorf("list after the refusal: %v", err)
				}
			})
		}
	}
}
