// Package sanitize makes untrusted text safe to show in a terminal.
package sanitize

import (
	"strings"
	"unicode/utf8"
)

// Text removes everything from untrusted text that a terminal would act
// on instead of print: ANSI escape sequences (CSI, OSC, DCS, SOS, PM, APC and
// two-byte escapes, in their 7-bit and C1 forms), C0 controls except newline
// and tab, DEL and C1 controls. A lone carriage return becomes a newline (so
// text cannot overwrite itself), so do the Unicode line and paragraph
// separators, and invalid UTF-8 becomes U+FFFD. Printable Unicode text is
// kept as it is.
func Text(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			c := s[i]
			if c >= 0x80 && c <= 0x9f { // a raw 8-bit C1 control
				i = skipC1(s, i+1, rune(c))
				continue
			}
			b.WriteRune(utf8.RuneError)
		case r == 0x1b:
			i = skipEscape(s, i+1)
			continue
		case r == '\n' || r == '\t':
			b.WriteByte(byte(r))
		case r == '\r':
			if i+1 >= len(s) || s[i+1] != '\n' {
				b.WriteByte('\n')
			}
		case r < 0x20 || r == 0x7f:
			// other C0 controls and DEL are dropped
		case r >= 0x80 && r <= 0x9f:
			i = skipC1(s, i+size, r)
			continue
		case r == '\u2028' || r == '\u2029':
			b.WriteByte('\n') // line and paragraph separators end a line
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isClean reports whether s needs no change: valid UTF-8 without controls
// other than newline and tab.
func isClean(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || (r >= 0x80 && r <= 0x9f) || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += size
	}
	return true
}

// skipEscape returns the index just past the escape sequence whose ESC was at
// i-1. An escape that is not a complete sequence loses only its ESC.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch c := s[i]; {
	case c == '[':
		return skipCSI(s, i+1, i+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return skipString(s, i+1, i+1)
	case c >= 0x20 && c <= 0x2f: // nF: intermediates then a final byte
		j := i
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
			return j + 1
		}
		return i
	case c >= 0x30 && c <= 0x7e: // two-byte escape (ESC 7, ESC c, ESC \ ...)
		return i + 1
	}
	return i
}

// skipC1 skips a C1 control r whose encoding ends at i, with the body of the
// sequence it introduces.
func skipC1(s string, i int, r rune) int {
	switch r {
	case 0x9b: // CSI
		return skipCSI(s, i, i)
	case 0x9d, 0x90, 0x98, 0x9e, 0x9f: // OSC, DCS, SOS, PM, APC
		return skipString(s, i, i)
	}
	return i
}

// skipCSI skips parameter, intermediate and final bytes starting at i. If the
// sequence is malformed it stops at the offending byte, which is then read as
// text (and filtered like any other).
func skipCSI(s string, i, fallback int) int {
	j := i
	for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
		j++
	}
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
		return j + 1
	}
	if j > i {
		return j
	}
	return fallback
}

// skipString skips a control string (OSC, DCS, ...) up to and including its
// terminator: BEL, ESC \ or the C1 string terminator. An unterminated string
// loses only its introducer, so a stray ESC ] cannot hide the rest of a text.
func skipString(s string, i, fallback int) int {
	for j := i; j < len(s); {
		r, size := utf8.DecodeRuneInString(s[j:])
		switch {
		case r == 0x07 || r == 0x9c: // BEL or the UTF-8 encoded ST
			return j + size
		case r == utf8.RuneError && size == 1 && s[j] == 0x9c: // raw 8-bit ST
			return j + 1
		case r == 0x1b && j+1 < len(s) && s[j+1] == '\\':
			return j + 2
		}
		j += size
	}
	return fallback
}
