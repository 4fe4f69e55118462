package dpe

import (
	"strings"
)

// The Markdown this package renders is written for glamour, the terminal
// renderer the browser shows it with: where glamour would show the
// backslash of an escape (before ':', '~', '&', '=', '.'), the character is
// written as a numeric character reference instead. Every renderer shows
// those as the character, but a person reading the file (a saved page, an
// agent's resources/read) meets "https&#58;//www&#46;gnu&#46;org". Portable
// rewrites them for readers and other renderers.

// portableRefs are the references writeRef writes and what stands for
// them outside glamour: the backslash escape CommonMark defines.
var portableRefs = map[string]string{
	"&#58;":  `\:`,
	"&#46;":  `.`, // only ever after "www", to keep it from linking
	"&#126;": `\~`,
	"&#38;":  `\&`,
	"&#61;":  `\=`,
}

// Portable rewrites Markdown rendered by this package (for glamour's
// screen) into the form a person reads in a file and any CommonMark
// renderer shows the same: its character references become backslash
// escapes, and the ':' and '.' of text that would become an autolink
// ("https://…", "www.…") become the characters again (a renderer that
// links them does no harm off the screen). Code blocks and code spans are
// left as they are.
func Portable(md string) string {
	if !strings.Contains(md, "&#") {
		return md
	}
	var b strings.Builder
	b.Grow(len(md))
	fence := "" // the open code fence, "" outside one
	for line := range strings.Lines(md) {
		body := strings.TrimLeft(line, " >\u00a0")
		if fence != "" {
			if f := fenceOf(body); f != "" && f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(body[len(f):]) == "" {
				fence = ""
			}
			b.WriteString(line)
			continue
		}
		if f := fenceOf(body); f != "" {
			fence = f
			b.WriteString(line)
			continue
		}
		portableLine(&b, line)
	}
	return b.String()
}

// fenceOf returns the code fence (3 or more backticks or tildes) that
// starts s, or "".
func fenceOf(s string) string {
	if len(s) < 3 || s[0] != '`' && s[0] != '~' {
		return ""
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return s[:n]
}

// portableLine writes one line outside code blocks, its code spans as
// they are and its references rewritten.
func portableLine(b *strings.Builder, line string) {
	for line != "" {
		i := strings.IndexAny(line, "`&")
		if i < 0 {
			b.WriteString(line)
			return
		}
		b.WriteString(line[:i])
		line = line[i:]
		if line[0] == '`' {
			n := 0
			for n < len(line) && line[n] == '`' {
				n++
			}
			if end := closingRun(line[n:], n); end >= 0 {
				b.WriteString(line[:n+end+n]) // the code span, whole
				line = line[n+end+n:]
			} else {
				b.WriteString(line[:n]) // no closing run: literal backticks
				line = line[n:]
			}
			continue
		}
		ref, repl := "", ""
		for r, p := range portableRefs {
			if strings.HasPrefix(line, r) {
				ref, repl = r, p
				break
			}
		}
		switch {
		case ref == "":
			b.WriteByte('&')
			line = line[1:]
			continue
		case ref == "&#58;" && strings.HasPrefix(line[len(ref):], "//"):
			repl = ":" // "https://": an autolink off the screen is fine
		}
		b.WriteString(repl)
		line = line[len(ref):]
	}
}

// closingRun returns the offset in s of the first run of exactly n
// backticks, or -1.
func closingRun(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i == n {
			return i
		}
		i = j
	}
	return -1
}
