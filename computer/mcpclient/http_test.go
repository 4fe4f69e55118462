package mcpclient

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/computer/config"
)

// TestHTTPTransports runs the test server behind mcp-go's Streamable HTTP
// and SSE handlers and checks the same session behaviour as over stdio:
// initialize, list, read, call, and a list_changed notification.
func TestHTTPTransports(t *testing.T) {
	tests := []struct {
		typ     string
		handler func(*server.MCPServer, string) (*httptest.Server, string)
	}{
		{config.TypeStreamable, func(s *server.MCPServer, _ string) (*httptest.Server, string) {
			ts := httptest.NewServer(server.NewStreamableHTTPServer(s))
			return ts, ts.URL + "/mcp"
		}},
		{config.TypeSSE, func(s *server.MCPServer, _ string) (*httptest.Server, string) {
			ts := httptest.NewUnstartedServer(nil)
			ts.Config.Handler = server.NewSSEServer(s, server.WithBaseURL("http://"+ts.Listener.Addr().String()))
			ts.Start()
			return ts, ts.URL + "/sse"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			ts, url := tt.handler(newTestServer(), "")
			t.Cleanup(ts.Close) // after the manager stops (cleanups run last-in first-out)
			s := config.Server{Key: "web", Name: "web", BundleID: "web", Type: tt.typ, Params: config.Params{URL: url}}
			_, rec := startManager(t, Options{}, s)
			c := rec.up(t)
			ctx := context.Background()
			t.Logf("%s: MCP %s", tt.typ, c.ProtocolVersion())
			if !c.FinderCapable() {
				t.Fatal("not finder capable")
			}
			res, _, err := c.ListResources(ctx, "")
			if err != nil || len(res) != 4 {
				t.Fatalf("list: %v %d", err, len(res))
			}
			if _, err := c.ReadResource(ctx, "dpe://t.host/a"); err != nil {
				t.Fatalf("read: %v", err)
			}
			if err := c.Subscribe(ctx, []string{"dpe://t.host/a"}); err != nil {
				t.Fatalf("subscribe: %v", err)
			}
			out, err := c.CallTool(ctx, "echo", map[string]any{"message": "x"})
			if err != nil || out.IsError {
				t.Fatalf("echo: %v %+v", err, out)
			}
			if _, err := c.CallTool(ctx, "add_doc", map[string]any{"ref": "z"}); err != nil {
				t.Fatal(err)
			}
			rec.waitNote(t, "web "+mcp.MethodNotificationResourcesListChanged)
		})
	}
}
