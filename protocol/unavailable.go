package protocol

// The details of a 4014 (CodeMCPServerNotFound) that says why a
// Computer's MCP servers are not available: the Computer builds them, an
// Agent reads them (the browser says what each server is doing).
//
// One server: {code: 4014, message, mcp_server: NAME, details: {state,
// last_error?}}. Several (an empty catalog whose document servers are all
// unavailable): mcp_server is the first, and details.servers lists each
// as {mcp_server, state, last_error?}.

// States of an unavailable MCP server (UnavailableServer.State).
const (
	ServerStarting   = "starting"    // configured, not up yet
	ServerListing    = "listing"     // up, still listing its documents
	ServerDown       = "down"        // not running; the Computer restarts it
	ServerListFailed = "list_failed" // up, its resources/list failed
	ServerDisabled   = "disabled"    // disabled in the Computer's configuration
	ServerUnknown    = "unknown"     // not configured on this Computer
)

// UnavailableServer is one MCP server a 4014 names.
type UnavailableServer struct {
	Name      string // the server's name (bundle_id)
	State     string // a Server* state, "" when not known
	LastError string // the last error seen, if any
}

// details is s's details object: state and last_error when set.
func (s UnavailableServer) details() map[string]any {
	d := map[string]any{}
	if s.State != "" {
		d["state"] = s.State
	}
	if s.LastError != "" {
		d["last_error"] = s.LastError
	}
	return d
}

// ServerNotAvailable is the 4014 that names s: mcp_server at the top
// level, its state and last error in the details.
func ServerNotAvailable(s UnavailableServer, message string) *Error {
	e := NewError(CodeMCPServerNotFound, message)
	e.Extra = map[string]any{"mcp_server": s.Name}
	if d := s.details(); len(d) > 0 {
		e.Details = d
	}
	return e
}

// ServersNotAvailable is the 4014 that names several servers: the first
// as mcp_server, each in details.servers. servers must not be empty.
func ServersNotAvailable(servers []UnavailableServer, message string) *Error {
	list := make([]any, len(servers))
	for i, s := range servers {
		d := s.details()
		d["mcp_server"] = s.Name
		list[i] = d
	}
	e := NewError(CodeMCPServerNotFound, message)
	e.Extra = map[string]any{"mcp_server": servers[0].Name}
	e.Details = map[string]any{"servers": list}
	return e
}

// UnavailableServers reads the servers a 4014 names, in either form; nil
// when e is not a 4014 or names none with a state.
func UnavailableServers(e *Error) []UnavailableServer {
	if e == nil || e.Code != CodeMCPServerNotFound {
		return nil
	}
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	if list, ok := e.Details["servers"].([]any); ok {
		var out []UnavailableServer
		for _, v := range list {
			if m, ok := v.(map[string]any); ok {
				out = append(out, UnavailableServer{Name: str(m, "mcp_server"), State: str(m, "state"), LastError: str(m, "last_error")})
			}
		}
		return out
	}
	name := str(e.Extra, "mcp_server")
	if name == "" || e.Details["state"] == nil {
		return nil
	}
	return []UnavailableServer{{Name: name, State: str(e.Details, "state"), LastError: str(e.Details, "last_error")}}
}
