package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The A2C-SMCP dialect: {"servers": {KEY: a2cEntry}} with
// server_parameters typed by the entry's type (data-structures.md,
// MCPServerConfig).

// a2cEntry is one entry of the A2C-SMCP servers map.
type a2cEntry struct {
	Type            string          `json:"type"`
	Name            *string         `json:"name"`
	BundleID        string          `json:"bundle_id"`
	BundleIDCamel   string          `json:"bundleId"`
	Disabled        bool            `json:"disabled"`
	Hosts           []string        `json:"hosts"`
	ForbiddenTools  []string        `json:"forbidden_tools"`
	ToolMeta        toolMetaMap     `json:"tool_meta"`
	DefaultToolMeta ToolMeta        `json:"default_tool_meta"`
	VRL             string          `json:"vrl"`
	Parameters      json.RawMessage `json:"server_parameters"`
}

// a2cStdioParams are the server_parameters of a stdio entry.
type a2cStdioParams struct {
	Command              string    `json:"command"`
	Args                 []string  `json:"args"`
	Env                  stringMap `json:"env"`
	Cwd                  string    `json:"cwd"`
	Encoding             string    `json:"encoding"`
	EncodingErrorHandler string    `json:"encoding_error_handler"`
}

// a2cRemoteParams are the server_parameters of an sse or streamable entry.
type a2cRemoteParams struct {
	URL              string    `json:"url"`
	Headers          stringMap `json:"headers"`
	Timeout          seconds   `json:"timeout"`
	SSEReadTimeout   seconds   `json:"sse_read_timeout"`
	TerminateOnClose *bool     `json:"terminate_on_close"`
}

// parseEntry parses an entry of the A2C-SMCP servers map.
func parseEntry(key string, raw json.RawMessage) (Server, []Problem, error) {
	var e a2cEntry
	if err := decodeStrict(raw, &e, ""); err != nil {
		return Server{}, nil, err
	}
	s := Server{Key: key, Name: key, Disabled: e.Disabled, Hosts: e.Hosts, ForbiddenTools: e.ForbiddenTools,
		ToolMeta: e.ToolMeta, DefaultToolMeta: e.DefaultToolMeta}
	if err := checkHosts(e.Hosts); err != nil {
		return s, nil, err
	}
	switch e.Type {
	case TypeStdio, TypeSSE, TypeStreamable:
		s.Type = e.Type
	case "http", "HTTP", "streamable-http", "streamable_http", "streamableHttp":
		s.Type = TypeStreamable
	case "":
		return s, nil, ferr("type", "missing (want stdio, sse or streamable)")
	default:
		return s, nil, ferr("type", "unknown type %q (want stdio, sse or streamable)", e.Type)
	}
	if e.Name != nil && *e.Name != "" {
		s.Name = *e.Name
	}
	var warn []Problem
	if e.VRL != "" {
		warn = append(warn, Problem{Entry: key, Field: "vrl", Err: errors.New("VRL transforms are not supported; the script is ignored")})
	}
	if len(e.Parameters) == 0 {
		return s, nil, ferr("server_parameters", "missing")
	}
	var err error
	if s.Declared, err = parseParams(s.Type, e.Parameters, "server_parameters"); err != nil {
		return s, nil, err
	}
	explicit := e.BundleID
	if explicit == "" {
		explicit = e.BundleIDCamel
	}
	if explicit != "" {
		if err := ValidBundleID(explicit); err != nil {
			return s, nil, &fieldError{field: "bundle_id", err: err}
		}
		s.BundleID = explicit
	} else {
		s.BundleID = deriveBundleID(s.Name, s.Type, s.Declared)
	}
	return s, warn, nil
}

// encodingErrorHandlers are the values of encoding_error_handler.
var encodingErrorHandlers = []string{"strict", "ignore", "replace"}

// parseParams parses the server_parameters of a server of type typ; field
// paths in errors start with prefix.
func parseParams(typ string, raw json.RawMessage, prefix string) (Params, error) {
	if typ == TypeStdio {
		var sp a2cStdioParams
		if err := decodeStrict(raw, &sp, prefix); err != nil {
			return Params{}, err
		}
		p := Params{Command: sp.Command, Args: sp.Args, Env: sp.Env, Cwd: sp.Cwd,
			Encoding: sp.Encoding, EncodingErrorHandler: sp.EncodingErrorHandler}
		if p.Command == "" {
			return p, ferr(join(prefix, "command"), "missing")
		}
		switch strings.ToLower(p.Encoding) {
		case "", "utf-8", "utf8":
		default:
			return p, ferr(join(prefix, "encoding"), "only utf-8 is supported, got %q", p.Encoding)
		}
		if p.EncodingErrorHandler != "" && !slices.Contains(encodingErrorHandlers, p.EncodingErrorHandler) {
			return p, ferr(join(prefix, "encoding_error_handler"), "%q is not one of %s", p.EncodingErrorHandler, strings.Join(encodingErrorHandlers, ", "))
		}
		return p, nil
	}
	var rp a2cRemoteParams
	if err := decodeStrict(raw, &rp, prefix); err != nil {
		return Params{}, err
	}
	p := Params{URL: rp.URL, Headers: rp.Headers, Timeout: time.Duration(rp.Timeout),
		SSEReadTimeout: time.Duration(rp.SSEReadTimeout), TerminateOnClose: rp.TerminateOnClose}
	return p, checkURL(join(prefix, "url"), p.URL)
}

// checkURL checks the url of an sse or streamable server (a placeholder
// is checked once resolved, by the transport).
func checkURL(field, url string) error {
	if url == "" {
		return ferr(field, "missing")
	}
	if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "${") {
		return ferr(field, "%q is not an http(s) URL", url)
	}
	return nil
}

// ferr is an error at a field of the entry being parsed.
func ferr(field string, format string, args ...any) error {
	return &fieldError{field: field, err: fmt.Errorf(format, args...)}
}
