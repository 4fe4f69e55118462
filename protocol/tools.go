package protocol

import (
	"encoding/json"
	"strings"
)

// ToolContent is one content item of an MCP CallToolResult. Type is "text",
// "image", "audio", "resource_link" or "resource"; the fields that type
// uses are set and the rest are empty.
type ToolContent struct {
	Type        string          `json:"type"`
	Text        string          `json:"text,omitempty"`
	Data        string          `json:"data,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	URI         string          `json:"uri,omitempty"`
	Name        string          `json:"name,omitempty"`
	Resource    json.RawMessage `json:"resource,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	Meta        map[string]any  `json:"_meta,omitempty"`
}

// CallToolResult answers client:tool_call: the MCP CallToolResult the tool
// produced. A tool failure is a result with IsError set, not an error
// payload. A2C result-level markers (a2c_cancelled, a2c_timeout) live in
// Meta; MetaAlt holds the "_meta" spelling some SDKs write instead.
type CallToolResult struct {
	Content           []ToolContent   `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              map[string]any  `json:"meta,omitempty"`
	MetaAlt           map[string]any  `json:"_meta,omitempty"`
}

// Result-level A2C markers of a CallToolResult.
const (
	MetaCancelled    = "a2c_cancelled"
	MetaCancelReason = "a2c_cancel_reason"
	MetaTimeout      = "a2c_timeout"
	// MetaErrorCode is the protocol code of a failed call (4001 unknown
	// tool, 4002 disabled, 4006/4007 authorization, 4014 server gone);
	// MetaMCPServer is the bundle_id of the server concerned.
	MetaErrorCode = "error_code"
	MetaMCPServer = "mcp_server"
	// MetaAuthHint is the {action, message} of a call refused for
	// authorization (4006/4007).
	MetaAuthHint = "auth_hint"
)

// AuthHint returns the message of the result-level auth_hint (meta, then
// _meta), or "" when the result has none.
func (r *CallToolResult) AuthHint() string {
	for _, m := range []map[string]any{r.Meta, r.MetaAlt} {
		if h, ok := m[MetaAuthHint].(map[string]any); ok {
			if msg, ok := h["message"].(string); ok && msg != "" {
				return msg
			}
		}
	}
	return ""
}

// ErrorCode returns the result-level meta.error_code (read from meta, then
// _meta), or 0 when the result has none.
func (r *CallToolResult) ErrorCode() int {
	for _, m := range []map[string]any{r.Meta, r.MetaAlt} {
		switch v := m[MetaErrorCode].(type) {
		case float64:
			if v == float64(int(v)) {
				return int(v)
			}
		case int:
			return v
		}
	}
	return 0
}

// marker reads a boolean result-level marker from meta, then from _meta.
func (r *CallToolResult) marker(key string) bool {
	for _, m := range []map[string]any{r.Meta, r.MetaAlt} {
		if v, ok := m[key].(bool); ok {
			return v
		}
	}
	return false
}

// Cancelled reports whether the result says the call was cancelled by a
// notify:tool_call_cancel.
func (r *CallToolResult) Cancelled() bool { return r.marker(MetaCancelled) }

// TimedOut reports whether the result says the call timed out.
func (r *CallToolResult) TimedOut() bool { return r.marker(MetaTimeout) }

// Text joins the text of every text content item with newlines.
func (r *CallToolResult) Text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}
