package computer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/computer/mcpclient"
	"github.com/smcp-browse/smcp-browse/internal/rpcerr"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// handleGetResources serves client:get_resources: one page of the
// resources/list of the MCP server named by mcp_server (its bundle_id),
// passed through without filtering, with the server's cursor. A server
// this Computer does not run is 4014; one without the resources
// capability is 4015.
func (c *Computer) handleGetResources(ctx context.Context, req protocol.GetResourcesReq) (any, error) {
	if req.MCPServer == "" {
		return nil, protocol.NewError(protocol.CodeBadRequest, "mcp_server is required (a bundle_id from client:get_config)")
	}
	conn, err := c.running(req.MCPServer)
	if err != nil {
		return nil, err
	}
	if conn.Capabilities().Resources == nil {
		return nil, capabilityError(req.MCPServer, "resources")
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.HandlerTimeout)
	defer cancel()
	res, next, err := conn.ListResources(ctx, req.Cursor)
	if err != nil {
		c.log.Info("get_resources failed", "req_id", req.ReqID, "server", req.MCPServer, "err", err)
		return nil, listError(req.MCPServer, req.Cursor, err)
	}
	ret := protocol.GetResourcesRet{Resources: make([]protocol.A2CResource, 0, len(res)), NextCursor: next, ReqID: req.ReqID}
	for _, r := range res {
		ret.Resources = append(ret.Resources, a2cResource(r))
	}
	return ret, nil
}

// running returns the live connection of the MCP server bundleID, or the
// 4014 that says why there is none: not configured here, disabled, or not
// running (still starting, or restarting after a failure).
func (c *Computer) running(bundleID string) (*mcpclient.Conn, error) {
	if conn, ok := c.mgr.Conn(bundleID); ok {
		return conn, nil
	}
	return nil, c.serverNotRunning(bundleID)
}

// serverNotRunning is the 4014 for an MCP server without a live connection.
func (c *Computer) serverNotRunning(bundleID string) *protocol.Error {
	return protocol.ServerNotAvailable(c.serverState(bundleID))
}

// serverState says why the MCP server bundleID has no live connection:
// its state, and the message of the 4014 that names it.
func (c *Computer) serverState(bundleID string) (protocol.UnavailableServer, string) {
	st := protocol.UnavailableServer{Name: bundleID}
	switch s, ok := c.server(bundleID); {
	case !ok:
		st.State = protocol.ServerUnknown
		return st, fmt.Sprintf("no MCP server %q is configured on this computer", bundleID)
	case s.Disabled:
		st.State = protocol.ServerDisabled
		return st, fmt.Sprintf("MCP server %q is disabled on this computer", bundleID)
	}
	ms := c.mgr.States()[bundleID]
	if ms.LastError == "" {
		st.State = protocol.ServerStarting
		return st, fmt.Sprintf("MCP server %q is still starting", bundleID)
	}
	st.State, st.LastError = protocol.ServerDown, ms.LastError
	return st, fmt.Sprintf("MCP server %q is not running (%s); the computer keeps restarting it", bundleID, ms.LastError)
}

// server returns the configured server bundleID.
func (c *Computer) server(bundleID string) (config.Server, bool) {
	for _, s := range c.servers {
		if s.BundleID == bundleID {
			return s, true
		}
	}
	return config.Server{}, false
}

// capabilityError is the 4015 for a server that lacks capability.
func capabilityError(bundleID, capability string) *protocol.Error {
	e := protocol.Errorf(protocol.CodeMCPCapabilityNotSupported, "MCP server %q does not declare the %q capability", bundleID, capability)
	e.Extra = map[string]any{"mcp_server": bundleID, "capability": capability}
	return e
}

// listError maps a failed resources/list: a cursor the server refuses is
// 400, no answer in time 408, a server that went away 4014, anything else
// 500 with the server's code.
func listError(bundleID, cursor string, err error) *protocol.Error {
	if e := refusedAnswer(bundleID, "resources/list", err); e != nil {
		return e
	}
	var re *rpcerr.Error
	switch {
	case errors.As(err, &re) && re.Code == mcp.INVALID_PARAMS:
		return protocol.Errorf(protocol.CodeBadRequest, "MCP server %q refused the request (cursor %q?): %s", bundleID, cursor, re.Message).
			WithDetails(map[string]any{"mcp_code": re.Code})
	case errors.As(err, &re):
		return protocol.Errorf(protocol.CodeInternalError, "MCP server %q answered error %d: %s", bundleID, re.Code, re.Message).
			WithDetails(map[string]any{"mcp_code": re.Code})
	case errors.Is(err, context.DeadlineExceeded):
		return protocol.Errorf(protocol.CodeTimeout, "MCP server %q did not list its resources in time", bundleID)
	case errors.Is(err, mcpclient.ErrDown):
		return protocol.ServerNotAvailable(protocol.UnavailableServer{Name: bundleID, State: protocol.ServerDown},
			fmt.Sprintf("MCP server %q went away during resources/list", bundleID))
	}
	return protocol.Errorf(protocol.CodeInternalError, "resources/list of %q: %v", bundleID, err)
}

// refusedAnswer is the error for an answer of server to what that the
// Computer refused without decoding (mcpclient.ErrTooLarge, ErrTooDeep),
// or nil.
func refusedAnswer(server, what string, err error) *protocol.Error {
	switch {
	case errors.Is(err, mcpclient.ErrTooLarge):
		return protocol.Errorf(protocol.CodePayloadTooLarge, "MCP server %s answered %s with more than %d bytes, the most the computer accepts in one message",
			server, what, mcpclient.MaxMessageBytes).WithDetails(map[string]any{"mcp_server": server, "limit": mcpclient.MaxMessageBytes})
	case errors.Is(err, mcpclient.ErrTooDeep):
		return protocol.Errorf(protocol.CodeInternalError, "MCP server %s answered %s with JSON nested deeper than %d levels; the computer refused it",
			server, what, mcpclient.MaxDepth).WithDetails(map[string]any{"mcp_server": server, "limit": mcpclient.MaxDepth})
	}
	return nil
}

// a2cResource converts an MCP Resource to the protocol's A2CResource
// (snake_case names; title and icons have no place there).
func a2cResource(r mcp.Resource) protocol.A2CResource {
	out := protocol.A2CResource{URI: r.URI, Name: r.Name, Description: r.Description, MIMEType: r.MIMEType, Size: r.Size}
	if a := r.Annotations; a != nil && (len(a.Audience) > 0 || a.Priority != nil || a.LastModified != "") {
		ann := &protocol.ResourceAnnotations{Priority: a.Priority, LastModified: a.LastModified}
		for _, role := range a.Audience {
			ann.Audience = append(ann.Audience, string(role))
		}
		out.Annotations = ann
	}
	if r.Meta != nil {
		if b, err := json.Marshal(r.Meta); err == nil {
			_ = json.Unmarshal(b, &out.Meta)
		}
		if len(out.Meta) == 0 {
			out.Meta = nil
		}
	}
	return out
}
