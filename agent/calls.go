package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// firstText returns the text of the first text content of a resource read.
func firstText(uri string, ret *protocol.ReadResourceRet) (string, error) {
	for _, c := range ret.Contents {
		if c.Blob == "" {
			return c.Text, nil
		}
	}
	return "", protocol.Errorf(protocol.CodeInternalError, "resource %s has no text content", uri)
}

// ReadText returns the first text content of uri read through computer.
func (c *Client) ReadText(ctx context.Context, computer, uri string) (string, error) {
	ret, err := c.ReadResource(ctx, computer, uri)
	if err != nil {
		return "", err
	}
	return firstText(uri, ret)
}

// ReadJSON decodes the first text content of uri read through computer
// into v.
func (c *Client) ReadJSON(ctx context.Context, computer, uri string, v any) error {
	text, err := c.ReadText(ctx, computer, uri)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(text), v); err != nil {
		return protocol.Errorf(protocol.CodeInternalError, "resource %s is not the JSON expected: %v", uri, err)
	}
	return nil
}

// documentURI parses a document URI (any level; its query is dropped) and
// returns the document's Level 1 URI.
func documentURI(docURI string) (dpe.URI, error) {
	u, err := dpe.Parse(docURI)
	if err != nil {
		return dpe.URI{}, err
	}
	if u.Level() < dpe.LevelDocument {
		return dpe.URI{}, protocol.Errorf(protocol.CodeInvalidDPEURI, "%s is a catalog URI, not a document URI", docURI).
			WithDetails(map[string]any{"uri": docURI})
	}
	return u.DocumentURI(), nil
}

// ReadDocument reads a document's Level 1 metadata.
func (c *Client) ReadDocument(ctx context.Context, computer, docURI string) (*protocol.DPEDocument, error) {
	u, err := documentURI(docURI)
	if err != nil {
		return nil, err
	}
	var doc protocol.DPEDocument
	if err := c.ReadJSON(ctx, computer, u.String(), &doc); err != nil {
		return nil, err
	}
	return &doc, nil
}

// ReadDocumentPages reads a document's metadata with a page of its page
// index (depth=pages); limit 0 means the server's default.
func (c *Client) ReadDocumentPages(ctx context.Context, computer, docURI string, offset, limit int) (*protocol.DPEDocument, error) {
	if offset < 0 || limit < 0 {
		return nil, protocol.Errorf(protocol.CodeBadRequest, "offset and limit must not be negative (got %d, %d)", offset, limit)
	}
	u, err := documentURI(docURI)
	if err != nil {
		return nil, err
	}
	q := dpe.Query{Depth: dpe.DepthPages, Offset: &offset}
	if limit > 0 {
		q.Limit = &limit
	}
	var doc protocol.DPEDocument
	if err := c.ReadJSON(ctx, computer, u.WithQuery(q).String(), &doc); err != nil {
		return nil, err
	}
	return &doc, nil
}

// ReadPage reads page pageIndex of a document (Level 2, JSON).
func (c *Client) ReadPage(ctx context.Context, computer, docURI string, pageIndex int) (*protocol.DPEPage, error) {
	if pageIndex < 0 {
		return nil, protocol.Errorf(protocol.CodeBadRequest, "page index must not be negative (got %d)", pageIndex)
	}
	u, err := documentURI(docURI)
	if err != nil {
		return nil, err
	}
	var page protocol.DPEPage
	if err := c.ReadJSON(ctx, computer, dpe.Page(u.Host, u.DocRef, pageIndex).String(), &page); err != nil {
		return nil, err
	}
	return &page, nil
}

// ReadElement reads one element of a document (Level 3, JSON).
func (c *Client) ReadElement(ctx context.Context, computer, docURI, elementID string) (*protocol.DPEElementDetail, error) {
	if elementID == "" {
		return nil, protocol.NewError(protocol.CodeBadRequest, "element id must not be empty")
	}
	u, err := documentURI(docURI)
	if err != nil {
		return nil, err
	}
	var el protocol.DPEElementDetail
	if err := c.ReadJSON(ctx, computer, dpe.Element(u.Host, u.DocRef, elementID).String(), &el); err != nil {
		return nil, err
	}
	return &el, nil
}

// GetDesktop returns computer's desktop: up to size windows (0: all), or
// only the window with URI window when it is not empty.
func (c *Client) GetDesktop(ctx context.Context, computer string, size int, window string) (*protocol.GetDeskTopRet, error) {
	if size < 0 {
		return nil, protocol.Errorf(protocol.CodeBadRequest, "desktop size must not be negative (got %d)", size)
	}
	h := c.header(computer)
	req := protocol.GetDeskTopReq{Agent: h.Agent, ReqID: h.ReqID, Computer: computer, Window: window}
	if size > 0 {
		req.DesktopSize = &size
	}
	var ret protocol.GetDeskTopRet
	if err := c.call(ctx, protocol.EventGetDesktop, req, &ret); err != nil {
		return nil, err
	}
	return &ret, nil
}

// GetTools returns the tools computer offers.
func (c *Client) GetTools(ctx context.Context, computer string) (*protocol.GetToolsRet, error) {
	var ret protocol.GetToolsRet
	if err := c.call(ctx, protocol.EventGetTools, c.header(computer), &ret); err != nil {
		return nil, err
	}
	return &ret, nil
}

// GetConfig returns computer's MCP server configuration.
func (c *Client) GetConfig(ctx context.Context, computer string) (*protocol.GetComputerConfigRet, error) {
	var ret protocol.GetComputerConfigRet
	if err := c.call(ctx, protocol.EventGetConfig, c.header(computer), &ret); err != nil {
		return nil, err
	}
	return &ret, nil
}

// CallTool calls tool on computer with params; timeout (0: the client's
// default) is sent to the Computer and bounds the wait. A tool that fails
// returns a result with IsError set, not an error. When the wait runs out
// the call is cancelled (server:tool_call_cancel) and a 408 error returned.
func (c *Client) CallTool(ctx context.Context, computer, tool string, params map[string]any, timeout time.Duration) (*protocol.CallToolResult, error) {
	if tool == "" {
		return nil, protocol.NewError(protocol.CodeBadRequest, "tool name must not be empty")
	}
	if timeout <= 0 {
		timeout = c.timeout
	}
	if params == nil {
		params = map[string]any{}
	}
	h := c.header(computer)
	req := protocol.ToolCallReq{
		Agent: h.Agent, ReqID: h.ReqID, Computer: computer,
		ToolName: tool, Params: params, Timeout: wholeSeconds(timeout),
	}
	ctx, cancel := withTimeout(ctx, timeout+toolCallSlack)
	defer cancel()
	raw, err := c.conn.Call(ctx, protocol.EventToolCall, req)
	if err != nil {
		if protocol.CodeOf(err) == protocol.CodeTimeout {
			if cErr := c.CancelToolCall(context.WithoutCancel(ctx), h.ReqID); cErr != nil {
				c.log.Warn("could not cancel timed-out tool call", "req_id", h.ReqID, "err", cErr)
			}
		}
		return nil, err
	}
	var ret protocol.CallToolResult
	if err := json.Unmarshal(raw, &ret); err != nil {
		return nil, fmt.Errorf("%s: unexpected answer: %w", protocol.EventToolCall, err)
	}
	return &ret, nil
}

// wholeSeconds rounds d up to whole seconds: ToolCallReq.timeout is an
// integer in the base protocol, and the official a2c-smcp Server refuses a
// fractional one (its handler fails and never answers).
func wholeSeconds(d time.Duration) float64 {
	return math.Ceil(d.Seconds())
}

// CancelToolCall asks the office to cancel the tool call with reqID
// (fire-and-forget: the outcome shows on the original call's result).
func (c *Client) CancelToolCall(ctx context.Context, reqID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.conn.Emit(protocol.EventToolCallCancel, protocol.AgentCallData{Agent: c.name, ReqID: reqID})
}
