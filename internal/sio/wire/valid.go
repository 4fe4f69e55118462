package wire

import "encoding/json"

// Validation of incoming JSON in one pass. encoding/json's Valid runs a
// state machine through a function call per byte, which was the largest
// cost of decoding a packet on the Server (and the array was then walked
// again to split it); splitValidArray checks and splits an event's array
// in one walk. It accepts exactly what json.Valid accepts (a fuzz test
// compares them): strings may hold any byte but '"', '\\' and control
// characters (invalid UTF-8 included), and nesting stops at the same
// depth.

// maxDepth is encoding/json's nesting limit, which json.Valid enforces.
const maxDepth = 10000

// splitValidArray returns the elements of b, a JSON array with optional
// whitespace around it, as sub-slices of b; ok is false unless b is valid
// JSON.
func splitValidArray(b []byte) (elems []json.RawMessage, ok bool) {
	return AppendValidArray(nil, b)
}

// AppendValidArray is splitValidArray appending to elems.
func AppendValidArray(elems []json.RawMessage, b []byte) ([]json.RawMessage, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return elems, skipSpace(b, i+1) == len(b)
	}
	for {
		end, ok := scanValue(b, i, 1) // inside the array
		if !ok {
			return nil, false
		}
		elems = append(elems, json.RawMessage(b[i:end:end]))
		i = skipSpace(b, end)
		if i >= len(b) {
			return nil, false
		}
		switch b[i] {
		case ']':
			return elems, skipSpace(b, i+1) == len(b)
		case ',':
			i = skipSpace(b, i+1)
		default:
			return nil, false
		}
	}
}

// scanValue checks the JSON value starting at b[i] (no whitespace before
// it), nested in depth containers, and returns the index just past it.
func scanValue(b []byte, i, depth int) (int, bool) {
	var small [64]byte
	stack := small[:0] // the open containers, '{' or '['
	for {
		// A value starts at i.
		if i >= len(b) {
			return 0, false
		}
		ok := true
		switch c := b[i]; c {
		case '{', '[':
			if depth+len(stack) >= maxDepth {
				return 0, false
			}
			i = skipSpace(b, i+1)
			if i < len(b) && (c == '{' && b[i] == '}' || c == '[' && b[i] == ']') {
				i++
				break // an empty container is a whole value
			}
			stack = append(stack, c)
			if c == '{' {
				if i, ok = scanKey(b, i); !ok {
					return 0, false
				}
			}
			continue // its first value
		case '"':
			i, ok = scanString(b, i)
		case 't':
			i, ok = scanLiteral(b, i, "true")
		case 'f':
			i, ok = scanLiteral(b, i, "false")
		case 'n':
			i, ok = scanLiteral(b, i, "null")
		default:
			i, ok = scanNumber(b, i)
		}
		if !ok {
			return 0, false
		}
		// A value ended at i: close containers until one goes on.
		for {
			if len(stack) == 0 {
				return i, true
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return 0, false
			}
			top := stack[len(stack)-1]
			if b[i] == ',' {
				i = skipSpace(b, i+1)
				if top == '{' {
					if i, ok = scanKey(b, i); !ok {
						return 0, false
					}
				}
				break
			}
			if top == '{' && b[i] == '}' || top == '[' && b[i] == ']' {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			return 0, false
		}
	}
}

// scanKey checks an object key and its colon at b[i]; it returns the
// index of the member's value.
func scanKey(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	i, ok := scanString(b, i)
	if !ok {
		return 0, false
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return 0, false
	}
	return skipSpace(b, i+1), true
}

// scanString checks the string starting at b[i] (a '"').
func scanString(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return 0, false
		case c == '\\':
			i++
			if i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return 0, false
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return 0, false
					}
				}
				i += 4
			default:
				return 0, false
			}
		}
	}
	return 0, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// scanLiteral checks that lit starts at b[i].
func scanLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// scanNumber checks the number starting at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return 0, false
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

// digits returns the index of the first non-digit at or after i.
func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}
