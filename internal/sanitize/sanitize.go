// Package sanitize makes untrusted text safe to show in a terminal.
package sanitize

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text removes everything from untrusted text that a terminal would act
// on instead of print: ANSI escape sequences (CSI, OSC, DCS, SOS, PM, APC and
// two-byte escapes, in their 7-bit and raw 8-bit forms), C0 controls except
// newline and tab, and DEL. A C1 control written as a character (U+0080–
// U+009F in UTF-8) is shown as ⟨U+XXXX⟩, like the invisible characters
// Display shows, and the text after it is kept. A lone carriage return
// becomes a newline (so text cannot overwrite itself), so do the Unicode
// line and paragraph separators, and invalid UTF-8 becomes U+FFFD.
// Printable Unicode text is kept as it is.
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
			// A C1 control written as text (UTF-8): shown, never acted on,
			// and nothing after it lost (it is mojibake far more often than
			// a control sequence).
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
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

// Display is Text for text shown to a person (a page in the browser, cat's
// output): it also makes visible, as ⟨U+XXXX⟩, the invisible characters
// that change what a reader sees without showing themselves: bidirectional
// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069, which
// can reorder what a terminal prints: "Trojan Source"), and the zero-width
// space, word joiner and a byte order mark inside text. Joiners and marks
// that scripts and emoji need (ZWJ, ZWNJ, LRM, RLM) are kept.
func Display(s string) string {
	return mark(Text(s), bodyInvisible)
}

// Title is Display for one-line names (titles, file names, computer
// names) that a person compares by eye: every invisible format character is
// made visible, joiners and direction marks too (a ZWJ between two emoji
// excepted), so that two names that look the same are the same.
func Title(s string) string {
	return mark(Text(s), titleInvisible)
}

// bodyInvisible reports the characters Display makes visible.
func bodyInvisible(r rune) bool {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200B, r == 0x2060, r == 0xFEFF:
		return true
	}
	return false
}

// titleInvisible reports the characters Title makes visible: those of
// Display and every other format character (Unicode category Cf) and
// invisible separator.
func titleInvisible(r rune) bool {
	return bodyInvisible(r) || unicode.Is(unicode.Cf, r) || r == 0x180E || r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0
}

// mark replaces the runes invisible reports by ⟨U+XXXX⟩; a ZWJ between two
// pictographs (an emoji sequence) stays.
func mark(s string, invisible func(rune) bool) string {
	if isPlain(s) {
		return s
	}
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s))
	changed := false
	for i, r := range rs {
		if invisible(r) && !(r == 0x200D && i > 0 && i+1 < len(rs) && pictograph(rs[i-1]) && pictograph(rs[i+1])) {
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
			changed = true
			continue
		}
		b.WriteRune(r)
	}
	if !changed {
		return s
	}
	return b.String()
}

// isPlain reports whether s has no rune that mark could change (ASCII
// only, the common case).
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// pictograph reports whether r is an emoji-like symbol (or a skin tone or
// variation selector that follows one).
func pictograph(r rune) bool {
	return r >= 0x1F000 || (r >= 0x2600 && r <= 0x27BF) || (r >= 0xFE00 && r <= 0xFE0F) || (r >= 0x2300 && r <= 0x23FF)
}

// Clip shortens s to at most max bytes, cut on a rune boundary and marked
// with "…", so an error can repeat untrusted input without growing with it.
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
