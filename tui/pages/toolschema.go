package pages

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/smcp-browse/smcp-browse/tui/common"
)

// toolSchema is the part of a tool's JSON Schema (params_schema) the call
// form reads: enough for a skeleton of the required arguments and a line
// per parameter.
type toolSchema struct {
	Type        json.RawMessage            `json:"type"` // "string" or ["string", "null"]
	Description string                     `json:"description"`
	Properties  map[string]json.RawMessage `json:"properties"`
	Required    []string                   `json:"required"`
	Default     json.RawMessage            `json:"default"`
	Const       json.RawMessage            `json:"const"`
	Enum        []json.RawMessage          `json:"enum"`
	AnyOf       []json.RawMessage          `json:"anyOf"`
	OneOf       []json.RawMessage          `json:"oneOf"`
}

// skeletonDepth bounds how deep required objects inside required objects
// are filled in (a recursive schema must not recurse forever).
const skeletonDepth = 4

func parseSchema(raw json.RawMessage) toolSchema {
	var s toolSchema
	_ = json.Unmarshal(raw, &s) // a schema we cannot read gives no hints
	return s
}

// typeName is the schema's first type other than null ("" when it names
// none): from type, else from the first alternative of anyOf/oneOf that
// has one.
func (s toolSchema) typeName() string {
	var one string
	var many []string
	if json.Unmarshal(s.Type, &one) == nil && one != "" {
		return one
	}
	if json.Unmarshal(s.Type, &many) == nil {
		for _, t := range many {
			if t != "null" {
				return t
			}
		}
	}
	for _, alt := range slices.Concat(s.AnyOf, s.OneOf) {
		if t := parseSchema(alt).typeName(); t != "" && t != "null" {
			return t
		}
	}
	if len(s.Properties) > 0 {
		return "object"
	}
	return ""
}

// argsSkeleton is the JSON arguments the form starts with: an object of
// the schema's required properties, in the order the schema requires
// them, each with its default (or const, or first enum value), else a
// placeholder of its type ("" 0 false [] {} null), indented two spaces.
func argsSkeleton(schema json.RawMessage) string {
	raw := skeletonValue(parseSchema(schema), 0)
	if !bytes.HasPrefix(raw, []byte("{")) {
		raw = []byte("{}")
	}
	var out bytes.Buffer
	if json.Indent(&out, raw, "", "  ") != nil {
		return "{}"
	}
	return out.String()
}

// skeletonValue is the placeholder JSON of a value of schema s.
func skeletonValue(s toolSchema, depth int) []byte {
	for _, v := range []json.RawMessage{s.Default, s.Const} {
		if len(v) > 0 && json.Valid(v) {
			return v
		}
	}
	if len(s.Enum) > 0 && json.Valid(s.Enum[0]) {
		return s.Enum[0]
	}
	switch s.typeName() {
	case "string":
		return []byte(`""`)
	case "number", "integer":
		return []byte("0")
	case "boolean":
		return []byte("false")
	case "array":
		return []byte("[]")
	case "object":
		if depth >= skeletonDepth {
			return []byte("{}")
		}
		var b bytes.Buffer
		b.WriteByte('{')
		for i, name := range s.Required {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(name)
			b.Write(k)
			b.WriteByte(':')
			b.Write(skeletonValue(parseSchema(s.Properties[name]), depth+1))
		}
		b.WriteByte('}')
		return b.Bytes()
	}
	return []byte("null")
}

// toolParam is one parameter of a tool as the form lists it.
type toolParam struct {
	name, typ, description string
	required               bool
}

// toolParams lists the schema's top-level properties: the required ones
// in the order the schema requires them, then the others by name.
func toolParams(schema json.RawMessage) []toolParam {
	s := parseSchema(schema)
	var out []toolParam
	seen := map[string]bool{}
	for _, name := range s.Required {
		if seen[name] {
			continue
		}
		seen[name] = true
		p := parseSchema(s.Properties[name])
		out = append(out, toolParam{name: name, typ: p.typeName(), description: p.Description, required: true})
	}
	var rest []string
	for name := range s.Properties {
		if !seen[name] {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	for _, name := range rest {
		p := parseSchema(s.Properties[name])
		out = append(out, toolParam{name: name, typ: p.typeName(), description: p.Description})
	}
	return out
}

// label is the parameter's line: "path (string, required) — the folder".
func (p toolParam) label() string {
	var what []string
	if p.typ != "" {
		what = append(what, p.typ)
	}
	if p.required {
		what = append(what, "required")
	}
	l := p.name
	if len(what) > 0 {
		l += " (" + strings.Join(what, ", ") + ")"
	}
	if p.description != "" {
		l += " — " + p.description
	}
	return l
}

// parseArgs reads the form's text as the call's arguments: a JSON object
// (blank is {}). The error says what is wrong, for the form's error line.
func parseArgs(text string) (map[string]any, error) {
	if strings.TrimSpace(text) == "" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, errors.New("the arguments are not valid JSON" + jsonErrorText(err, text))
	}
	if dec.More() {
		return nil, errors.New("the arguments hold more than one JSON value")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("the arguments must be a JSON object {…}")
	}
	return m, nil
}

// jsonErrorText says where JSON breaks and why: " at line 2, column 5:
// invalid character …" (": it ends too soon" when it is cut short).
func jsonErrorText(err error, text string) string {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return ": it ends too soon (a } or a \" missing?)"
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return ": " + err.Error()
	}
	before := text[:min(max(int(se.Offset)-1, 0), len(text))]
	line := strings.Count(before, "\n") + 1
	col := len([]rune(before[strings.LastIndex(before, "\n")+1:])) + 1
	return " at line " + common.Itoa(line) + ", column " + common.Itoa(col) + ": " + se.Error()
}
