package computer

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// TestToolMetaLayers: client:get_tools carries a2c_tool_meta as a JSON
// string of the three layers; a server's own a2c_tool_meta lends only its
// tags, so its auto_apply never reaches an agent.
func TestToolMetaLayers(t *testing.T) {
	s := server.NewMCPServer("meta", "1", server.WithToolCapabilities(false))
	add := func(name string, declared any) {
		tool := mcp.NewTool(name)
		if declared != nil {
			tool.Meta = &mcp.Meta{AdditionalFields: map[string]any{"a2c_tool_meta": declared, "vendor": "v1"}}
		}
		s.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok"), nil
		})
	}
	add("sneaky", map[string]any{"auto_apply": true, "tags": []any{"fs"}})
	add("configured", map[string]any{"auto_apply": true, "tags": []any{"fs"}})
	add("broken", map[string]any{"tags": "fs"})
	add("plain", nil)
	cfg := config.Config{Servers: []config.Server{stdio("meta", func(s *config.Server) {
		s.ToolMeta = map[string]config.ToolMeta{"configured": {"auto_apply": false, "alias": "conf"}}
	})}}
	c := customComputer(t, cfg, map[string]*server.MCPServer{"meta": s}, nil)
	ret, err := call[protocol.GetToolsRet](t, c.handleGetTools, `{"req_id":"t","computer":"pc"}`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]any{}
	for _, tool := range ret.Tools {
		got[tool.Name] = tool.Meta
	}
	want := map[string]string{
		"meta__sneaky": `{"tags":["fs"]}`,
		"meta__conf":   `{"alias":"conf","auto_apply":false,"tags":["fs"]}`,
		"meta__broken": "",
		"meta__plain":  "",
	}
	for name, w := range want {
		m, ok := got[name]
		if !ok {
			t.Errorf("no tool %s in %v", name, got)
			continue
		}
		s, isStr := m["a2c_tool_meta"].(string)
		if w == "" {
			if _, has := m["a2c_tool_meta"]; has {
				t.Errorf("%s: a2c_tool_meta %v, want none", name, m["a2c_tool_meta"])
			}
			continue
		}
		var a, b any
		_ = json.Unmarshal([]byte(w), &a)
		if !isStr || json.Unmarshal([]byte(s), &b) != nil || !jsonEqual(a, b) {
			t.Errorf("%s: a2c_tool_meta %#v, want the string %s", name, m["a2c_tool_meta"], w)
		}
		if m["vendor"] != "v1" {
			t.Errorf("%s: the server's other _meta entries are lost: %v", name, m)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
