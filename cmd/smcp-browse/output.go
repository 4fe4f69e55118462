package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"
)

// writeRawJSON writes a JSON answer indented, keeping every field as
// received, with a final newline; C1 controls are escaped (escapeC1).
func writeRawJSON(w io.Writer, raw json.RawMessage) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return fmt.Errorf("the answer is not JSON: %w", err)
	}
	buf.WriteByte('\n')
	_, err := w.Write(escapeC1(buf.Bytes()))
	return err
}

// writeJSON writes v indented, with a final newline; C1 controls are
// escaped (escapeC1).
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeC1(buf.Bytes()))
	return err
}

// escapeC1 rewrites the C1 controls U+0080-U+009F inside the strings of a
// JSON text as \u0080-\u009f, and bytes that are not UTF-8 as \ufffd.
// encoding/json escapes C0 controls but passes C1 ones through, and a
// terminal reads U+009B as CSI: text from a remote computer must not
// reach the screen as controls. The JSON value is unchanged. Outside
// strings valid JSON has only ASCII, so every non-ASCII byte is in one.
func escapeC1(b []byte) []byte {
	i := bytes.IndexFunc(b, func(r rune) bool { return (r >= 0x80 && r <= 0x9f) || r == utf8.RuneError })
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for len(b[i:]) > 0 {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			out = append(out, `\ufffd`...)
		case r >= 0x80 && r <= 0x9f:
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}
