package config

import "errors"

// The common dialect of MCP clients: {"mcpServers": {KEY: commonEntry}},
// a command (stdio) or a url (Streamable HTTP, or SSE with type "sse").

// commonEntry is one entry of the mcpServers map.
type commonEntry struct {
	Command   *string   `json:"command"`
	Args      []string  `json:"args"`
	Env       stringMap `json:"env"`
	Cwd       string    `json:"cwd"`
	URL       *string   `json:"url"`
	Type      string    `json:"type"`
	Transport string    `json:"transport"`
	Headers   stringMap `json:"headers"`
	Disabled  bool      `json:"disabled"`
	Hosts     []string  `json:"hosts"`
}

// parseCommonEntry parses an entry of the mcpServers map. A url without a
// type is taken to be Streamable HTTP.
func parseCommonEntry(key string, raw []byte) (Server, error) {
	var e commonEntry
	if err := decodeStrict(raw, &e, ""); err != nil {
		return Server{}, err
	}
	s := Server{Key: key, Name: key, Disabled: e.Disabled, Hosts: e.Hosts}
	if err := checkHosts(e.Hosts); err != nil {
		return s, err
	}
	typ := e.Type
	if typ == "" {
		typ = e.Transport
	}
	switch {
	case e.Command != nil && e.URL != nil:
		return s, errors.New("has both command and url; give one")
	case e.Command != nil:
		if typ != "" && typ != TypeStdio {
			return s, ferr("type", "%q does not go with command", typ)
		}
		s.Type = TypeStdio
		if *e.Command == "" {
			return s, ferr("command", "is empty")
		}
		s.Declared = Params{Command: *e.Command, Args: e.Args, Env: e.Env, Cwd: e.Cwd}
	case e.URL != nil:
		switch typ {
		case "", "http", "streamable", "streamable-http", "streamable_http", "streamableHttp":
			s.Type = TypeStreamable
		case "sse":
			s.Type = TypeSSE
		default:
			return s, ferr("type", "unknown type %q for a url server (want http, streamable or sse)", typ)
		}
		s.Declared = Params{URL: *e.URL, Headers: e.Headers}
		if err := checkURL("url", s.Declared.URL); err != nil {
			return s, err
		}
	default:
		return s, errors.New("needs command (stdio) or url (http/sse)")
	}
	s.BundleID = deriveBundleID(s.Name, s.Type, s.Declared)
	return s, nil
}
