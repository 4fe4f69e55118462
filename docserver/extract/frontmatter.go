package extract

import (
	"bytes"
	"strings"
)

// A Markdown file's YAML front matter: the title, summary and keywords it
// sets.

// frontMatter holds the keys of a YAML front matter block the server uses.
type frontMatter struct {
	title, summary string
	keywords       []string
}

// splitFrontMatter separates a leading "---" front matter block from the
// Markdown body and reads its title, summary/description and
// keywords/tags. Only simple "key: value" lines (and "- item" lists under a
// key) are understood; anything else in the block is ignored.
func splitFrontMatter(src []byte) (frontMatter, []byte) {
	var fm frontMatter
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	if !bytes.HasPrefix(src, []byte("---\n")) && !bytes.HasPrefix(src, []byte("---\r\n")) {
		return fm, src
	}
	rest := src[bytes.IndexByte(src, '\n')+1:]
	var lines []string
	body := []byte(nil)
	found := false
	for i := 0; i < 200 && len(rest) > 0; i++ {
		line, tail, _ := bytes.Cut(rest, []byte("\n"))
		l := strings.TrimRight(string(line), "\r")
		rest = tail
		if l == "---" || l == "..." {
			found = true
			body = rest
			break
		}
		lines = append(lines, l)
	}
	if !found {
		return fm, src
	}
	key := ""
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "- ") && key != "" {
			if key == "keywords" || key == "tags" {
				fm.keywords = append(fm.keywords, splitKeywords(strings.TrimSpace(l)[2:])...)
			}
			continue
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok || strings.HasPrefix(l, " ") {
			continue
		}
		key = strings.ToLower(strings.TrimSpace(k))
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		switch key {
		case "title":
			fm.title = clean(v)
		case "summary", "description":
			if fm.summary == "" {
				fm.summary = clean(v)
			}
		case "keywords", "tags":
			fm.keywords = append(fm.keywords, splitKeywords(strings.Trim(v, "[]"))...)
		}
	}
	return fm, body
}
