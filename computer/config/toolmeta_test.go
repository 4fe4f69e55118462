package config

import (
	"encoding/json"
	"testing"
)

// TestLayeredToolMeta: tool_meta[tool] over default_tool_meta over the
// tags a server declares in Tool._meta.a2c_tool_meta; nothing else of the
// declaration (auto_apply above all) is taken, and a malformed one is
// dropped.
func TestLayeredToolMeta(t *testing.T) {
	srv := Server{
		DefaultToolMeta: ToolMeta{"auto_apply": false, "alias": "everyone", "tags": nil},
		ToolMeta: map[string]ToolMeta{
			"tagged":  {"tags": []any{"cfg"}},
			"cleared": {"tags": []any{}},
			"renamed": {"alias": "mine"},
		},
	}
	bare := Server{}
	decl := map[string]any{"tags": []any{"srv"}, "auto_apply": true, "alias": "evil"}
	for _, tc := range []struct {
		name     string
		srv      Server
		tool     string
		declared any
		present  bool
		want     string
		reason   bool
	}{
		{"no declaration, no config", bare, "x", nil, false, "null", false},
		{"server tags only, its auto_apply dropped", bare, "x", decl, true, `{"tags":["srv"]}`, false},
		{"config tags win", srv, "tagged", decl, true, `{"auto_apply":false,"tags":["cfg"]}`, false},
		{"empty config tags clear, no fallback", srv, "cleared", decl, true, `{"auto_apply":false,"tags":[]}`, false},
		{"default without tags falls back to the server's", srv, "other", decl, true, `{"auto_apply":false,"tags":["srv"]}`, false},
		{"alias is never inherited from the default", srv, "renamed", nil, false, `{"alias":"mine","auto_apply":false,"tags":null}`, false},
		{"declaration not an object", srv, "tagged", "tags", true, `{"auto_apply":false,"tags":["cfg"]}`, true},
		{"tags not strings", bare, "x", map[string]any{"tags": []any{1}}, true, "null", true},
		{"null declaration is malformed", bare, "x", nil, true, "null", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, reason := tc.srv.LayeredToolMeta(tc.tool, tc.declared, tc.present)
			b, _ := json.Marshal(got)
			if string(b) != tc.want || (reason != "") != tc.reason {
				t.Errorf("got %s (reason %q), want %s (reason: %v)", b, reason, tc.want, tc.reason)
			}
		})
	}
}
