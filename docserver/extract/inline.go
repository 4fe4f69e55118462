package extract

import (
	"strings"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// withinPrevious is the provisional "within" of a link or image element
// found inside another element's text: finish replaces it with the ID of
// the nearest preceding element that is not itself within another.
const withinPrevious = "\x00previous"

// inline accumulates a run of inline content in its two forms: the plain
// text (what format=text shows and search reads) and the Markdown that
// keeps its emphasis, code spans, links and images. Links and images
// found on the way are collected as elements shown within the text.
type inline struct {
	plain strings.Builder
	mdb   *strings.Builder // the Markdown being written (see md)
	refs  []Element
}

// md is the builder of the Markdown form. Emphasis and links write their
// content into a fresh builder and then wrap it into the outer one, so the
// cost stays linear in the text (times the nesting depth).
func (in *inline) md() *strings.Builder {
	if in.mdb == nil {
		in.mdb = &strings.Builder{}
	}
	return in.mdb
}

// capture runs f with a fresh Markdown builder and returns what f wrote.
func (in *inline) capture(f func()) string {
	outer := in.md()
	in.mdb = &strings.Builder{}
	f()
	inner := in.mdb.String()
	in.mdb = outer
	return inner
}

// text adds plain text, escaped in the Markdown form.
func (in *inline) text(s string) {
	in.plain.WriteString(s)
	in.md().WriteString(dpe.EscapeSpan(s))
}

// raw adds text whose Markdown form is given (already valid Markdown).
func (in *inline) raw(plain, md string) {
	in.plain.WriteString(plain)
	in.md().WriteString(md)
}

func (in *inline) code(s string) {
	in.plain.WriteString(s)
	in.md().WriteString(dpe.CodeSpan(s))
}

func (in *inline) hardBreak() {
	in.plain.WriteByte('\n')
	if strings.HasSuffix(in.md().String(), "\\") {
		in.md().WriteString("  \n") // see dpe.EscapeText
		return
	}
	in.md().WriteString("\\\n")
}

// wrap surrounds the inline content added by f with a delimiter ("*",
// "**", "~~"), dropping it when f added nothing but space.
func (in *inline) wrap(delim string, f func()) {
	inner := in.capture(f)
	if strings.TrimSpace(inner) == "" {
		in.md().WriteString(inner)
		return
	}
	// Emphasis must not start or end with white space: move it outside.
	lead := inner[:len(inner)-len(strings.TrimLeft(inner, " \t"))]
	trail := inner[len(strings.TrimRight(inner, " \t")):]
	in.md().WriteString(lead + delim + strings.TrimSpace(inner) + delim + trail)
}

// link adds a link around the content added by label.
func (in *inline) link(url, title string, label func()) {
	pstart := in.plain.Len()
	text := in.capture(label)
	plain := collapse(in.plain.String()[pstart:])
	if strings.TrimSpace(text) == "" {
		text = dpe.EscapeSpan(url)
		in.plain.WriteString(url)
		plain = url
	}
	in.md().WriteString("[" + text + "](" + mdDestination(url) + mdTitle(title) + ")")
	in.refs = append(in.refs, Element{Category: dpe.Link, Content: map[string]any{
		"text": clean(plain), "url": clean(url), "within": withinPrevious,
	}})
}

// autolink adds a link whose text is the URL as written.
func (in *inline) autolink(label, url string) {
	in.plain.WriteString(label)
	if label == url && !strings.ContainsAny(url, " <>") {
		in.md().WriteString("<" + url + ">")
	} else {
		in.md().WriteString("[" + dpe.EscapeSpan(label) + "](" + mdDestination(url) + ")")
	}
	in.refs = append(in.refs, Element{Category: dpe.Link, Content: map[string]any{
		"text": clean(label), "url": clean(url), "within": withinPrevious,
	}})
}

// image adds an image; its alt text is part of the plain text.
func (in *inline) image(url, alt, title string) {
	alt = collapse(alt)
	in.plain.WriteString(alt)
	in.md().WriteString("![" + dpe.EscapeSpan(alt) + "](" + mdDestination(url) + mdTitle(title) + ")")
	in.refs = append(in.refs, Element{Category: dpe.Image, Content: map[string]any{
		"url": clean(url), "alt": clean(alt), "description": clean(title), "within": withinPrevious,
	}})
}

// result returns the plain text and, when it says more than the escaped
// plain text would, the Markdown form ("" otherwise).
func (in *inline) result() (plain, md string) {
	plain = clean(strings.TrimSpace(in.plain.String()))
	md = clean(strings.TrimSpace(in.md().String()))
	md = strings.TrimSuffix(md, "\\") // a hard break at the very end
	if md == dpe.EscapeSpan(plain) || md == dpe.EscapeText(plain) {
		md = ""
	}
	return plain, md
}

// mdDestination writes a link destination: as is when it is safe, in
// angle brackets when it has spaces or parentheses.
func mdDestination(url string) string {
	url = strings.TrimSpace(collapse(url))
	if url == "" {
		return "<>"
	}
	if !strings.ContainsAny(url, " ()<>\\") {
		return url
	}
	return "<" + strings.NewReplacer("<", "%3C", ">", "%3E", "\\", "%5C").Replace(url) + ">"
}

func mdTitle(title string) string {
	if title == "" {
		return ""
	}
	return ` "` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(collapse(title)) + `"`
}

// quoted sets the blockquote depth and list indentation of an element's
// content (content keys "quote" and "indent").
func placed(e Element, quote, indent int) Element {
	if quote > 0 {
		e.Content["quote"] = quote
	}
	if indent > 0 {
		e.Content["indent"] = indent
	}
	return e
}
