package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The test binary doubles as a stdio MCP server: with this variable set,
// TestMain serves instead of running tests, so the client under test
// starts, talks to and kills a real child process.
const serveEnv = "MCPCLIENT_TEST_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		if err := server.ServeStdio(newTestServer()); err != nil {
			fmt.Fprintln(os.Stderr, "serve:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func docResource(host, ref string) server.ServerResource {
	uri := "dpe://" + host + "/" + ref
	return server.ServerResource{
		Resource: mcp.NewResource(uri, ref, mcp.WithMIMEType("application/json")),
		Handler: func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			b, _ := json.Marshal(map[string]any{"doc_ref": ref, "uri": uri, "title": "T " + ref, "page_count": 1, "file_type": "md"})
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "application/json", Text: string(b)}}, nil
		},
	}
}

// newTestServer is a small Finder-capable server: two documents, a
// window, a slow resource, unlisted ones bigger than MaxMessageBytes
// (test://huge/N), and tools that change the resource list, send an
// update, block, or crash the process.
func newTestServer() *server.MCPServer {
	s := server.NewMCPServer("mcpclient-test", "1.0.0",
		server.WithResourceCapabilities(true, true), server.WithToolCapabilities(true))
	s.AddResources(docResource("t.host", "a"), docResource("t.host", "b"))
	s.AddResource(mcp.NewResource("window://t.host/main", "main"), func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "window body"}}, nil
	})
	s.AddResource(mcp.NewResource("test://slow", "slow"), func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		// Says it has the read, so that a test knows it is in flight.
		_ = s.SendNotificationToClient(ctx, "notifications/message", map[string]any{"level": "info", "data": "slow read started"})
		select {
		case <-time.After(30 * time.Second):
		case <-ctx.Done():
		}
		return nil, ctx.Err()
	})
	s.AddResourceTemplate(mcp.NewResourceTemplate("test://huge/{n}", "huge"), func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: strings.Repeat("h", MaxMessageBytes+1)}}, nil
	})
	s.AddTool(mcp.NewTool("echo", mcp.WithString("message")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("echo: " + req.GetString("message", "")), nil
	})
	s.AddTool(mcp.NewTool("add_doc", mcp.WithString("ref")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.AddResources(docResource("t.host", req.GetString("ref", "new")))
		return mcp.NewToolResultText("added"), nil
	})
	s.AddTool(mcp.NewTool("touch", mcp.WithString("uri")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.SendNotificationToAllClients(mcp.MethodNotificationResourceUpdated, map[string]any{"uri": req.GetString("uri", "")})
		return mcp.NewToolResultText("touched"), nil
	})
	s.AddTool(mcp.NewTool("block"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-time.After(30 * time.Second):
			return mcp.NewToolResultText("late"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	s.AddTool(mcp.NewTool("crash"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		os.Exit(3)
		return nil, nil
	})
	return s
}
