package docserver

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
	"github.com/smcp-browse/smcp-browse/internal/sanitize"
)

// A scan decides from a text file's raw bytes, at grep's speed, whether
// its extracted text may hold a word query's terms, and parses only the
// files that may. The test is a necessary condition: every word of the
// extracted text (and of the title, which may come from the file's path)
// is a substring of one of the file's search forms below, lower-cased and
// NFKC-normalised as the index's words are:
//
//   - the raw bytes, which hold every word that has no markup inside it;
//   - for markup (Markdown, HTML) and for text with control characters,
//     the bytes with the markup taken out (entities decoded, tags and
//     inline marks removed, control characters as the extractor shows
//     them), which hold the words markup splits ("foo**bar**",
//     "caf&eacute;");
//   - the file's path (titles come from file and folder names);
//   - the words the extractor adds to markup (see synthesized).
//
// A file that is not UTF-8, or may be UTF-16, is always parsed: the
// extractor decides what its text is.

// prefilterKind reports the formats whose raw bytes are their text, give or
// take markup.
func prefilterKind(k extract.Kind) bool {
	switch k {
	case extract.KindText, extract.KindCode, extract.KindMarkdown, extract.KindHTML, extract.KindCSV, extract.KindTSV:
		return true
	}
	return false
}

// htmlTag matches a tag or comment of Markdown's inline HTML or of HTML:
// a letter, '/', '!' or '?' after the '<', on one line, so that a bare
// '<' of the text ("<-chan", "a < b") does not take the text up to the
// next '>' with it.
var htmlTag = regexp.MustCompile(`<[/!?]?[A-Za-z][^<>\n]{0,500}>`)

// linkTarget matches the destination of a Markdown inline link, which
// may sit inside a word ("[go-fuzz](https://…)ing").
var linkTarget = regexp.MustCompile(`\]\([^()\s]*(?:\s+"[^"\n]*")?\)`)

// inlineMarks are Markdown's inline marks, which may split a word
// ("**bold**ly", "snake\_case", "[link]text", the alt texts of images side
// by side: "![npm version](…)![npm bundle size](…)"), and the space a code span
// drops next to its backticks (after a stray backtick, "using an
// 'ExperimentCache'" with backticks reads "using anExperimentCache").
var inlineMarks = strings.NewReplacer("` ", "", " `", "", "![", "", "*", "", "_", "", "`", "", "~", "", "\\", "", "[", "", "]", "")

// rawMayHold reports whether a text-format file at rel whose raw bytes
// are data may hold all the needles (lower-case terms).
func rawMayHold(rel string, kind extract.Kind, data []byte, needles []string) bool {
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return true
	}
	hay := searchBytes(data)
	path := strings.ToLower(extract.SearchForm(rel))
	var stripped []byte
	for _, n := range needles {
		if bytes.Contains(hay, []byte(n)) || strings.Contains(path, n) {
			continue
		}
		if stripped == nil {
			if !needsStripping(kind, data) {
				return false
			}
			stripped = searchBytes([]byte(stripMarkup(kind, string(data))))
		}
		if !bytes.Contains(stripped, []byte(n)) && !synthesized(kind, hay, n) {
			return false
		}
	}
	return true
}

// synthesized reports whether needle n may be part of a word the
// extractor writes into a markup file's text that is not in its bytes
// (hay, lower case): the numbers of ordered lists (renumbered, or from a
// start attribute) and footnotes, and the "Image:" before an image's
// description.
func synthesized(kind extract.Kind, hay []byte, n string) bool {
	if kind != extract.KindMarkdown && kind != extract.KindHTML {
		return false
	}
	if strings.Trim(n, "0123456789") == "" {
		return true
	}
	return strings.Contains("image", n) && (bytes.Contains(hay, []byte("![")) || bytes.Contains(hay, []byte("<img")))
}

// searchBytes is data as the index's words see it: NFKC-normalised (when
// not ASCII) and lower case.
func searchBytes(data []byte) []byte {
	for _, b := range data {
		if b >= utf8.RuneSelf {
			return bytes.ToLower(norm.NFKC.Bytes(data))
		}
	}
	return bytes.ToLower(data)
}

// needsStripping reports whether data's words may be split by markup or
// control characters.
func needsStripping(kind extract.Kind, data []byte) bool {
	if kind == extract.KindMarkdown || kind == extract.KindHTML {
		return true
	}
	for _, b := range data {
		if b < ' ' && b != '\t' && b != '\n' && b != '\r' || b == 0x7f {
			return true
		}
	}
	return hasC1(data)
}

// hasC1 reports a C1 control character (U+0080–U+009F) in data.
func hasC1(data []byte) bool {
	for i := 0; i+1 < len(data); i++ {
		if data[i] == 0xc2 && data[i+1] >= 0x80 && data[i+1] <= 0x9f {
			return true
		}
	}
	return false
}

// imgAlt matches the alt attribute of an <img> tag.
var imgAlt = regexp.MustCompile(`(?i)^<img\b.*?\balt\s*=\s*(?:"([^"]*)"|'([^']*)')`)

// altText is what an HTML tag leaves in the text: an image its alt
// text, which the extractor shows; any other tag nothing.
func altText(tag string) string {
	if m := imgAlt.FindStringSubmatch(tag); m != nil {
		return m[1] + m[2]
	}
	return ""
}

// stripMarkup takes a file's markup out of s: for Markdown and HTML its
// tags, entities and (Markdown) inline marks; for any file, control
// characters as the extractor writes them.
func stripMarkup(kind extract.Kind, s string) string {
	if kind == extract.KindMarkdown || kind == extract.KindHTML {
		s = htmlTag.ReplaceAllStringFunc(s, altText)
		if kind == extract.KindMarkdown {
			s = inlineMarks.Replace(linkTarget.ReplaceAllString(s, "]"))
		}
		s = html.UnescapeString(s)
	}
	return sanitize.Text(s)
}
