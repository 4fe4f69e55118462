// Package config reads a Computer's MCP server configuration: the A2C-SMCP
// format ({"servers": {...}, "inputs": [...]}) and the common
// {"mcpServers": {...}} form. A bad entry is reported as a Problem naming
// the entry and field and is skipped; the other entries are kept.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
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
	// LandingRoot is the absolute directory client:put_blob uploads land
	// in (the SDK settings' landingRoot), "" when uploads are refused.
	LandingRoot string
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
	// EncodingErrorHandler is strict, ignore or replace (kept for
	// client:get_config; the Computer reads a child's output as UTF-8).
	EncodingErrorHandler string

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
	// Hosts are the dpe:// and window:// hosts this server owns: no other
	// server's entries under them are taken (this project's extension,
	// docs/interop.md "Who owns a host").
	Hosts []string
}

// Input is one entry of the inputs array.
type Input struct {
	ID          string
	Type        string // promptString, pickString or command
	Description string
	Default     *string
	Password    bool
	Options     []PickOption // pickString
	Command     string       // command
	Args        json.RawMessage
	Raw         json.RawMessage
}

// PickOption is one choice of a pickString input: Label is shown, Value is
// what the placeholder becomes. A plain string option is both.
type PickOption struct {
	Label string `json:"label"`
	Value string `json:"value"`
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

// rawEntry is one server entry of either dialect, in file order.
type rawEntry struct {
	key    string
	value  json.RawMessage
	common bool
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
		case "landingRoot":
			if err := parseLandingRoot(kv.value, &cfg.LandingRoot); err != nil {
				cfg.Problems = append(cfg.Problems, Problem{Field: kv.key, Err: err})
			}
		case "$schema":
		default:
			cfg.Problems = append(cfg.Problems, Problem{Field: kv.key, Err: errors.New("unknown top-level field (want servers, mcpServers, inputs or landingRoot)")})
		}
	}
	if inputsRaw != nil && string(inputsRaw) != "null" {
		cfg.Inputs, cfg.Problems = parseInputs(inputsRaw, cfg.Problems)
	}
	env := opts.LookupEnv
	if env == nil {
		env = func(string) (string, bool) { return "", false }
	}
	seen := map[string]string{}  // bundle_id -> entry key
	owner := map[string]string{} // configured host -> entry key
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
		if h, prev, clash := hostClash(s.Hosts, owner); clash {
			cfg.Problems = append(cfg.Problems, Problem{Entry: e.key, Field: "hosts", Err: fmt.Errorf(
				"host %q is already owned by server %q; a host has one owner", h, prev)})
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
		for _, h := range s.Hosts {
			owner[h] = e.key
		}
		cfg.Servers = append(cfg.Servers, s)
	}
	return cfg, nil
}

// parseLandingRoot reads landingRoot: a string holding an absolute path,
// as the SDK's settings validator requires (a relative one is refused:
// it would land uploads wherever the Computer happens to run). The file
// a Computer is started with is its operator's, so unlike the SDK there
// is no project-scope file to refuse it from.
func parseLandingRoot(raw json.RawMessage, dst *string) error {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return errors.New("must be a string (an absolute directory)")
	}
	if !filepath.IsAbs(s) {
		return fmt.Errorf("%q must be an absolute path", s)
	}
	*dst = filepath.Clean(s)
	return nil
}

// hostClash returns the first of hosts that owner already gives to an
// entry, and that entry.
func hostClash(hosts []string, owner map[string]string) (string, string, bool) {
	for _, h := range hosts {
		if prev, ok := owner[h]; ok {
			return h, prev, true
		}
	}
	return "", "", false
}

// ValidHost checks a configured host: what a dpe:// or window:// URI may
// have between "://" and the path (no /, ?, #, %, backslash, spaces
// or control characters).
func ValidHost(h string) error {
	if h == "" {
		return errors.New("host is empty")
	}
	if strings.ContainsFunc(h, func(r rune) bool {
		return r <= ' ' || r == 0x7f || (r >= 0x80 && r <= 0x9f) || strings.ContainsRune("/?#%\\", r) || r == utf8.RuneError
	}) {
		return fmt.Errorf("host %q has characters a host cannot have", h)
	}
	return nil
}

// checkHosts checks the hosts field of an entry.
func checkHosts(hosts []string) error {
	for i, h := range hosts {
		if err := ValidHost(h); err != nil {
			return ferr(fmt.Sprintf("hosts[%d]", i), "%v", err)
		}
		if slices.Index(hosts, h) != i {
			return ferr(fmt.Sprintf("hosts[%d]", i), "host %q is given twice", h)
		}
	}
	return nil
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

// MergedToolMeta returns the configured metadata of tool: default_tool_meta
// overlaid with the tool's own non-null fields (a shallow merge), or nil
// when neither is configured. As in the SDK, alias is never taken from
// default_tool_meta: it renames one tool, and every tool of the server
// would otherwise get the same name.
func (s Server) MergedToolMeta(tool string) ToolMeta {
	own := s.ToolMeta[tool]
	if s.DefaultToolMeta == nil && own == nil {
		return nil
	}
	out := ToolMeta{}
	maps.Copy(out, s.DefaultToolMeta)
	delete(out, "alias")
	for k, v := range own {
		if v != nil {
			out[k] = v
		}
	}
	return out
}

// LayeredToolMeta adds the lowest layer of 0.4.0's tool metadata to the
// configured one (MergedToolMeta): the a2c_tool_meta an MCP server
// declares in a tool's _meta (declared; present says it has the key), of
// which only tags are taken, and only when the configuration sets none.
// A declaration that is not an object or whose tags are not a list of
// strings is dropped (reason says why). The result is nil when there is
// neither configuration nor a valid declaration.
func (s Server) LayeredToolMeta(tool string, declared any, present bool) (meta ToolMeta, reason string) {
	cfg := s.MergedToolMeta(tool)
	if !present {
		return cfg, ""
	}
	obj, ok := declared.(map[string]any)
	if !ok {
		return cfg, "the server's a2c_tool_meta is not an object"
	}
	var tags []any
	switch t := obj["tags"].(type) {
	case nil:
	case []any:
		for _, e := range t {
			if _, isStr := e.(string); !isStr {
				return cfg, "the server's a2c_tool_meta tags are not a list of strings"
			}
		}
		tags = t
	default:
		return cfg, "the server's a2c_tool_meta tags are not a list of strings"
	}
	out := ToolMeta{}
	maps.Copy(out, cfg)
	if out["tags"] == nil && tags != nil {
		out["tags"] = tags
	}
	return out, ""
}

// Forbidden reports whether tool is listed in forbidden_tools.
func (s Server) Forbidden(tool string) bool { return slices.Contains(s.ForbiddenTools, tool) }

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
