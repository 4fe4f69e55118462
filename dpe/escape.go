package dpe

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// nbsp is the no-break space that carries a plain-text line's indentation
// into Markdown: CommonMark strips leading spaces and tabs (or turns four
// of them into a code block) but keeps leading no-break spaces as text.
const nbsp = '\u00a0'

// EscapeText turns plain text into Markdown that any CommonMark renderer
// shows literally, line for line: every character that could start
// Markdown syntax is escaped (emphasis, code, links, raw HTML, entities,
// headings, quotes, list markers, setext and thematic breaks, tables,
// strikethrough, emoji shortcodes) with a backslash, or a character
// reference where glamour would show the backslash, each line ends in a hard
// break, and leading indentation becomes no-break spaces (tabs expanded to
// the next multiple of 8), so it is neither stripped nor read as a code
// block. Blank lines stay paragraph breaks.
func EscapeText(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i, l := range lines {
		blank := strings.TrimSpace(l) == ""
		if blank {
			if i > 0 {
				b.WriteByte('\n')
			}
			continue
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		el := escapeLine(l)
		b.WriteString(el)
		if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
			// A hard line break: a backslash, or two spaces after a line
			// that ends in an (escaped) backslash, which goldmark would
			// otherwise read as "\\\\" and no break.
			if strings.HasSuffix(el, "\\") {
				b.WriteString("  ")
			} else {
				b.WriteByte('\\')
			}
		}
	}
	return b.String()
}

// EscapeInline escapes one line of plain text for a place inside a
// Markdown construct (a heading, a list item, a table cell): line breaks
// fold into spaces, and the line-start rules apply to its start.
func EscapeInline(s string) string {
	return escapeLine(OneLine(s))
}

// escapeLine escapes one line of plain text (see EscapeText).
func escapeLine(l string) string {
	l = strings.TrimRight(l, " \t")
	var b strings.Builder
	// Leading indentation as no-break spaces.
	col := 0
	i := 0
	for ; i < len(l) && (l[i] == ' ' || l[i] == '\t'); i++ {
		n := 1
		if l[i] == '\t' {
			n = 8 - col%8
		}
		for range n {
			b.WriteRune(nbsp)
		}
		col += n
	}
	rest := l[i:]
	// Line-start syntax: headings, quotes, bullets, setext underlines,
	// ordered-list markers ("1." "2)"), and a one-column table's
	// delimiter row (":-", which '|' escaping does not prevent).
	if rest != "" {
		switch rest[0] {
		case '#', '>', '-', '+', '*':
			b.WriteByte('\\')
			b.WriteByte(rest[0])
			rest = rest[1:]
		case '=', ':':
			writeRef(&b, rest[0])
			rest = rest[1:]
		default:
			d := 0
			for d < len(rest) && d < 9 && rest[d] >= '0' && rest[d] <= '9' {
				d++
			}
			if d > 0 && d < len(rest) && (rest[d] == '.' || rest[d] == ')') {
				b.WriteString(rest[:d])
				b.WriteByte('\\')
				b.WriteByte(rest[d])
				rest = rest[d+1:]
			}
		}
	}
	escapeSpan(&b, rest, true)
	return b.String()
}

// escapeSpan writes s with its inline syntax characters escaped; with
// autolinks, text that would become an extended autolink is kept plain
// (a link's own text never does).
func escapeSpan(b *strings.Builder, s string, autolinks bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\\', '`', '*', '[', ']', '|':
			b.WriteByte('\\')
		case '~':
			writeRef(b, '~')
			i += size
			continue
		case '_':
			// Inside a word (snake_case) an underscore cannot open or close
			// emphasis; elsewhere it can.
			prev, _ := utf8.DecodeLastRuneInString(s[:i])
			next, _ := utf8.DecodeRuneInString(s[i+size:])
			if i == 0 || i+size == len(s) || !isWordRune(prev) || !isWordRune(next) {
				b.WriteByte('\\')
			}
		case '<':
			// Raw HTML starts with <letter, </, <! or <?, and an email
			// autolink's local part may start with a digit or most ASCII
			// punctuation (<0@0>), so only "< " and a final '<' stay bare.
			if next, _ := utf8.DecodeRuneInString(s[i+size:]); i+size < len(s) && !unicode.IsSpace(next) {
				b.WriteByte('\\')
			}
		case '&', ':', '.':
			if r == '&' && isEntity(s[i:]) || r == ':' && (isShortcode(s[i:]) || autolinks && isLinkScheme(s[:i], s[i:])) ||
				r == '.' && autolinks && hasSuffixFold(s[:i], "www") {
				writeRef(b, byte(r))
				i += size
				continue
			}
		case '!':
			// "![" would start an image, but '[' is escaped anyway.
		}
		b.WriteString(s[i : i+size])
		i += size
	}
}

// writeRef writes ASCII punctuation c as a numeric character reference.
// A backslash escapes it for CommonMark, but glamour shows the backslash
// before punctuation no inline parser of goldmark starts on (':', '=',
// '~', '&', …); a reference every renderer shows as the character.
func writeRef(b *strings.Builder, c byte) {
	b.WriteString("&#")
	b.WriteString(strconv.Itoa(int(c)))
	b.WriteByte(';')
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// isEntity reports whether s, which starts with '&', may read as a
// character reference: '&' before a letter or '#'. CommonMark's need a
// ';', but glamour decodes HTML's legacy ones without it ("&copy" → ©).
func isEntity(s string) bool {
	return len(s) > 1 && (s[1] == '#' || s[1] >= 'a' && s[1] <= 'z' || s[1] >= 'A' && s[1] <= 'Z')
}

// isLinkScheme reports whether the ':' that starts rest, after before,
// would make an extended autolink ("http://", "https://", "ftp://"), which
// shows its text raw (escapes and references included) and, for "www.",
// with "http://" added; a reference in place of the ':' (or of the '.'
// after "www") keeps such text plain.
func isLinkScheme(before, rest string) bool {
	return strings.HasPrefix(rest, "://") &&
		(hasSuffixFold(before, "http") || hasSuffixFold(before, "https") || hasSuffixFold(before, "ftp"))
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// isShortcode reports whether s starts with an emoji shortcode (":smile:"),
// which renderers with the emoji extension (glamour's) replace.
func isShortcode(s string) bool {
	k := 1
	for k < len(s) && k < 40 && (s[k] >= 'a' && s[k] <= 'z' || s[k] >= '0' && s[k] <= '9' || s[k] == '_' || s[k] == '+' || s[k] == '-') {
		k++
	}
	// Names start with a letter, so times such as 08:30:00 are left alone.
	return k > 1 && k < len(s) && s[k] == ':' && s[1] >= 'a' && s[1] <= 'z'
}

// CodeSpan writes s as a Markdown code span: the backtick fence is longer
// than any backtick run inside, and a space pads content that starts or
// ends with a backtick (or with a space, which renderers would strip).
func CodeSpan(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") ||
		(strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.TrimSpace(s) != "") {
		s = " " + s + " "
	}
	return fence + s + fence
}

func longestRun(s string, c rune) int {
	longest, run := 0, 0
	for _, r := range s {
		if r == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// EscapeSpan escapes plain text for the middle of a Markdown line: the
// inline syntax characters only (no line-start rules, no line breaks).
func EscapeSpan(s string) string {
	var b strings.Builder
	escapeSpan(&b, lineBreaks.Replace(s), true)
	return b.String()
}

var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")
