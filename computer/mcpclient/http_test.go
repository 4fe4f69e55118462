package mcpclient

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// httpServers serve an MCP server over Streamable HTTP and over SSE with
// mcp-go's handlers, returning the URL to configure.
var httpServers = []struct {
	typ   string
	serve func(*server.MCPServer) (*httptest.Server, string)
}{
	{config.TypeStreamable, func(s *server.MCPServer) (*httptest.Server, string) {
		ts := httptest.NewServer(server.NewStreamableHTTPServer(s))
		return ts, ts.URL + "/mcp"
	}},
	{config.TypeSSE, func(s *server.MCPServer) (*httptest.Server, string) {
		ts := httptest.NewUnstartedServer(nil)
		ts.Config.Handler = server.NewSSEServer(s, server.WithBaseURL("http://"+ts.Listener.Addr().String()))
		ts.Start()
		return ts, ts.URL + "/sse"
	}},
}

// TestHTTPTransports runs the test server behind mcp-go's Streamable HTTP
// and SSE handlers and checks the same session behaviour as over stdio:
// initialize, list, read, call, and a list_changed notification.
func TestHTTPTransports(t *testing.T) {
	for _, tt := range httpServers {
		t.Run(tt.typ, func(t *testing.T) {
			ts, url := tt.serve(newTestServer())
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

// TestHTTPStreamLossReconnects breaks the notification stream of a
// Streamable HTTP server: the connection counts as lost and the manager
// connects and subscribes again.
func TestHTTPStreamLossReconnects(t *testing.T) {
	ts := httptest.NewServer(server.NewStreamableHTTPServer(newTestServer()))
	t.Cleanup(ts.Close)
	s := config.Server{Key: "web", Name: "web", BundleID: "web", Type: config.TypeStreamable, Params: config.Params{URL: ts.URL + "/mcp"}}
	m, rec := startManager(t, Options{MinBackoff: 50 * time.Millisecond}, s)
	c := rec.up(t)
	if !c.Modern() {
		// mcp-go's server speaks 2026-07-28: a legacy connection here is
		// a version-negotiation regression, not a reason to skip.
		t.Fatalf("negotiated MCP %s with a server that speaks the current revision: no subscriptions/listen stream", c.ProtocolVersion())
	}
	testutil.Eventually(t, 5*time.Second, "the listen stream granted", func() bool { return c.Granted() != nil })
	ts.CloseClientConnections()
	select {
	case <-rec.downs:
	case <-time.After(5 * time.Second):
		t.Fatal("a lost notification stream went unnoticed")
	}
	c2 := rec.up(t)
	if _, err := c2.ReadResource(context.Background(), "dpe://t.host/a"); err != nil {
		t.Fatalf("read after reconnect: %v", err)
	}
	// The state turns up once the Up callback has returned.
	testutil.Eventually(t, 5*time.Second, "the server up again", func() bool { return m.States()["web"].Up })
	if st := m.States()["web"]; st.Restarts != 1 {
		t.Errorf("state %+v", st)
	}
}
