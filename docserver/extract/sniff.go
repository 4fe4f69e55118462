package extract

import (
	"net/http"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Files whose name says nothing of their format (GPL-3, Apache-2.0,
// INSTALL.unix... anything without a known extension) are recognised by
// their content: a file that reads as UTF-8 text is served as plain text;
// anything else (an executable, an image without an extension) is not
// served at all.

// SniffBytes is how much of a file content sniffing reads.
const SniffBytes = 8 << 10

// Sniffable reports whether a file's kind may be found from its content:
// its name has no extension, or only a version number for one
// ("Apache-2.0", "LGPL-2.1"), and names no known kind.
func Sniffable(name string) bool {
	if k, _ := KindOf(name); k != KindUnknown {
		return false
	}
	ext := strings.TrimPrefix(path.Ext(path.Base(name)), ".")
	return strings.Trim(ext, "0123456789") == ""
}

// LooksLikeText reports whether the first bytes of a file are text a
// reader can be shown literally: valid UTF-8 (a rune cut at the end of
// head aside), no NUL or other binary control bytes, what
// net/http.DetectContentType calls text, and at least 95% of its
// characters printable or white space. An empty head is not text.
func LooksLikeText(head []byte) bool {
	if len(head) == 0 {
		return false
	}
	if !strings.HasPrefix(http.DetectContentType(head), "text/") {
		return false
	}
	bad, total := 0, 0
	for i := 0; i < len(head); {
		r, n := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && n <= 1 {
			if !utf8.FullRune(head[i:]) {
				break // a rune cut at the end of what was read
			}
			return false
		}
		i += n
		total++
		switch {
		case r == 0:
			return false
		case r == '\n' || r == '\r' || r == '\t' || r == '\f' || r == '\v' || r == '\u00a0' || r == '\ufeff':
		case !unicode.IsPrint(r) && !unicode.IsSpace(r) && !unicode.Is(unicode.Cf, r):
			bad++
		}
	}
	return total > 0 && bad*20 <= total
}

// KindOfContent is the kind of a file from its name or, when its name
// does not say and it is sniffable, from head (its first SniffBytes
// bytes, or all of it when shorter): KindText for text, KindUnknown for
// anything else.
func KindOfContent(name string, head []byte) (Kind, string) {
	if k, lang := KindOf(name); k != KindUnknown || !Sniffable(name) {
		return k, lang
	}
	if LooksLikeText(head[:min(len(head), SniffBytes)]) {
		return KindText, ""
	}
	return KindUnknown, ""
}
