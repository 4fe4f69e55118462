// Package config reads a Computer's MCP server configuration: the A2C-SMCP
// format ({"servers": {...}, "inputs": [...]}) and the common
// {"mcpServers": {...}} form. A bad entry is reported as a Problem naming
// the entry and field and is skipped; the other entries are kept.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"
)

// Server transport types.
const (
	TypeStdio      = "stdio"
	TypeSSE        = "sse"
	TypeStreamable = "streamable"
)

// MaxFileSize bounds a configuration file.
const MaxFileSize = 4 << 20

// Config is a parsed Computer configuration.
type Config struct {
	// Servers holds the usable entries (disabled ones included) in file
	// order; bundle IDs are unique.
	Servers []Server
	// Inputs are the declared ${input:...} sources.
	Inputs []Input
	// Problems lists the entries that were skipped, and why.
	Problems []Problem
	// Warnings lists things that were accepted but ignored (e.g. vrl).
	Warnings []Problem
}

// Problem is a configuration problem located at an entry and field.
type Problem struct {
	Entry string // server key, "" for the top level
	Field string // dotted field path inside the entry, may be ""
	Err   error
}

func (p Problem) Error() string {
	var b strings.Builder
	if p.Entry != "" {
		fmt.Fprintf(&b, "server %q", p.Entry)
	} else {
		b.WriteString("config")
	}
	if p.Field != "" {
		fmt.Fprintf(&b, ": field %q", p.Field)
	}
	fmt.Fprintf(&b, ": %v", p.Err)
	return b.String()
}

func (p Problem) Unwrap() error { return p.Err }

// ToolMeta is the per-tool metadata of a server entry (auto_apply, alias,
// tags, ret_object_mapper and any extra fields, kept as given).
type ToolMeta map[string]any

// Params are a server's connection parameters. Command, Args, Env, Cwd and
// Encoding apply to stdio; URL, Headers and the timeouts to sse/streamable.
type Params struct {
	Command  string
	Args     []string
	Env      map[string]string
	Cwd      string
	Encoding string

	URL              string
	Headers          map[string]string
	Timeout          time.Duration
	SSEReadTimeout   time.Duration
	TerminateOnClose *bool
}

// Server is one MCP server entry.
type Server struct {
	Key             string // the key in the configuration's servers map
	Name            string // display name (defaults to Key)
	BundleID        string // unique identity: explicit or derived from Name
	Type            string // TypeStdio, TypeSSE or TypeStreamable
	Disabled        bool
	ForbiddenTools  []string
	ToolMeta        map[string]ToolMeta
	DefaultToolMeta ToolMeta
	// Declared holds the parameters as written (placeholders unresolved);
	// Params holds them with ${input:...} and ${env:...} resolved.
	Declared Params
	Params   Params
}

// Input is one entry of the inputs array.
type Input struct {
	ID          string
	Type        string
	Description string
	Default     *string
	Password    bool
	Options     []string
	Raw         json.RawMessage
}

// Options tune parsing.
type Options struct {
	// LookupEnv resolves environment variables for ${env:...} and input
	// values (A2C_SMCP_<id>[_<bundle_id>]); nil means no environment.
	LookupEnv func(string) (string, bool)
}

// Load reads and parses the configuration file at path.
func Load(path string, opts Options) (Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return Config{}, fmt.Errorf("open config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return Config{}, fmt.Errorf("read config %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return Config{}, fmt.Errorf("config %s is larger than %d bytes", path, MaxFileSize)
	}
	cfg, err := Parse(data, opts)
	if err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// Parse parses a configuration document. It fails only when the document
// is not a JSON object; problems with single entries are reported in
// Config.Problems.
func Parse(data []byte, opts Options) (Config, error) {
	top, err := orderedObject(data)
	if err != nil {
		return Config{}, fmt.Errorf("not a JSON object: %w", err)
	}
	var cfg Config
	var inputsRaw json.RawMessage
	var entries []rawEntry
	for _, kv := range top {
		switch kv.key {
		case "servers", "mcpServers":
			common := kv.key == "mcpServers"
			obj, err := orderedObject(kv.value)
			if err != nil {
				cfg.Problems = append(cfg.Problems, Problem{Field: kv.key, Err: fmt.Errorf("must be an object: %w", err)})
				continue
			}
			for _, e := range obj {
				entries = append(entries, rawEntry{key: e.key, value: e.value, common: common})
			}
		case "inputs":
			inputsRaw = kv.value
		case "$schema":
		default:
			cfg.Problems = append(cfg.Problems, Problem{Field: kv.key, Err: errors.New("unknown top-level field (want servers, mcpServers or inputs)")})
		}
	}
	if inputsRaw != nil && string(inputsRaw) != "null" {
		cfg.Inputs, cfg.Problems = parseInputs(inputsRaw, cfg.Problems)
	}
	env := opts.LookupEnv
	if env == nil {
		env = func(string) (string, bool) { return "", false }
	}
	seen := map[string]string{} // bundle_id -> entry key
	for _, e := range entries {
		var s Server
		var warn []Problem
		var err error
		if e.common {
			s, err = parseCommonEntry(e.key, e.value)
		} else {
			s, warn, err = parseEntry(e.key, e.value)
		}
		cfg.Warnings = append(cfg.Warnings, warn...)
		if err != nil {
			cfg.Problems = append(cfg.Problems, asProblem(e.key, err))
			continue
		}
		if prev, dup := seen[s.BundleID]; dup {
			cfg.Problems = append(cfg.Problems, Problem{Entry: e.key, Err: fmt.Errorf(
				"bundle_id %q is already used by server %q; only the first is started (give one an explicit bundle_id)", s.BundleID, prev)})
			continue
		}
		if !s.Disabled {
			if s.Params, err = resolveParams(s.Declared, s.BundleID, cfg.Inputs, env); err != nil {
				cfg.Problems = append(cfg.Problems, asProblem(e.key, err))
				continue
			}
		} else {
			s.Params = s.Declared
		}
		seen[s.BundleID] = e.key
		cfg.Servers = append(cfg.Servers, s)
	}
	return cfg, nil
}

// Enabled returns the servers that are not disabled.
func (c Config) Enabled() []Server {
	var out []Server
	for _, s := range c.Servers {
		if !s.Disabled {
			out = append(out, s)
		}
	}
	return out
}

// NewStdio returns a stdio server entry for a command started by the
// program itself (e.g. the demo's document servers).
func NewStdio(name, command string, args ...string) Server {
	p := Params{Command: command, Args: args}
	return Server{Key: name, Name: name, Type: TypeStdio, BundleID: deriveBundleID(name, TypeStdio, p), Declared: p, Params: p}
}

// MarshalJSON writes the entry in the A2C-SMCP server format with its
// parameters as declared (placeholders unresolved, so no resolved secret
// leaves the Computer). It is what client:get_config returns.
func (s Server) MarshalJSON() ([]byte, error) {
	params := map[string]any{}
	p := s.Declared
	if s.Type == TypeStdio {
		params["command"] = p.Command
		params["args"] = nonNil(p.Args)
		params["env"] = p.Env
		if p.Cwd != "" {
			params["cwd"] = p.Cwd
		} else {
			params["cwd"] = nil
		}
		if p.Encoding != "" {
			params["encoding"] = p.Encoding
		}
	} else {
		params["url"] = p.URL
		params["headers"] = p.Headers
		if p.Timeout > 0 {
			params["timeout"] = p.Timeout.Seconds()
		}
		if p.SSEReadTimeout > 0 {
			params["sse_read_timeout"] = p.SSEReadTimeout.Seconds()
		}
		if p.TerminateOnClose != nil {
			params["terminate_on_close"] = *p.TerminateOnClose
		}
	}
	toolMeta := s.ToolMeta
	if toolMeta == nil {
		toolMeta = map[string]ToolMeta{}
	}
	out := map[string]any{
		"name":              s.Name,
		"bundle_id":         s.BundleID,
		"type":              s.Type,
		"disabled":          s.Disabled,
		"forbidden_tools":   nonNil(s.ForbiddenTools),
		"tool_meta":         toolMeta,
		"default_tool_meta": s.DefaultToolMeta,
		"server_parameters": params,
	}
	return json.Marshal(out)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// MergedToolMeta returns the metadata of tool: default_tool_meta overlaid
// with the tool's own non-null fields (a shallow merge), or nil when
// neither is configured.
func (s Server) MergedToolMeta(tool string) ToolMeta {
	own := s.ToolMeta[tool]
	if s.DefaultToolMeta == nil && own == nil {
		return nil
	}
	out := ToolMeta{}
	maps.Copy(out, s.DefaultToolMeta)
	for k, v := range own {
		if v != nil {
			out[k] = v
		}
	}
	return out
}

// Forbidden reports whether tool is listed in forbidden_tools.
func (s Server) Forbidden(tool string) bool { return slices.Contains(s.ForbiddenTools, tool) }

// --- entries -------------------------------------------------------------------

type rawEntry struct {
	key    string
	value  json.RawMessage
	common bool
}

// fieldError is an error at a field of the entry being parsed.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return fmt.Sprintf("field %q: %v", e.field, e.err) }
func (e *fieldError) Unwrap() error { return e.err }

func asProblem(entry string, err error) Problem {
	var fe *fieldError
	if errors.As(err, &fe) {
		return Problem{Entry: entry, Field: fe.field, Err: fe.err}
	}
	return Problem{Entry: entry, Err: err}
}

func ferr(field string, format string, args ...any) error {
	return &fieldError{field: field, err: fmt.Errorf(format, args...)}
}

var entryFields = []string{"type", "name", "bundle_id", "bundleId", "disabled", "forbidden_tools", "tool_meta", "default_tool_meta", "vrl", "server_parameters"}

var stdioFields = []string{"command", "args", "env", "cwd", "encoding", "encoding_error_handler"}

var remoteFields = []string{"url", "headers", "timeout", "sse_read_timeout", "terminate_on_close"}

// parseEntry parses an entry of the A2C-SMCP servers map.
func parseEntry(key string, raw json.RawMessage) (Server, []Problem, error) {
	fields, err := objectFields(raw, entryFields)
	if err != nil {
		return Server{}, nil, err
	}
	s := Server{Key: key, Name: key}
	var warn []Problem
	if err := str(fields, "type", &s.Type); err != nil {
		return s, nil, err
	}
	switch s.Type {
	case TypeStdio, TypeSSE, TypeStreamable:
	case "http", "HTTP", "streamable-http", "streamable_http", "streamableHttp":
		s.Type = TypeStreamable
	case "":
		return s, nil, ferr("type", "missing (want stdio, sse or streamable)")
	default:
		return s, nil, ferr("type", "unknown type %q (want stdio, sse or streamable)", s.Type)
	}
	if err := str(fields, "name", &s.Name); err != nil {
		return s, nil, err
	}
	if _, ok := fields["name"]; !ok || s.Name == "" {
		s.Name = key
	}
	if err := boolean(fields, "disabled", &s.Disabled); err != nil {
		return s, nil, err
	}
	if err := strList(fields, "forbidden_tools", &s.ForbiddenTools); err != nil {
		return s, nil, err
	}
	if raw, ok := fields["tool_meta"]; ok && string(raw) != "null" {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return s, nil, ferr("tool_meta", "must be an object of tool name to metadata")
		}
		s.ToolMeta = make(map[string]ToolMeta, len(obj))
		for tool, m := range obj {
			tm, err := parseToolMeta("tool_meta."+tool, m)
			if err != nil {
				return s, nil, err
			}
			s.ToolMeta[tool] = tm
		}
	}
	if raw, ok := fields["default_tool_meta"]; ok {
		if s.DefaultToolMeta, err = parseToolMeta("default_tool_meta", raw); err != nil {
			return s, nil, err
		}
	}
	var vrl string
	if err := str(fields, "vrl", &vrl); err != nil {
		return s, nil, err
	}
	if vrl != "" {
		warn = append(warn, Problem{Entry: key, Field: "vrl", Err: errors.New("VRL transforms are not supported; the script is ignored")})
	}
	paramsRaw, ok := fields["server_parameters"]
	if !ok {
		return s, nil, ferr("server_parameters", "missing")
	}
	if s.Declared, err = parseParams(s.Type, paramsRaw); err != nil {
		return s, nil, err
	}
	var explicit string
	if err := str(fields, "bundle_id", &explicit); err != nil {
		return s, nil, err
	}
	if explicit == "" {
		if err := str(fields, "bundleId", &explicit); err != nil {
			return s, nil, err
		}
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

func parseParams(typ string, raw json.RawMessage) (Params, error) {
	allowed := stdioFields
	if typ != TypeStdio {
		allowed = remoteFields
	}
	fields, err := objectFields(raw, allowed)
	if err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			fe.field = "server_parameters." + fe.field
			return Params{}, fe
		}
		return Params{}, &fieldError{field: "server_parameters", err: err}
	}
	var p Params
	prefix := func(err error) error {
		var fe *fieldError
		if errors.As(err, &fe) {
			fe.field = "server_parameters." + fe.field
		}
		return err
	}
	if typ == TypeStdio {
		if err := str(fields, "command", &p.Command); err != nil {
			return p, prefix(err)
		}
		if p.Command == "" {
			return p, ferr("server_parameters.command", "missing")
		}
		if err := strList(fields, "args", &p.Args); err != nil {
			return p, prefix(err)
		}
		if err := strMap(fields, "env", &p.Env); err != nil {
			return p, prefix(err)
		}
		if err := str(fields, "cwd", &p.Cwd); err != nil {
			return p, prefix(err)
		}
		if err := str(fields, "encoding", &p.Encoding); err != nil {
			return p, prefix(err)
		}
		switch strings.ToLower(p.Encoding) {
		case "", "utf-8", "utf8":
		default:
			return p, ferr("server_parameters.encoding", "only utf-8 is supported, got %q", p.Encoding)
		}
		var handler string
		if err := str(fields, "encoding_error_handler", &handler); err != nil {
			return p, prefix(err)
		}
		return p, nil
	}
	if err := str(fields, "url", &p.URL); err != nil {
		return p, prefix(err)
	}
	if p.URL == "" {
		return p, ferr("server_parameters.url", "missing")
	}
	if !strings.HasPrefix(p.URL, "http://") && !strings.HasPrefix(p.URL, "https://") && !strings.HasPrefix(p.URL, "${") {
		return p, ferr("server_parameters.url", "%q is not an http(s) URL", p.URL)
	}
	if err := strMap(fields, "headers", &p.Headers); err != nil {
		return p, prefix(err)
	}
	if err := duration(fields, "timeout", &p.Timeout); err != nil {
		return p, prefix(err)
	}
	if err := duration(fields, "sse_read_timeout", &p.SSEReadTimeout); err != nil {
		return p, prefix(err)
	}
	if raw, ok := fields["terminate_on_close"]; ok && string(raw) != "null" {
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return p, ferr("server_parameters.terminate_on_close", "must be a boolean")
		}
		p.TerminateOnClose = &b
	}
	return p, nil
}

var commonFields = []string{"command", "args", "env", "cwd", "url", "type", "headers", "disabled", "transport"}

// parseCommonEntry parses an entry of the common mcpServers map:
// {"command", "args", "env"} or {"url", "type"?, "headers"?}. A url
// without a type is taken to be Streamable HTTP.
func parseCommonEntry(key string, raw json.RawMessage) (Server, error) {
	fields, err := objectFields(raw, commonFields)
	if err != nil {
		return Server{}, err
	}
	s := Server{Key: key, Name: key}
	var typ string
	if err := str(fields, "type", &typ); err != nil {
		return s, err
	}
	if typ == "" {
		if err := str(fields, "transport", &typ); err != nil {
			return s, err
		}
	}
	if err := boolean(fields, "disabled", &s.Disabled); err != nil {
		return s, err
	}
	_, hasCmd := fields["command"]
	_, hasURL := fields["url"]
	switch {
	case hasCmd && hasURL:
		return s, errors.New("has both command and url; give one")
	case hasCmd:
		if typ != "" && typ != TypeStdio {
			return s, ferr("type", "%q does not go with command", typ)
		}
		s.Type = TypeStdio
		if err := str(fields, "command", &s.Declared.Command); err != nil {
			return s, err
		}
		if s.Declared.Command == "" {
			return s, ferr("command", "is empty")
		}
		if err := strList(fields, "args", &s.Declared.Args); err != nil {
			return s, err
		}
		if err := strMap(fields, "env", &s.Declared.Env); err != nil {
			return s, err
		}
		if err := str(fields, "cwd", &s.Declared.Cwd); err != nil {
			return s, err
		}
	case hasURL:
		switch typ {
		case "", "http", "streamable", "streamable-http", "streamable_http", "streamableHttp":
			s.Type = TypeStreamable
		case "sse":
			s.Type = TypeSSE
		default:
			return s, ferr("type", "unknown type %q for a url server (want http, streamable or sse)", typ)
		}
		params, err := json.Marshal(map[string]json.RawMessage{"url": fields["url"], "headers": orNull(fields["headers"])})
		if err != nil {
			return s, err
		}
		if s.Declared, err = parseParams(s.Type, params); err != nil {
			var fe *fieldError
			if errors.As(err, &fe) {
				fe.field = strings.TrimPrefix(fe.field, "server_parameters.")
			}
			return s, err
		}
	default:
		return s, errors.New("needs command (stdio) or url (http/sse)")
	}
	s.BundleID = deriveBundleID(s.Name, s.Type, s.Declared)
	return s, nil
}

func orNull(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return json.RawMessage("null")
	}
	return raw
}

var toolMetaTypes = map[string]string{"auto_apply": "bool", "alias": "string", "tags": "strings", "ret_object_mapper": "object"}

func parseToolMeta(field string, raw json.RawMessage) (ToolMeta, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, ferr(field, "must be an object")
	}
	for k, v := range m {
		if v == nil {
			continue
		}
		ok := true
		switch toolMetaTypes[k] {
		case "bool":
			_, ok = v.(bool)
		case "string":
			_, ok = v.(string)
		case "strings":
			l, isList := v.([]any)
			ok = isList
			for _, x := range l {
				if _, s := x.(string); !s {
					ok = false
				}
			}
		case "object":
			_, ok = v.(map[string]any)
		}
		if !ok {
			return nil, ferr(field+"."+k, "must be a %s", toolMetaTypes[k])
		}
	}
	return ToolMeta(m), nil
}

func parseInputs(raw json.RawMessage, problems []Problem) ([]Input, []Problem) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, append(problems, Problem{Field: "inputs", Err: errors.New("must be an array")})
	}
	var out []Input
	for i, r := range list {
		field := fmt.Sprintf("inputs[%d]", i)
		fields, err := objectFields(r, []string{"id", "type", "description", "default", "password", "options", "command", "args"})
		if err != nil {
			problems = append(problems, Problem{Field: field, Err: err})
			continue
		}
		in := Input{Raw: r}
		if err := firstErr(str(fields, "id", &in.ID), str(fields, "type", &in.Type), str(fields, "description", &in.Description),
			boolean(fields, "password", &in.Password), strList(fields, "options", &in.Options)); err != nil {
			problems = append(problems, Problem{Field: field, Err: err})
			continue
		}
		if d, ok := fields["default"]; ok && string(d) != "null" {
			var s string
			if json.Unmarshal(d, &s) != nil {
				problems = append(problems, Problem{Field: field + ".default", Err: errors.New("must be a string")})
				continue
			}
			in.Default = &s
		}
		if in.ID == "" {
			problems = append(problems, Problem{Field: field + ".id", Err: errors.New("missing")})
			continue
		}
		switch in.Type {
		case "promptString", "pickString", "command":
		default:
			problems = append(problems, Problem{Field: field + ".type", Err: fmt.Errorf("unknown input type %q", in.Type)})
			continue
		}
		out = append(out, in)
	}
	return out, problems
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// --- JSON helpers ----------------------------------------------------------------

type keyValue struct {
	key   string
	value json.RawMessage
}

// orderedObject decodes a JSON object keeping its key order; duplicate keys
// are an error.
func orderedObject(data []byte) ([]keyValue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("expected an object")
	}
	var out []keyValue
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("value of %q: %w", key, err)
		}
		if seen[key] {
			return nil, fmt.Errorf("duplicate key %q", key)
		}
		seen[key] = true
		out = append(out, keyValue{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the object")
	}
	return out, nil
}

// objectFields decodes an object and rejects keys outside allowed.
func objectFields(raw json.RawMessage, allowed []string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, errors.New("must be a JSON object")
	}
	keys := slices.Sorted(maps.Keys(m))
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			return nil, &fieldError{field: k, err: fmt.Errorf("unknown field (known: %s)", strings.Join(allowed, ", "))}
		}
	}
	return m, nil
}

func str(fields map[string]json.RawMessage, name string, dst *string) error {
	raw, ok := fields[name]
	if !ok || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return ferr(name, "must be a string")
	}
	return nil
}

func boolean(fields map[string]json.RawMessage, name string, dst *bool) error {
	raw, ok := fields[name]
	if !ok || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return ferr(name, "must be true or false")
	}
	return nil
}

func strList(fields map[string]json.RawMessage, name string, dst *[]string) error {
	raw, ok := fields[name]
	if !ok || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return ferr(name, "must be an array of strings")
	}
	return nil
}

// strMap decodes an object of strings; numbers and booleans are written as
// their JSON text.
func strMap(fields map[string]json.RawMessage, name string, dst *map[string]string) error {
	raw, ok := fields[name]
	if !ok || string(raw) == "null" {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return ferr(name, "must be an object of strings")
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		switch v := v.(type) {
		case string:
			out[k] = v
		case float64, bool:
			b, _ := json.Marshal(v)
			out[k] = string(b)
		default:
			return ferr(name+"."+k, "must be a string")
		}
	}
	*dst = out
	return nil
}

func duration(fields map[string]json.RawMessage, name string, dst *time.Duration) error {
	raw, ok := fields[name]
	if !ok || string(raw) == "null" {
		return nil
	}
	var secs float64
	if json.Unmarshal(raw, &secs) == nil {
		if secs < 0 || secs > 86400 {
			return ferr(name, "%v seconds is out of range", secs)
		}
		*dst = time.Duration(secs * float64(time.Second))
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ferr(name, "must be seconds or a duration string")
	}
	d, err := ParseDuration(s)
	if err != nil {
		return &fieldError{field: name, err: err}
	}
	*dst = d
	return nil
}
