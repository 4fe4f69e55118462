package computer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/computer/mcpclient"
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

// smcpTool converts an MCP tool of the server cfg to an SMCPTool:
// params_schema is the input schema, return_schema the output schema (or
// null), meta holds the tool's own _meta entries, the three-layer tool
// metadata (config.Server.LayeredToolMeta) as a JSON string under
// a2c_tool_meta in place of the server's own, and the MCP annotations as a
// JSON string under MCP_TOOL_ANNOTATION. reason says why the server's
// a2c_tool_meta was dropped, if it was.
func smcpTool(name string, cfg config.Server, tool mcp.Tool) (out protocol.SMCPTool, reason string) {
	raw, _ := json.Marshal(tool)
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(raw, &fields)
	out = protocol.SMCPTool{
		Name: name, BundleID: cfg.BundleID, Description: tool.Description,
		ParamsSchema: fields["inputSchema"], ReturnSchema: fields["outputSchema"],
		Meta: map[string]any{},
	}
	if len(out.ParamsSchema) == 0 {
		out.ParamsSchema = json.RawMessage(`{"type":"object"}`)
	}
	if len(out.ReturnSchema) == 0 {
		out.ReturnSchema = json.RawMessage("null")
	}
	var own map[string]any
	if m, ok := fields["_meta"]; ok {
		_ = json.Unmarshal(m, &own)
	}
	for k, v := range own {
		if k != metaToolMeta {
			out.Meta[k] = v
		}
	}
	declared, present := own[metaToolMeta]
	toolMeta, reason := cfg.LayeredToolMeta(tool.Name, declared, present)
	if toolMeta != nil {
		b, _ := json.Marshal(toolMeta)
		out.Meta[metaToolMeta] = string(b)
	}
	if a, ok := fields["annotations"]; ok && string(a) != "{}" && string(a) != "null" {
		out.Meta["MCP_TOOL_ANNOTATION"] = string(a)
	}
	if len(out.Meta) == 0 {
		out.Meta = nil
	}
	return out, reason
}

// metaToolMeta is the SMCPTool meta key of the tool metadata.
const metaToolMeta = protocol.MetaToolMeta

// handleGetTools serves client:get_tools.
func (c *Computer) handleGetTools(ctx context.Context, req protocol.ComputerCall) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.HandlerTimeout)
	defer cancel()
	entries, _ := c.tools.get(ctx, min(toolListWait, c.opts.HandlerTimeout), "")
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
	timeout, err := toolCallTimeout(req)
	if err != nil {
		return nil, err
	}
	e, only, ok := c.lookupTool(ctx, req.ToolName)
	if !ok {
		return c.refuseUnknownTool(req.ToolName, only)
	}
	conn, ok := c.mgr.Conn(e.server)
	if !ok {
		return refusal(protocol.CodeMCPServerNotFound, fmt.Sprintf("The MCP server %q of tool %q is not running.", e.server, req.ToolName),
			map[string]any{protocol.MetaMCPServer: e.server, "tool_name": req.ToolName})
	}
	out, rec := c.runTool(ctx, conn, e, req, timeout)
	c.hist.add(rec)
	c.log.Info("tool call", "req_id", req.ReqID, "server", e.server, "tool", e.original, "outcome", rec.Outcome, "took", rec.Duration)
	return c.toolAnswer(out, req.ToolName, e.server)
}

// toolCallTimeout is the bound of the call req asks for: its timeout in
// seconds, at most MaxToolTimeout, or DefaultToolTimeout when it has none.
func toolCallTimeout(req protocol.ToolCallReq) (time.Duration, error) {
	if req.Timeout < 0 {
		return 0, protocol.Errorf(protocol.CodeBadRequest, "timeout must be >= 0 seconds, got %v", req.Timeout)
	}
	if req.Timeout > 0 {
		return min(time.Duration(req.Timeout*float64(time.Second)), MaxToolTimeout), nil
	}
	return DefaultToolTimeout, nil
}

// lookupTool finds the tool an agent calls name in the tool table; only is
// the running server a canonical name is looked up in alone, or "".
func (c *Computer) lookupTool(ctx context.Context, name string) (e toolEntry, only string, ok bool) {
	// A canonical name waits for its own server's tools only; a bare one
	// is resolved among the servers that listed theirs in time.
	only, wait := serverOf(name), min(toolListWait, c.opts.HandlerTimeout)
	if _, live := c.mgr.Conn(only); live {
		wait = c.opts.HandlerTimeout
	} else {
		only = ""
	}
	entries, byName := c.tools.get(ctx, wait, only)
	i, ok := byName[name]
	if !ok {
		return toolEntry{}, only, false
	}
	return entries[i], only, true
}

// refuseUnknownTool answers a call of a tool name the table lacks: its
// server only has not listed its tools yet (4001), it is forbidden (4002)
// or it is unknown (4001).
func (c *Computer) refuseUnknownTool(name, only string) (any, error) {
	if only != "" {
		if err, unlisted := c.tools.unlisted(only); unlisted {
			why := "it is still listing them"
			if err != nil {
				why = "its tools/list failed: " + err.Error() + "; the computer keeps asking"
			}
			return refusal(protocol.CodeToolNotFound, fmt.Sprintf("Tool %q is not known: MCP server %q has not listed its tools (%s).", name, only, why),
				map[string]any{protocol.MetaMCPServer: only, "tool_name": name})
		}
	}
	for _, s := range c.servers {
		if s.Forbidden(strings.TrimPrefix(name, s.BundleID+"__")) {
			return refusal(protocol.CodeToolDisabled, fmt.Sprintf("Tool %q is disabled on this computer (forbidden_tools).", name),
				map[string]any{protocol.MetaMCPServer: s.BundleID, "tool_name": name})
		}
	}
	return refusal(protocol.CodeToolNotFound, fmt.Sprintf("Tool %q not found on this computer; call one of the names client:get_tools returns.", name),
		map[string]any{"tool_name": name})
}

// runTool calls tool e over conn within timeout, cancellable through
// req's req_id, and returns the answer with the record of the call.
func (c *Computer) runTool(ctx context.Context, conn *mcpclient.Conn, e toolEntry, req protocol.ToolCallReq, timeout time.Duration) (any, ToolCallRecord) {
	cctx, cancelCause := context.WithCancelCause(ctx)
	defer cancelCause(nil)
	cctx, cancelTimeout := context.WithTimeout(cctx, timeout)
	defer cancelTimeout()
	if req.ReqID != "" {
		defer c.trackCall(req.ReqID, cancelCause)()
	}
	start := time.Now()
	res, err := conn.CallTool(cctx, e.original, req.Params)
	rec := ToolCallRecord{Timestamp: start, ReqID: req.ReqID, Server: e.server, Tool: e.original, Duration: time.Since(start)}
	var out any
	var authErr *mcpclient.AuthError
	switch {
	case errors.Is(context.Cause(cctx), errCancelledByAgent):
		rec.Outcome = "cancelled"
		out = errorResult("Tool call cancelled", map[string]any{protocol.MetaCancelled: true, protocol.MetaCancelReason: "agent_requested"})
	case err != nil && errors.Is(cctx.Err(), context.DeadlineExceeded):
		rec.Outcome = "timeout"
		out = errorResult(fmt.Sprintf("Tool call timeout after %v", timeout), map[string]any{protocol.MetaTimeout: true})
	case errors.As(err, &authErr):
		rec.Outcome = "unauthorized"
		out = authResult(authErr)
	case err != nil:
		rec.Outcome = "error"
		out = errorResult(fmt.Sprintf("tool %s failed: %v", req.ToolName, err), nil)
	default:
		rec.Success = !res.IsError
		if res.IsError {
			rec.Outcome = "error"
		}
		c.mintBlobs(res, req.ToolName)
		out = res
	}
	return out, rec
}

// trackCall registers cancel as the way notify:tool_call_cancel stops the
// call with reqID and returns the function that unregisters it.
func (c *Computer) trackCall(reqID string, cancel context.CancelCauseFunc) (untrack func()) {
	c.mu.Lock()
	c.calls[reqID] = cancel
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		delete(c.calls, reqID)
		c.mu.Unlock()
	}
}

// toolAnswer encodes the answer out to a call of tool name on server,
// refused (413) when it is larger than an answer may be.
func (c *Computer) toolAnswer(out any, name, server string) (any, error) {
	b, err := json.Marshal(out)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInternalError, "tool %s: result is not JSON: %v", name, err)
	}
	if len(b) > c.opts.MaxAnswerBytes {
		return refusal(protocol.CodePayloadTooLarge, tooLarge("the result of tool "+clip(name), len(b), c.opts.MaxAnswerBytes).Message,
			map[string]any{protocol.MetaMCPServer: server, "tool_name": name})
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

// Auth hints of a tool call an MCP server refused for authorization: the
// actions are the SDK's (a2c-smcp 0.4.2), the messages are static so that
// nothing of the refusal (tokens, URLs) reaches the agent.
var authHints = map[int]map[string]any{
	protocol.CodeToolAuthorizationRequired: {"action": "user_authorization_required",
		"message": "This tool needs authorization: authorize it where the computer runs, then try again."},
	protocol.CodeToolAuthorizationFailed: {"action": "token_refresh_required",
		"message": "The tool's authorization was refused (expired or not enough permission): authorize again or check its permissions, then try again."},
}

// authResult answers a tool call refused with HTTP 401 (4006) or 403
// (4007) by its MCP server.
func authResult(e *mcpclient.AuthError) protocol.CallToolResult {
	code := protocol.CodeToolAuthorizationRequired
	if e.Status == http.StatusForbidden {
		code = protocol.CodeToolAuthorizationFailed
	}
	hint := authHints[code]
	return errorResult(hint["message"].(string), map[string]any{
		protocol.MetaErrorCode: code, protocol.MetaMCPServer: e.Server, protocol.MetaAuthHint: maps.Clone(hint),
	})
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
