package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Scanning of JSON already known to be valid (splitValidArray checked
// it), without decoding it: the Server reads the few top-level fields it
// routes by, so a payload is walked once or twice instead of being
// decoded into a tree.

// errNotValid is returned for input the scanner cannot walk (it is only
// given valid JSON, so this means a bug or a bad caller).
var errNotValid = errors.New("not valid JSON")

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errNotValid
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				end, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
		}
		return 0, errNotValid
	}
	// A number, true, false or null: up to the next delimiter.
	for i < len(b) {
		switch b[i] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return i, nil
		}
		i++
	}
	return i, nil
}

// skipString returns the index just past the string starting at b[i].
func skipString(b []byte, i int) (int, error) {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, nil
		}
	}
	return 0, errNotValid
}

// ObjectFields calls fn with the key (still quoted) and raw value of each
// top-level member of a valid JSON object; fn returns false to stop.
func ObjectFields(raw []byte, fn func(key, value []byte) bool) error {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return errNotValid
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return nil
	}
	for i < len(raw) {
		kend, err := skipString(raw, i)
		if err != nil {
			return err
		}
		key := raw[i:kend]
		i = skipSpace(raw, kend)
		if i >= len(raw) || raw[i] != ':' {
			return errNotValid
		}
		i = skipSpace(raw, i+1)
		vend, err := skipValue(raw, i)
		if err != nil {
			return err
		}
		if !fn(key, raw[i:vend]) {
			return nil
		}
		i = skipSpace(raw, vend)
		if i >= len(raw) {
			break
		}
		if raw[i] == '}' {
			return nil
		}
		i = skipSpace(raw, i+1) // past ','
	}
	return errNotValid
}

// plainKey returns the text of a member's key when it is ASCII without
// escapes (the common case: no decoding needed), else nil.
func plainKey(key []byte) []byte {
	k := key[1 : len(key)-1]
	for _, c := range k {
		if c == '\\' || c >= 0x80 {
			return nil
		}
	}
	return k
}

// KeyIs reports whether a member's key is name, allocating nothing unless
// the key holds escapes or non-ASCII text.
func KeyIs(key []byte, name string) bool {
	if k := plainKey(key); k != nil {
		return string(k) == name
	}
	return keyName(key) == name
}

// keyMatches reports whether a member's key is name as encoding/json
// matches it (ignoring case: fold) and exactly (exact), allocating nothing
// for an ASCII key without escapes (for which ASCII case folding is
// Unicode's).
func keyMatches(key []byte, name string) (fold, exact bool) {
	k := plainKey(key)
	if k == nil {
		n := keyName(key)
		return strings.EqualFold(n, name), n == name
	}
	if string(k) == name {
		return true, true
	}
	if len(k) != len(name) {
		return false, false
	}
	for i, c := range k {
		d := name[i]
		if c != d && lower(c) != lower(d) {
			return false, false
		}
	}
	return true, false
}

// lower folds an ASCII letter to lower case.
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// keyName unquotes a member's key.
func keyName(key []byte) string {
	for _, c := range key {
		if c == '\\' {
			var s string
			if json.Unmarshal(key, &s) == nil {
				return s
			}
			break
		}
	}
	return string(key[1 : len(key)-1])
}

// plainJSONString returns the text of a JSON string of printable ASCII
// without escapes, the common case, which needs no decoding.
func plainJSONString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	for _, c := range v[1 : len(v)-1] {
		if c == '\\' || c == '"' || c < 0x20 || c >= 0x80 {
			return "", false // escapes, and non-ASCII (encoding/json fixes bad UTF-8)
		}
	}
	return string(v[1 : len(v)-1]), true
}

// Field is one top-level field DecodeFields reads: its JSON name, where to
// decode it (a *string, a **float64 or a *json.RawMessage), and (set by
// DecodeFields) how many members matched the name ignoring case, which is
// how encoding/json would match them.
type Field struct {
	Name string
	Dst  any
	Seen int
}

// DecodeFields decodes the named top-level fields of a valid JSON object
// (exact name; the last of duplicates wins) and leaves every other one
// unread. A field of the wrong type is an error naming it. The
// destinations are not retained (they may live on the caller's stack).
func DecodeFields(raw []byte, fields []Field) error {
	var ferr error
	err := ObjectFields(raw, func(key, value []byte) bool {
		for i := range fields {
			f := &fields[i]
			fold, exact := keyMatches(key, f.Name)
			if !fold {
				continue
			}
			f.Seen++
			if !exact {
				continue
			}
			if err := decodeField(value, f.Dst); err != nil {
				ferr = fieldError(strings.Clone(f.Name), err)
				return false
			}
		}
		return true
	})
	if ferr != nil {
		return ferr
	}
	return err
}

// fieldError names the field whose value did not decode.
func fieldError(name string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("field %q must be %s, got %s", name, te.Type.Kind(), te.Value)
	}
	return fmt.Errorf("field %q: %w", name, err)
}

// decodeField decodes value into dst. Only a temporary goes to
// encoding/json, so that dst does not escape.
func decodeField(value []byte, dst any) error {
	switch d := dst.(type) {
	case *string:
		if str, plain := plainJSONString(value); plain {
			*d = str
			return nil
		}
		var v string
		err := json.Unmarshal(value, &v)
		if err == nil {
			*d = v
		}
		return err
	case **float64:
		var v *float64
		err := json.Unmarshal(value, &v)
		if err == nil {
			*d = v
		}
		return err
	case *json.RawMessage:
		if !json.Valid(value) {
			return ErrBadPayload
		}
		*d = append(json.RawMessage(nil), value...)
		return nil
	}
	return errDestination
}

// errDestination: a Field's Dst of a type DecodeFields does not decode.
var errDestination = errors.New("wire: DecodeFields cannot decode into that destination")

// SetField returns a copy of the valid JSON object raw whose member name
// is value (encoded as JSON) and which holds no other member of that name,
// however its case or escapes: the Server stamps a request's sender this
// way, so a receiver that matches keys loosely (encoding/json) or takes
// the last duplicate still reads the stamped value.
func SetField(raw []byte, name string, value any) (json.RawMessage, error) {
	v, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(raw)+len(name)+len(v)+4)
	out = append(out, '{')
	out = strconv.AppendQuote(out, name)
	out = append(out, ':')
	out = append(out, v...)
	err = ObjectFields(raw, func(key, val []byte) bool {
		if fold, _ := keyMatches(key, name); fold {
			return true
		}
		out = append(out, ',')
		out = append(out, key...)
		out = append(out, ':')
		out = append(out, val...)
		return true
	})
	if err != nil {
		return nil, err
	}
	return append(out, '}'), nil
}
