package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// decodeStrict decodes raw into the struct v; a field v does not declare
// is an error. Errors are *fieldError naming the field path (dotted JSON
// names, prefix first) and saying what the field must be.
func decodeStrict(raw json.RawMessage, v any, prefix string) error {
	if len(raw) == 0 || string(raw) == "null" {
		return wrapField(prefix, errors.New("must be a JSON object"))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		// An index written by an unmarshaler ("[2]") follows its field.
		return wrapField(strings.ReplaceAll(join(prefix, te.Field), ".[", "["), describe(te))
	}
	if name, ok := unknownField(err); ok {
		return wrapField(join(prefix, name), fmt.Errorf("unknown field (known: %s)", strings.Join(jsonNames(v), ", ")))
	}
	return wrapField(prefix, fmt.Errorf("must be a JSON object: %w", err))
}

// wrapField returns err located at field ("" leaves it unlocated).
func wrapField(field string, err error) error {
	if field == "" {
		return err
	}
	return &fieldError{field: field, err: err}
}

func join(prefix, field string) string {
	switch {
	case prefix == "":
		return field
	case field == "":
		return prefix
	}
	return prefix + "." + field
}

// unknownField extracts the name from encoding/json's unknown-field error,
// which has no type of its own.
func unknownField(err error) (string, bool) {
	const p = "json: unknown field "
	msg := err.Error()
	if !strings.HasPrefix(msg, p) {
		return "", false
	}
	name, uerr := strconv.Unquote(strings.TrimPrefix(msg, p))
	return name, uerr == nil
}

// jsonNames lists the JSON field names of the struct v points to.
func jsonNames(v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

var (
	stringType   = reflect.TypeFor[string]()
	boolType     = reflect.TypeFor[bool]()
	stringsType  = reflect.TypeFor[[]string]()
	stringMapTyp = reflect.TypeFor[stringMap]()
	secondsType  = reflect.TypeFor[seconds]()
	toolMetaType = reflect.TypeFor[ToolMeta]()
	toolMetasTyp = reflect.TypeFor[toolMetaMap]()
	objectType   = reflect.TypeFor[map[string]any]()
)

// describe says what a field of the type te wanted must be.
func describe(te *json.UnmarshalTypeError) error {
	switch te.Type {
	case stringType:
		return errors.New("must be a string")
	case boolType:
		return errors.New("must be true or false")
	case stringsType:
		return errors.New("must be an array of strings")
	case stringMapTyp:
		return errors.New("must be an object of strings")
	case secondsType:
		return errors.New(te.Value) // the reason, written by seconds.UnmarshalJSON
	case toolMetasTyp:
		return errors.New("must be an object of tool name to metadata")
	case pickOptionsType:
		return errors.New("must be an array of strings or of {label, value} objects")
	case toolMetaType, objectType:
		return errors.New("must be an object")
	}
	if te.Type != nil && te.Type.Kind() == reflect.Struct {
		return errors.New("must be a JSON object")
	}
	return fmt.Errorf("must be %v, not %s", te.Type, te.Value)
}

// jsonKind names the kind of a JSON value for error messages.
func jsonKind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// stringMap is an object of strings (env, headers); numbers and booleans
// are taken as their JSON text.
type stringMap map[string]string

func (m *stringMap) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*m = nil
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return &json.UnmarshalTypeError{Value: jsonKind(b), Type: stringMapTyp}
	}
	out := make(stringMap, len(raw))
	for k, v := range raw {
		switch jsonKind(v) {
		case "string":
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return &json.UnmarshalTypeError{Value: "string", Type: stringType, Field: k}
			}
			out[k] = s
		case "number", "bool":
			out[k] = string(bytes.TrimSpace(v))
		default:
			return &json.UnmarshalTypeError{Value: jsonKind(v), Type: stringType, Field: k}
		}
	}
	*m = out
	return nil
}

// maxSeconds bounds a timeout given in seconds.
const maxSeconds = 86400

// seconds is a timeout: a number of seconds or a duration string (ISO
// 8601 such as "PT30S", or Go's "30s").
type seconds time.Duration

func (s *seconds) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*s = 0
		return nil
	}
	fail := func(reason string) error { return &json.UnmarshalTypeError{Value: reason, Type: secondsType} }
	var secs float64
	if json.Unmarshal(b, &secs) == nil {
		if secs < 0 || secs > maxSeconds {
			return fail(fmt.Sprintf("%v seconds is out of range [0, %d]", secs, maxSeconds))
		}
		*s = seconds(secs * float64(time.Second))
		return nil
	}
	var str string
	if json.Unmarshal(b, &str) != nil {
		return fail("must be seconds or a duration string")
	}
	d, err := ParseDuration(str)
	if err != nil {
		return fail(err.Error())
	}
	*s = seconds(d)
	return nil
}

// toolMetaKinds are the types of the ToolMeta fields the protocol defines;
// other fields are kept as given.
var toolMetaKinds = map[string]string{"auto_apply": "bool", "alias": "string", "tags": "strings", "ret_object_mapper": "object"}

var toolMetaGoTypes = map[string]reflect.Type{"bool": boolType, "string": stringType, "strings": stringsType, "object": objectType}

// UnmarshalJSON reads a tool's metadata, checking the types of the fields
// the protocol defines (null means unset).
func (m *ToolMeta) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*m = nil
		return nil
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return &json.UnmarshalTypeError{Value: jsonKind(b), Type: toolMetaType}
	}
	for k, v := range raw {
		if v == nil {
			continue
		}
		ok := true
		switch toolMetaKinds[k] {
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
			return &json.UnmarshalTypeError{Value: fmt.Sprintf("%T", v), Type: toolMetaGoTypes[toolMetaKinds[k]], Field: k}
		}
	}
	*m = ToolMeta(raw)
	return nil
}

// toolMetaMap is tool_meta: tool name to its metadata.
type toolMetaMap map[string]ToolMeta

func (m *toolMetaMap) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*m = nil
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return &json.UnmarshalTypeError{Value: jsonKind(b), Type: toolMetasTyp}
	}
	out := make(toolMetaMap, len(raw))
	for tool, v := range raw {
		var tm ToolMeta
		if err := tm.UnmarshalJSON(v); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				te.Field = join(tool, te.Field)
			}
			return err
		}
		out[tool] = tm
	}
	*m = out
	return nil
}

// --- the top level ------------------------------------------------------------

type keyValue struct {
	key   string
	value json.RawMessage
}

// orderedObject decodes a JSON object keeping its key order (the order of
// servers decides tool-name clashes); duplicate keys are an error.
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
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the object")
	}
	return out, nil
}
