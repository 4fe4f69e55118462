package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// placeholder matches ${input:ID} and ${env:NAME}.
var placeholder = regexp.MustCompile(`\$\{(input|env):([^}]*)\}`)

// EnvName returns the environment variable that supplies input id, for a
// server (bundleID) or for every server (bundleID ""): A2C_SMCP_ followed by
// the id and the bundle_id with [^A-Za-z0-9_] replaced by '_'.
func EnvName(id, bundleID string) string {
	name := "A2C_SMCP_" + envSegment(id)
	if bundleID != "" {
		name += "_" + envSegment(bundleID)
	}
	return name
}

func envSegment(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')) {
			b[i] = '_'
		}
	}
	return string(b)
}

// resolveParams replaces ${input:ID} (from A2C_SMCP_<id>_<bundle>, then
// A2C_SMCP_<id>, then the input's default) and ${env:NAME} in every string
// parameter. Interactive prompts and command inputs are not run: an input
// without an environment value or default is an error naming the variable.
func resolveParams(p Params, bundleID string, inputs []Input, env func(string) (string, bool)) (Params, error) {
	var firstErr error
	sub := func(field, s string) string {
		if !strings.Contains(s, "${") {
			return s
		}
		return placeholder.ReplaceAllStringFunc(s, func(m string) string {
			parts := placeholder.FindStringSubmatch(m)
			kind, id := parts[1], parts[2]
			if kind == "env" {
				if v, ok := env(id); ok {
					return v
				}
				if firstErr == nil {
					firstErr = ferr(field, "environment variable %s is not set", id)
				}
				return ""
			}
			v, err := inputValue(id, bundleID, inputs, env)
			if err != nil && firstErr == nil {
				firstErr = &fieldError{field: field, err: err}
			}
			return v
		})
	}
	out := p
	out.Command = sub("server_parameters.command", p.Command)
	out.Cwd = sub("server_parameters.cwd", p.Cwd)
	out.URL = sub("server_parameters.url", p.URL)
	if p.Args != nil {
		out.Args = make([]string, len(p.Args))
		for i, a := range p.Args {
			out.Args[i] = sub(fmt.Sprintf("server_parameters.args[%d]", i), a)
		}
	}
	if p.Env != nil {
		out.Env = maps.Clone(p.Env)
		for k, v := range p.Env {
			out.Env[k] = sub("server_parameters.env."+k, v)
		}
	}
	if p.Headers != nil {
		out.Headers = maps.Clone(p.Headers)
		for k, v := range p.Headers {
			out.Headers[k] = sub("server_parameters.headers."+k, v)
		}
	}
	return out, firstErr
}

func inputValue(id, bundleID string, inputs []Input, env func(string) (string, bool)) (string, error) {
	if v, ok := env(EnvName(id, bundleID)); ok {
		return v, nil
	}
	if v, ok := env(EnvName(id, "")); ok {
		return v, nil
	}
	for _, in := range inputs {
		if in.ID != id {
			continue
		}
		if in.Default != nil {
			return *in.Default, nil
		}
		return "", fmt.Errorf("input %q has no value: set %s (interactive prompts and command inputs are not supported)", id, EnvName(id, ""))
	}
	return "", fmt.Errorf("input %q is not declared in inputs and %s is not set", id, EnvName(id, ""))
}

// ParseDuration parses an ISO 8601 duration (PnDTnHnMnS, e.g. "PT30S") or a
// Go duration string ("30s").
func ParseDuration(s string) (time.Duration, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return 0, fmt.Errorf("duration %q is negative", s)
		}
		return d, nil
	}
	u := strings.ToUpper(strings.TrimSpace(s))
	if !strings.HasPrefix(u, "P") || len(u) < 3 {
		return 0, fmt.Errorf("duration %q: want ISO 8601 (e.g. PT30S) or Go form (e.g. 30s)", s)
	}
	var total float64
	inTime := false
	num := ""
	units := map[byte]float64{'D': 86400, 'H': 3600, 'S': 1}
	for i := 1; i < len(u); i++ {
		c := u[i]
		switch {
		case c == 'T':
			if inTime || num != "" {
				return 0, fmt.Errorf("duration %q: misplaced T", s)
			}
			inTime = true
		case (c >= '0' && c <= '9') || c == '.':
			num += string(c)
		default:
			if num == "" {
				return 0, fmt.Errorf("duration %q: unit %c without a number", s, c)
			}
			n, err := strconv.ParseFloat(num, 64)
			if err != nil {
				return 0, fmt.Errorf("duration %q: %w", s, err)
			}
			num = ""
			mult, ok := units[c]
			if c == 'M' {
				if !inTime {
					return 0, fmt.Errorf("duration %q: months are not supported", s)
				}
				mult, ok = 60, true
			}
			if !ok || (c == 'D' && inTime) || (c != 'D' && !inTime) {
				return 0, fmt.Errorf("duration %q: unexpected %c", s, c)
			}
			total += n * mult
		}
	}
	if num != "" {
		return 0, fmt.Errorf("duration %q: number without a unit", s)
	}
	if total > 86400*365 {
		return 0, errors.New("duration is out of range")
	}
	return time.Duration(total * float64(time.Second)), nil
}

// inputEntry is one entry of the inputs array as written.
type inputEntry struct {
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	Description string          `json:"description"`
	Default     *string         `json:"default"`
	Password    *bool           `json:"password"`
	Options     pickOptions     `json:"options"`
	Command     string          `json:"command"`
	Args        json.RawMessage `json:"args"`
}

// pickOptions are the options of a pickString input: strings (the older
// form) or {label, value} objects (protocol 0.3.2 and later).
type pickOptions []PickOption

var pickOptionsType = reflect.TypeFor[pickOptions]()

func (o *pickOptions) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*o = nil
		return nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return &json.UnmarshalTypeError{Value: jsonKind(b), Type: pickOptionsType}
	}
	out := make(pickOptions, 0, len(raw))
	for i, r := range raw {
		var s string
		if json.Unmarshal(r, &s) == nil {
			out = append(out, PickOption{Label: s, Value: s})
			continue
		}
		var po struct {
			Label *string `json:"label"`
			Value *string `json:"value"`
		}
		if json.Unmarshal(r, &po) != nil || po.Value == nil {
			return &json.UnmarshalTypeError{Value: jsonKind(r), Type: pickOptionsType, Field: fmt.Sprintf("[%d]", i)}
		}
		label := *po.Value
		if po.Label != nil {
			label = *po.Label
		}
		out = append(out, PickOption{Label: label, Value: *po.Value})
	}
	*o = out
	return nil
}

// parseInputs parses the inputs array; a bad input is reported and left
// out.
func parseInputs(raw json.RawMessage, problems []Problem) ([]Input, []Problem) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, append(problems, Problem{Field: "inputs", Err: errors.New("must be an array")})
	}
	var out []Input
	for i, r := range list {
		field := fmt.Sprintf("inputs[%d]", i)
		var e inputEntry
		if err := decodeStrict(r, &e, field); err != nil {
			problems = append(problems, asProblem("", err))
			continue
		}
		if e.ID == "" {
			problems = append(problems, Problem{Field: field + ".id", Err: errors.New("missing")})
			continue
		}
		switch e.Type {
		case "promptString", "pickString", "command":
		default:
			problems = append(problems, Problem{Field: field + ".type", Err: fmt.Errorf("unknown input type %q", e.Type)})
			continue
		}
		out = append(out, Input{ID: e.ID, Type: e.Type, Description: e.Description, Default: e.Default,
			Password: e.Password != nil && *e.Password, Options: e.Options, Command: e.Command, Args: e.Args, Raw: r})
	}
	return out, problems
}
