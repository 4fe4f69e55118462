package computer

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// TestUpstreamAuthErrors: a tools/call that a Streamable HTTP MCP server
// refuses with 401 or 403 is answered at once with isError and
// meta {error_code 4006|4007, mcp_server, auth_hint{action, message}}, as
// the SDK answers it; nothing of the refusal's text reaches the agent.
func TestUpstreamAuthErrors(t *testing.T) {
	for status, want := range map[int]struct {
		code   float64
		action string
	}{
		http.StatusUnauthorized: {4006, "user_authorization_required"},
		http.StatusForbidden:    {4007, "token_refresh_required"},
	} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			mcpSrv := server.NewMCPServer("guarded", "1.0.0", server.WithToolCapabilities(false))
			mcpSrv.AddTool(mcp.NewTool("echo"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("echo"), nil
			})
			h := server.NewStreamableHTTPServer(mcpSrv)
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				if bytes.Contains(body, []byte(`"tools/call"`)) {
					http.Error(w, "secret-token-xyz is expired", status)
					return
				}
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(ts.Close)
			s := config.Server{Key: "guarded", Name: "guarded", BundleID: "guarded", Type: config.TypeStreamable, Params: config.Params{URL: ts.URL + "/mcp"}}
			c, err := New(config.Config{Servers: []config.Server{s}}, Options{Name: "pc", MinBackoff: time.Hour, MaxBackoff: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { c.mgr.Run(ctx); close(done) }()
			t.Cleanup(func() { cancel(); <-done; c.index.Close() })
			if !testutil.WaitUntil(20*time.Second, func() bool { return c.mgr.States()["guarded"].Up }) {
				t.Fatal("server never up")
			}
			ret, err := call[map[string]any](t, c.handleToolCall, `{"req_id":"r1","computer":"pc","tool_name":"guarded__echo","params":{},"timeout":20}`)
			if err != nil {
				t.Fatal(err)
			}
			meta, _ := ret["meta"].(map[string]any)
			hint, _ := meta["auth_hint"].(map[string]any)
			if ret["isError"] != true || meta["error_code"] != want.code || meta["mcp_server"] != "guarded" ||
				hint["action"] != want.action || hint["message"] == "" {
				t.Fatalf("answer %v", ret)
			}
			if s := fmt.Sprint(ret); bytes.Contains([]byte(s), []byte("secret-token")) {
				t.Errorf("the refusal's text reached the agent: %s", s)
			}
			if rec := c.History(); len(rec) != 1 || rec[0].Outcome != "unauthorized" {
				t.Errorf("history %+v", rec)
			}
		})
	}
}
