package computer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// Tool naming follows the upstream BundleID model: every tool is exposed
// as "<bundle_id>__<alias ?? name>", whatever other servers are running,
// so names do not drift when servers come and go. Calls are routed through
// the table; for older agents and people typing at a prompt, the bare
// "<alias ?? name>" (and "<bundle_id>__<original name>") are accepted too
// when exactly one tool answers to them.

// errCancelledByAgent is the cause of a tool call stopped by
// notify:tool_call_cancel.
var errCancelledByAgent = errors.New("cancelled by the agent")

type toolEntry struct {
	exposed  string
	name     string // alias ?? original
	server   string
	original string
	smcp     protocol.SMCPTool
}

// toolTable is the ExposedToolMapping shared by get_tools and tool_call,
// rebuilt after a server comes, goes or says its tools changed.
type toolTable struct {
	c *Computer

	mu      sync.Mutex
	gen     uint64
	valid   bool
	entries []toolEntry
	byName  map[string]int
}

func newToolTable(c *Computer) *toolTable { return &toolTable{c: c} }

func (t *toolTable) invalidate() {
	t.mu.Lock()
	t.gen++
	t.valid = false
	t.mu.Unlock()
}

// get returns the table, listing the tools of every live server when it
// is stale.
func (t *toolTable) get(ctx context.Context) ([]toolEntry, map[string]int) {
	t.mu.Lock()
	if t.valid {
		e, m := t.entries, t.byName
		t.mu.Unlock()
		return e, m
	}
	gen := t.gen
	t.mu.Unlock()

	type listed struct {
		server string
		tools  []mcp.Tool
	}
	var all []listed
	for _, s := range t.c.servers { // configuration order decides name clashes
		conn, ok := t.c.mgr.Conn(s.BundleID)
		if !ok {
			continue
		}
		tools, err := conn.ListTools(ctx)
		if err != nil {
			t.c.log.Warn("tools/list failed; its tools are left out", "server", s.BundleID, "err", err)
			continue
		}
		all = append(all, listed{s.BundleID, tools})
	}
	var entries []toolEntry
	byName := map[string]int{}
	for _, l := range all {
		conn, ok := t.c.mgr.Conn(l.server)
		if !ok {
			continue
		}
		cfg := conn.Config()
		for _, tool := range l.tools {
			if cfg.Forbidden(tool.Name) {
				continue
			}
			meta := cfg.MergedToolMeta(tool.Name)
			name := tool.Name
			if alias, _ := meta["alias"].(string); alias != "" {
				name = alias
			}
			exposed := l.server + "__" + name
			if _, clash := byName[exposed]; clash {
				t.c.log.Warn("tool name clash inside one server; the later tool is not exposed", "server", l.server, "tool", tool.Name, "name", exposed)
				continue
			}
			e := toolEntry{exposed: exposed, name: name, server: l.server, original: tool.Name, smcp: smcpTool(exposed, l.server, tool, meta)}
			byName[exposed] = len(entries)
			entries = append(entries, e)
		}
	}
	// Short forms route too when they are unambiguous.
	owners := map[string][]int{}
	for i, e := range entries {
		for _, alt := range []string{e.name, e.server + "__" + e.original} {
			if _, canonical := byName[alt]; !canonical && !slices.Contains(owners[alt], i) {
				owners[alt] = append(owners[alt], i)
			}
		}
	}
	for alt, is := range owners {
		if len(is) == 1 {
			byName[alt] = is[0]
		}
	}
	t.mu.Lock()
	if t.gen == gen {
		t.entries, t.byName, t.valid = entries, byName, true
	}
	t.mu.Unlock()
	return entries, byName
}

// smcpTool converts an MCP tool to an SMCPTool: params_schema is the
// input schema, return_schema the output schema (or null), meta holds the
// tool's own _meta entries, the configured ToolMeta as a JSON string under
// a2c_tool_meta and the MCP annotations as a JSON string under
// MCP_TOOL_ANNOTATION.
func smcpTool(name, server string, tool mcp.Tool, toolMeta map[string]any) protocol.SMCPTool {
	raw, _ := json.Marshal(tool)
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(raw, &fields)
	out := protocol.SMCPTool{
		Name: name, BundleID: server, Description: tool.Description,
		ParamsSchema: fields["inputSchema"], ReturnSchema: fields["outputSchema"],
		Meta: map[string]any{},
	}
	if len(out.ParamsSchema) == 0 {
		out.ParamsSchema = json.RawMessage(`{"type":"object"}`)
	}
	if len(out.ReturnSchema) == 0 {
		out.ReturnSchema = json.RawMessage("null")
	}
	if m, ok := fields["_meta"]; ok {
		var own map[string]any
		if json.Unmarshal(m, &own) == nil {
			for k, v := range own {
				out.Meta[k] = v
			}
		}
	}
	if toolMeta != nil {
		b, _ := json.Marshal(toolMeta)
		out.Meta["a2c_tool_meta"] = string(b)
	}
	if a, ok := fields["annotations"]; ok && string(a) != "{}" && string(a) != "null" {
		out.Meta["MCP_TOOL_ANNOTATION"] = string(a)
	}
	if len(out.Meta) == 0 {
		out.Meta = nil
	}
	return out
}

// handleGetTools serves client:get_tools.
func (c *Computer) handleGetTools(ctx context.Context, req protocol.ComputerCall) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.HandlerTimeout)
	defer cancel()
	entries, _ := c.tools.get(ctx)
	ret := protocol.GetToolsRet{Tools: make([]protocol.SMCPTool, 0, len(entries)), ReqID: req.ReqID}
	for _, e := range entries {
		ret.Tools = append(ret.Tools, e.smcp)
	}
	return ret, nil
}

// handleToolCall serves client:tool_call: the request's timeout (seconds,
// default 60) bounds the call; notify:tool_call_cancel with its req_id
// stops it. Tool failures, timeouts and cancellations are CallToolResults
// with isError set (meta.a2c_timeout / meta.a2c_cancelled); so are an
// unknown tool (meta.error_code 4001), a forbidden one (4002) and one whose
// server is not running (4014), the pattern of 4006/4007, which every
// agent can parse. Only a malformed request is a flat 400.
func (c *Computer) handleToolCall(ctx context.Context, req protocol.ToolCallReq) (any, error) {
	if req.ToolName == "" {
		return nil, protocol.NewError(protocol.CodeBadRequest, "tool_name is required")
	}
	if req.Timeout < 0 {
		return nil, protocol.Errorf(protocol.CodeBadRequest, "timeout must be >= 0 seconds, got %v", req.Timeout)
	}
	timeout := DefaultToolTimeout
	if req.Timeout > 0 {
		timeout = min(time.Duration(req.Timeout*float64(time.Second)), MaxToolTimeout)
	}
	lctx, lcancel := context.WithTimeout(ctx, c.opts.HandlerTimeout)
	entries, byName := c.tools.get(lctx)
	lcancel()
	i, ok := byName[req.ToolName]
	if !ok {
		for _, s := range c.servers {
			if s.Forbidden(strings.TrimPrefix(req.ToolName, s.BundleID+"__")) {
				return refusal(protocol.CodeToolDisabled, fmt.Sprintf("Tool %q is disabled on this computer (forbidden_tools).", req.ToolName),
					map[string]any{protocol.MetaMCPServer: s.BundleID, "tool_name": req.ToolName})
			}
		}
		return refusal(protocol.CodeToolNotFound, fmt.Sprintf("Tool %q not found on this computer; call one of the names client:get_tools returns.", req.ToolName),
			map[string]any{"tool_name": req.ToolName})
	}
	e := entries[i]
	conn, ok := c.mgr.Conn(e.server)
	if !ok {
		return refusal(protocol.CodeMCPServerNotFound, fmt.Sprintf("The MCP server %q of tool %q is not running.", e.server, req.ToolName),
			map[string]any{protocol.MetaMCPServer: e.server, "tool_name": req.ToolName})
	}

	cctx, cancelCause := context.WithCancelCause(ctx)
	defer cancelCause(nil)
	cctx, cancelTimeout := context.WithTimeout(cctx, timeout)
	defer cancelTimeout()
	if req.ReqID != "" {
		c.mu.Lock()
		c.calls[req.ReqID] = cancelCause
		c.mu.Unlock()
		defer func() {
			c.mu.Lock()
			delete(c.calls, req.ReqID)
			c.mu.Unlock()
		}()
	}
	start := time.Now()
	res, err := conn.CallTool(cctx, e.original, req.Params)
	rec := ToolCallRecord{Timestamp: start, ReqID: req.ReqID, Server: e.server, Tool: e.original, Duration: time.Since(start)}
	var out any
	switch {
	case errors.Is(context.Cause(cctx), errCancelledByAgent):
		rec.Outcome = "cancelled"
		out = errorResult("Tool call cancelled", map[string]any{protocol.MetaCancelled: true, protocol.MetaCancelReason: "agent_requested"})
	case err != nil && errors.Is(cctx.Err(), context.DeadlineExceeded):
		rec.Outcome = "timeout"
		out = errorResult(fmt.Sprintf("Tool call timeout after %v", timeout), map[string]any{protocol.MetaTimeout: true})
	case err != nil:
		rec.Outcome = "error"
		out = errorResult(fmt.Sprintf("tool %s failed: %v", req.ToolName, err), nil)
	default:
		rec.Success = !res.IsError
		if res.IsError {
			rec.Outcome = "error"
		}
		out = res
	}
	c.hist.add(rec)
	c.log.Info("tool call", "req_id", req.ReqID, "server", e.server, "tool", e.original, "outcome", rec.Outcome, "took", rec.Duration)
	b, err := json.Marshal(out)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInternalError, "tool %s: result is not JSON: %v", req.ToolName, err)
	}
	if len(b) > maxAnswerBytes {
		return refusal(protocol.CodePayloadTooLarge, tooLarge("the result of tool "+clip(req.ToolName), len(b)).Message,
			map[string]any{protocol.MetaMCPServer: e.server, "tool_name": req.ToolName})
	}
	return json.RawMessage(b), nil
}

// refusal answers a tool call that was not made: an error result with a
// readable text and meta.error_code.
func refusal(code int, text string, meta map[string]any) (any, error) {
	meta[protocol.MetaErrorCode] = code
	b, err := json.Marshal(errorResult(text, meta))
	if err != nil {
		return nil, err
	}
	return json.RawMessage(b), nil
}

func errorResult(text string, meta map[string]any) protocol.CallToolResult {
	return protocol.CallToolResult{
		Content: []protocol.ToolContent{{Type: "text", Text: text}},
		IsError: true,
		Meta:    meta,
	}
}

// onToolCallCancel stops the in-flight call with the notification's
// req_id; an unknown req_id is ignored.
func (c *Computer) onToolCallCancel(raw json.RawMessage) {
	var n protocol.AgentCallData
	if json.Unmarshal(raw, &n) != nil || n.ReqID == "" {
		return
	}
	c.mu.Lock()
	cancel := c.calls[n.ReqID]
	c.mu.Unlock()
	if cancel != nil {
		c.log.Info("tool call cancelled by agent", "req_id", n.ReqID, "agent", n.Agent)
		cancel(errCancelledByAgent)
	}
}
