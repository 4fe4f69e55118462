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

// readLevel reads u, which must be a dpe:// URI of level want, as JSON into
// v (a format in u's query is dropped: the answer is decoded as JSON).
func (c *Client) readLevel(ctx context.Context, computer string, u dpe.URI, want dpe.Level, v any) error {
	if u.Level() != want {
		return protocol.Errorf(protocol.CodeInvalidDPEURI, "%s is not a %s URI", u, levelName(want)).
			WithDetails(map[string]any{"uri": u.String()})
	}
	q := u.Query
	q.Format = ""
	return c.ReadJSON(ctx, computer, u.WithQuery(q).String(), v)
}

func levelName(l dpe.Level) string {
	switch l {
	case dpe.LevelCatalog:
		return "catalog"
	case dpe.LevelDocument:
		return "document"
	case dpe.LevelPage:
		return "page"
	}
	return "element"
}

// ReadCatalog reads a document server's catalog (Level 0): its documents
// in the window of u's offset and limit, and what files it skipped.
func (c *Client) ReadCatalog(ctx context.Context, computer string, u dpe.URI) (*protocol.DPECatalog, error) {
	var cat protocol.DPECatalog
	if err := c.readLevel(ctx, computer, u, dpe.LevelCatalog, &cat); err != nil {
		return nil, err
	}
	return &cat, nil
}

// ReadDocument reads a document (Level 1). u is a document URI; with
// depth=pages (and offset, limit) in its query the answer carries that
// window of the page index.
func (c *Client) ReadDocument(ctx context.Context, computer string, u dpe.URI) (*protocol.DPEDocument, error) {
	var doc protocol.DPEDocument
	if err := c.readLevel(ctx, computer, u, dpe.LevelDocument, &doc); err != nil {
		return nil, err
	}
	return &doc, nil
}

// ReadPage reads a page (Level 2, JSON); categories in u's query filter
// its elements.
func (c *Client) ReadPage(ctx context.Context, computer string, u dpe.URI) (*protocol.DPEPage, error) {
	var page protocol.DPEPage
	if err := c.readLevel(ctx, computer, u, dpe.LevelPage, &page); err != nil {
		return nil, err
	}
	return &page, nil
}

// ReadElement reads one element (Level 3, JSON).
func (c *Client) ReadElement(ctx context.Context, computer string, u dpe.URI) (*protocol.DPEElementDetail, error) {
	var el protocol.DPEElementDetail
	if err := c.readLevel(ctx, computer, u, dpe.LevelElement, &el); err != nil {
		return nil, err
	}
	return &el, nil
}

// SearchFinder runs one step of a search of computer's documents' content
// (client:search_finder, this project's Finder extension): call it again
// with the answer's NextCursor until that is empty.
func (c *Client) SearchFinder(ctx context.Context, computer string, q protocol.SearchQuery) (*protocol.SearchFinderRet, error) {
	var ret protocol.SearchFinderRet
	if err := c.searchFinder(ctx, computer, q, &ret); err != nil {
		return nil, err
	}
	return &ret, nil
}

// SearchFinderJSON is SearchFinder returning the SearchFinderRet as
// received.
func (c *Client) SearchFinderJSON(ctx context.Context, computer string, q protocol.SearchQuery) (json.RawMessage, error) {
	var raw json.RawMessage
	if err := c.searchFinder(ctx, computer, q, &raw); err != nil {
		return nil, err
	}
	return raw, nil
}

func (c *Client) searchFinder(ctx context.Context, computer string, q protocol.SearchQuery, out any) error {
	if q.Query == "" {
		return protocol.NewError(protocol.CodeBadRequest, "the search query must not be empty")
	}
	return c.call(ctx, protocol.EventSearchFinder, protocol.NewSearchFinderReq(c.header(computer), q), out)
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
