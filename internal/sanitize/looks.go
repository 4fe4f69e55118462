package sanitize

import (
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"
)

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
