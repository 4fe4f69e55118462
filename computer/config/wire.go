package config

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/opt"
)

// The get_config form (data-structures.md, MCPServerConfig and
// MCPServerInput): every field the protocol requires is written, unset
// ones with the protocol's defaults, so that a2c-smcp's
// TypeAdapter(GetComputerConfigRet) accepts the answer.

// Protocol defaults of the server_parameters fields.
const (
	DefaultEncoding             = "utf-8"
	DefaultEncodingErrorHandler = "strict"
	DefaultSSETimeout           = 5 * time.Second
	DefaultSSEReadTimeout       = 5 * time.Minute
	DefaultHTTPTimeout          = 30 * time.Second
	DefaultTerminateOnClose     = true
)

type wireServer struct {
	Name             string              `json:"name"`
	BundleID         string              `json:"bundle_id"`
	Type             string              `json:"type"`
	Disabled         bool                `json:"disabled"`
	ForbiddenTools   []string            `json:"forbidden_tools"`
	ToolMeta         map[string]ToolMeta `json:"tool_meta"`
	DefaultToolMeta  ToolMeta            `json:"default_tool_meta"`
	ServerParameters any                 `json:"server_parameters"`
}

type wireStdio struct {
	Command              string            `json:"command"`
	Args                 []string          `json:"args"`
	Env                  map[string]string `json:"env"`
	Cwd                  *string           `json:"cwd"`
	Encoding             string            `json:"encoding"`
	EncodingErrorHandler string            `json:"encoding_error_handler"`
}

// wireStreamable has its timeouts as ISO 8601 durations (strings).
type wireStreamable struct {
	URL              string            `json:"url"`
	Headers          map[string]string `json:"headers"`
	Timeout          string            `json:"timeout"`
	SSEReadTimeout   string            `json:"sse_read_timeout"`
	TerminateOnClose bool              `json:"terminate_on_close"`
}

// wireSSE has its timeouts in seconds (numbers).
type wireSSE struct {
	URL            string            `json:"url"`
	Headers        map[string]string `json:"headers"`
	Timeout        float64           `json:"timeout"`
	SSEReadTimeout float64           `json:"sse_read_timeout"`
}

// MarshalJSON writes the entry in the A2C-SMCP server format with its
// parameters as declared (placeholders unresolved, so no resolved secret
// leaves the Computer) and every required field present. It is what
// client:get_config returns.
func (s Server) MarshalJSON() ([]byte, error) {
	p := s.Declared // a copy: the defaults below fill the answer, not s
	w := wireServer{Name: s.Name, BundleID: s.BundleID, Type: s.Type, Disabled: s.Disabled,
		ForbiddenTools: nonNil(s.ForbiddenTools), ToolMeta: s.ToolMeta, DefaultToolMeta: s.DefaultToolMeta}
	if w.ToolMeta == nil {
		w.ToolMeta = map[string]ToolMeta{}
	}
	switch s.Type {
	case TypeStdio:
		opt.Default(&p.Encoding, DefaultEncoding)
		opt.Default(&p.EncodingErrorHandler, DefaultEncodingErrorHandler)
		sp := wireStdio{Command: p.Command, Args: nonNil(p.Args), Env: p.Env,
			Encoding: p.Encoding, EncodingErrorHandler: p.EncodingErrorHandler}
		if p.Cwd != "" {
			sp.Cwd = &p.Cwd
		}
		w.ServerParameters = sp
	case TypeSSE:
		opt.Default(&p.Timeout, DefaultSSETimeout)
		opt.Default(&p.SSEReadTimeout, DefaultSSEReadTimeout)
		w.ServerParameters = wireSSE{URL: p.URL, Headers: p.Headers,
			Timeout: p.Timeout.Seconds(), SSEReadTimeout: p.SSEReadTimeout.Seconds()}
	default:
		terminate := DefaultTerminateOnClose
		if p.TerminateOnClose != nil {
			terminate = *p.TerminateOnClose
		}
		opt.Default(&p.Timeout, DefaultHTTPTimeout)
		opt.Default(&p.SSEReadTimeout, DefaultSSEReadTimeout)
		w.ServerParameters = wireStreamable{URL: p.URL, Headers: p.Headers,
			Timeout:          ISODuration(p.Timeout),
			SSEReadTimeout:   ISODuration(p.SSEReadTimeout),
			TerminateOnClose: terminate}
	}
	return json.Marshal(w)
}

// ISODuration writes d as an ISO 8601 duration in seconds ("PT30S",
// "PT0.5S"), which ParseDuration reads back.
func ISODuration(d time.Duration) string {
	return "PT" + strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "S"
}

// MarshalJSON writes the input in the protocol's form for its type:
// description always, options as {label, value}, args only when it is an
// object of strings.
func (in Input) MarshalJSON() ([]byte, error) {
	out := map[string]any{"id": in.ID, "type": in.Type, "description": in.Description}
	if in.Default != nil {
		out["default"] = *in.Default
	}
	switch in.Type {
	case "promptString":
		if in.Password {
			out["password"] = true
		}
	case "pickString":
		out["options"] = nonNilOptions(in.Options)
	case "command":
		out["command"] = in.Command
		var args map[string]string
		if len(in.Args) > 0 && json.Unmarshal(in.Args, &args) == nil && args != nil {
			out["args"] = args
		}
	}
	return json.Marshal(out)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilOptions(o []PickOption) []PickOption {
	if o == nil {
		return []PickOption{}
	}
	return o
}
