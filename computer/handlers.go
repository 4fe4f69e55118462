package computer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/computer/mcpclient"
	"github.com/smcp-browse/smcp-browse/computer/resindex"
	"github.com/smcp-browse/smcp-browse/desktop"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/finder"
	"github.com/smcp-browse/smcp-browse/internal/rpcerr"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// desktopConcurrency bounds parallel window reads of one get_desktop.
const desktopConcurrency = 8

// handleGetFinder serves client:get_finder and client:list_finder (tags is
// an alias of keywords): the aggregated catalog organized by keyword, file
// type, tool-call history and paging, with this project's match and sort
// extension (protocol.FinderQuery).
func (c *Computer) handleGetFinder(ctx context.Context, req protocol.GetFinderReq) (any, error) {
	offset, limit := 0, finder.DefaultLimit
	if req.Offset != nil {
		if *req.Offset < 0 {
			return nil, protocol.Errorf(protocol.CodeBadRequest, "offset must be >= 0, got %d", *req.Offset)
		}
		offset = *req.Offset
	}
	if req.Limit != nil {
		if *req.Limit < 0 {
			return nil, protocol.Errorf(protocol.CodeBadRequest, "limit must be >= 0, got %d", *req.Limit)
		}
		limit = *req.Limit // above finder.MaxLimit it is capped
	}
	if req.Match != "" && req.Match != protocol.MatchAny && req.Match != protocol.MatchAll {
		return nil, protocol.Errorf(protocol.CodeBadRequest, "match must be %q or %q, got %q", protocol.MatchAny, protocol.MatchAll, req.Match)
	}
	if !protocol.ValidSort(req.Sort) {
		return nil, protocol.Errorf(protocol.CodeBadRequest, "sort must be title, type, pages or modified (with - for descending), got %q", req.Sort)
	}
	q := req.Query()
	q.Offset, q.Limit = offset, limit
	ctx, cancel := context.WithTimeout(ctx, c.opts.HandlerTimeout)
	defer cancel()
	// A catalog being read answers at once with the entries of the page
	// it shows, read first (FirstWait at most); a query that filters on
	// what the reads bring waits for the reads it depends on (FilterWait
	// at most) rather than answer wrongly. What is still unknown then is
	// counted in pending (docs/interop.md, "Provisional catalogs").
	hist := c.hist.servers()
	filtered := len(q.Keywords) > 0 || q.FileType != ""
	var a finder.Answer
	cat := c.index.Settle(ctx, filtered, func(docs []protocol.DPEDocumentSummary) []protocol.DPEDocumentSummary {
		a = finder.Organized(docs, q, hist)
		return a.Needs
	})
	if len(cat.Documents) == 0 {
		if err := c.catalogUnavailable(); err != nil {
			c.log.Info("get_finder: no documents and document servers unavailable", "req_id", req.ReqID, "err", err)
			return nil, err
		}
	}
	return protocol.GetFinderRet{Documents: a.Page, TotalCount: a.Total, ReqID: req.ReqID,
		FileTypes: finder.FileTypes(cat.Documents, q), Pending: len(a.Needs), Listing: cat.Listing, Refused: cat.Refused}, nil
}

// catalogUnavailable explains an empty catalog that is empty because
// servers that serve, or may serve, documents are not available: still
// starting, down, or failing to list their resources. It is a 4014 naming
// them (the first as mcp_server, all in details.servers), or nil when the
// catalog is empty because the servers have no documents. Servers seen up
// without resources.subscribe never count.
func (c *Computer) catalogUnavailable() *protocol.Error {
	c.mu.Lock()
	notFinder := maps.Clone(c.notFinder)
	c.mu.Unlock()
	states := c.mgr.States()
	var down []protocol.UnavailableServer
	var msgs []string
	for _, s := range c.mgr.Servers() {
		if !notFinder[s.BundleID] && !states[s.BundleID].Up {
			st, msg := c.serverState(s.BundleID)
			down, msgs = append(down, st), append(msgs, msg)
		}
	}
	unlisted := c.index.Unlisted()
	for _, name := range slices.Sorted(maps.Keys(unlisted)) {
		if err := unlisted[name]; err != nil {
			down = append(down, protocol.UnavailableServer{Name: name, State: protocol.ServerListFailed, LastError: err.Error()})
			msgs = append(msgs, fmt.Sprintf("MCP server %q failed to list its documents: %v", name, err))
		} else {
			down = append(down, protocol.UnavailableServer{Name: name, State: protocol.ServerListing})
			msgs = append(msgs, fmt.Sprintf("MCP server %q is still listing its documents", name))
		}
	}
	switch len(down) {
	case 0:
		return nil
	case 1:
		return protocol.ServerNotAvailable(down[0], "the catalog is empty: "+msgs[0])
	}
	return protocol.ServersNotAvailable(down,
		fmt.Sprintf("the catalog is empty: %d document servers are unavailable: %s", len(down), strings.Join(msgs, "; ")))
}

// handleReadResource serves client:read_resource: a dpe:// URI is
// validated (4204) and routed by host to the server that lists it (4201
// when none does); any other URI goes to the server that listed it. The
// MCP ReadResourceResult is returned as the server sent it; its Finder
// errors keep their code and details.
func (c *Computer) handleReadResource(ctx context.Context, req protocol.ReadResourceReq) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.HandlerTimeout)
	defer cancel()
	res, err := c.read(ctx, req.URI)
	if err != nil {
		c.log.Info("read_resource failed", "req_id", req.ReqID, "uri", req.URI, "err", err)
		return nil, err
	}
	out, err := json.Marshal(res)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInternalError, "read %s: result is not JSON: %v", req.URI, err)
	}
	if len(out) > c.opts.MaxAnswerBytes {
		c.log.Info("read_resource answer too large", "req_id", req.ReqID, "uri", req.URI, "bytes", len(out))
		return nil, tooLarge("the answer to the read of "+clip(req.URI), len(out), c.opts.MaxAnswerBytes)
	}
	return json.RawMessage(out), nil
}

// read resolves, routes and performs one resources/read, returning a
// *protocol.Error on failure.
func (c *Computer) read(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	if uri == "" {
		return nil, protocol.NewError(protocol.CodeBadRequest, "uri is required")
	}
	if strings.HasPrefix(strings.ToLower(uri), "dpe:") {
		u, err := dpe.Parse(uri)
		if err != nil {
			msg := err.Error()
			if pe := (*protocol.Error)(nil); errors.As(err, &pe) {
				msg = pe.Message // "rule N: ...", without the code repeated
			}
			return nil, protocol.Errorf(protocol.CodeInvalidDPEURI, "invalid dpe:// URI: %s", msg).
				WithDetails(map[string]any{"uri": uri, "rule": int(dpe.RuleOf(err))})
		}
		name, ok := c.index.HostOwner(ctx, u)
		if !ok {
			return nil, protocol.Errorf(protocol.CodeDocumentNotFound, "no MCP server of this computer serves host %q", u.Host).
				WithDetails(map[string]any{"host": u.Host, "uri": uri})
		}
		return c.readFrom(ctx, name, uri)
	}
	name, ok := c.index.Owner(ctx, uri)
	if !ok {
		return nil, protocol.Errorf(protocol.CodeNotFound, "no MCP server of this computer lists %q", uri).
			WithDetails(map[string]any{"uri": uri})
	}
	return c.readFrom(ctx, name, uri)
}

func (c *Computer) readFrom(ctx context.Context, server, uri string) (*mcp.ReadResourceResult, error) {
	conn, ok := c.mgr.Conn(server)
	if !ok {
		return nil, protocol.Errorf(protocol.CodeNotFound, "MCP server %q is not running", server).
			WithDetails(map[string]any{"server": server})
	}
	res, err := conn.Read(ctx, uri)
	if err != nil {
		return nil, readError(server, uri, err)
	}
	return res, nil
}

// readError maps an MCP read failure to the protocol error the Agent gets.
// The Finder codes 4201-4204 keep their message and details (the JSON-RPC
// error data); other JSON-RPC errors become 404 (resource not found) or
// 500; a timeout is 408; a server that went away is 500; an answer the
// Computer refused is 413 (too large) or 500 (nested too deep).
func readError(server, uri string, err error) *protocol.Error {
	if e := refusedAnswer(server, "the read of "+clip(uri), err); e != nil {
		return e
	}
	var re *rpcerr.Error
	if errors.As(err, &re) {
		details, _ := re.Data.(map[string]any)
		switch re.Code {
		case protocol.CodeDocumentNotFound, protocol.CodePageOutOfRange, protocol.CodeElementNotFound, protocol.CodeInvalidDPEURI:
			pe := protocol.NewError(re.Code, re.Message)
			if len(details) > 0 {
				pe.Details = details
			}
			return pe
		case mcp.RESOURCE_NOT_FOUND:
			return protocol.Errorf(protocol.CodeNotFound, "%s: %s", server, re.Message).WithDetails(map[string]any{"uri": uri})
		}
		return protocol.Errorf(protocol.CodeInternalError, "MCP server %s answered error %d: %s", server, re.Code, re.Message).
			WithDetails(map[string]any{"uri": uri, "mcp_code": re.Code})
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return protocol.Errorf(protocol.CodeTimeout, "MCP server %s did not answer the read of %s in time", server, uri)
	}
	if errors.Is(err, mcpclient.ErrDown) {
		return protocol.Errorf(protocol.CodeInternalError, "MCP server %s went away during the read of %s", server, uri)
	}
	return protocol.Errorf(protocol.CodeInternalError, "read %s from %s: %v", uri, server, err)
}

// handleGetDesktop serves client:get_desktop: every window:// resource of
// the Finder-capable servers is read and organized; window selects one by
// exact URI, as listed or as the desktop shows it (without a query); no
// match is an empty desktop.
func (c *Computer) handleGetDesktop(ctx context.Context, req protocol.GetDeskTopReq) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.HandlerTimeout)
	defer cancel()
	listed := c.index.Windows(ctx)
	var picked []resindex.Window
	for _, w := range listed {
		if req.Window == "" || w.URI == req.Window || windowID(w.URI) == req.Window {
			picked = append(picked, w)
		}
	}
	windows := make([]desktop.Window, len(picked))
	ok := make([]bool, len(picked))
	sem := make(chan struct{}, desktopConcurrency)
	var wg sync.WaitGroup
	for i, w := range picked {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			res, err := c.readFrom(ctx, w.Server, w.URI)
			if err != nil {
				c.log.Warn("desktop: window read failed", "server", w.Server, "uri", w.URI, "err", err)
				return
			}
			windows[i] = desktopWindow(w, mcpclient.Contents(res))
			ok[i] = true
		})
	}
	wg.Wait()
	var read []desktop.Window
	for i, w := range windows {
		if ok[i] {
			read = append(read, w)
		}
	}
	return protocol.GetDeskTopRet{Desktops: desktop.Organize(read, req.DesktopSize, c.hist.servers(), c.log), ReqID: req.ReqID}, nil
}

// desktopWindow is the listed window w with its contents, its annotations
// and _meta as the server sent them (package desktop applies the rules).
func desktopWindow(w resindex.Window, contents []protocol.ResourceContents) desktop.Window {
	dw := desktop.Window{Server: w.Server, URI: w.URI, Contents: contents}
	if a := w.Annotations; a != nil {
		dw.Priority = a.Priority
		for _, r := range a.Audience {
			dw.Audience = append(dw.Audience, string(r))
		}
	}
	if w.Meta != nil {
		dw.Fullscreen = w.Meta.AdditionalFields["fullscreen"]
	}
	return dw
}

// windowID is the identifier of a listed window URI (without its query),
// which is what the desktop shows; "" when it is not a valid window URI.
func windowID(uri string) string {
	id, _, _, err := desktop.Identify(uri)
	if err != nil {
		return ""
	}
	return id
}

// handleGetConfig serves client:get_config: the inputs and every
// configured server keyed by bundle_id, parameters as declared, every
// field the protocol requires present (config.Server.MarshalJSON).
func (c *Computer) handleGetConfig(ctx context.Context, req protocol.ComputerCall) (any, error) {
	ret := protocol.GetComputerConfigRet{Servers: map[string]json.RawMessage{}}
	for _, in := range c.cfg.Inputs {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", in.ID, err)
		}
		ret.Inputs = append(ret.Inputs, b)
	}
	for _, s := range c.servers {
		b, err := json.Marshal(s)
		if err != nil {
			return nil, fmt.Errorf("config of %s: %w", s.BundleID, err)
		}
		ret.Servers[s.BundleID] = b
	}
	return ret, nil
}
