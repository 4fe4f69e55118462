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
	md    strings.Builder
	refs  []Element
}

// text adds plain text, escaped in the Markdown form.
func (in *inline) text(s string) {
	in.plain.WriteString(s)
	in.md.WriteString(dpe.EscapeSpan(s))
}

// raw adds text whose Markdown form is given (already valid Markdown).
func (in *inline) raw(plain, md string) {
	in.plain.WriteString(plain)
	in.md.WriteString(md)
}

func (in *inline) code(s string) {
	in.plain.WriteString(s)
	in.md.WriteString(dpe.CodeSpan(s))
}

func (in *inline) hardBreak() {
	in.plain.WriteByte('\n')
	if strings.HasSuffix(in.md.String(), "\\") {
		in.md.WriteString("  \n") // see dpe.EscapeText
		return
	}
	in.md.WriteString("\\\n")
}

// wrap surrounds the inline content added by f with a delimiter ("*",
// "**", "~~"), dropping it when f added nothing but space.
func (in *inline) wrap(delim string, f func()) {
	start := in.md.Len()
	f()
	inner := in.md.String()[start:]
	if strings.TrimSpace(inner) == "" {
		return
	}
	// Emphasis must not start or end with white space: move it outside.
	lead := inner[:len(inner)-len(strings.TrimLeft(inner, " \t"))]
	trail := inner[len(strings.TrimRight(inner, " \t")):]
	core := strings.TrimSpace(inner)
	s := in.md.String()[:start] + lead + delim + core + delim + trail
	in.md.Reset()
	in.md.WriteString(s)
}

// link adds a link around the content added by label.
func (in *inline) link(url, title string, label func()) {
	start, pstart := in.md.Len(), in.plain.Len()
	label()
	text := in.md.String()[start:]
	plain := collapse(in.plain.String()[pstart:])
	if strings.TrimSpace(text) == "" {
		text = dpe.EscapeSpan(url)
		in.plain.WriteString(url)
		plain = url
	}
	s := in.md.String()[:start] + "[" + text + "](" + mdDestination(url) + mdTitle(title) + ")"
	in.md.Reset()
	in.md.WriteString(s)
	in.refs = append(in.refs, Element{Category: dpe.Link, Content: map[string]any{
		"text": clean(plain), "url": clean(url), "within": withinPrevious,
	}})
}

// autolink adds a link whose text is the URL as written.
func (in *inline) autolink(label, url string) {
	in.plain.WriteString(label)
	if label == url && !strings.ContainsAny(url, " <>") {
		in.md.WriteString("<" + url + ">")
	} else {
		in.md.WriteString("[" + dpe.EscapeSpan(label) + "](" + mdDestination(url) + ")")
	}
	in.refs = append(in.refs, Element{Category: dpe.Link, Content: map[string]any{
		"text": clean(label), "url": clean(url), "within": withinPrevious,
	}})
}

// image adds an image; its alt text is part of the plain text.
func (in *inline) image(url, alt, title string) {
	alt = collapse(alt)
	in.plain.WriteString(alt)
	in.md.WriteString("![" + dpe.EscapeSpan(alt) + "](" + mdDestination(url) + mdTitle(title) + ")")
	in.refs = append(in.refs, Element{Category: dpe.Image, Content: map[string]any{
		"url": clean(url), "alt": clean(alt), "description": clean(title), "within": withinPrevious,
	}})
}

// result returns the plain text and, when it says more than the escaped
// plain text would, the Markdown form ("" otherwise).
func (in *inline) result() (plain, md string) {
	plain = clean(strings.TrimSpace(in.plain.String()))
	md = clean(strings.TrimSpace(in.md.String()))
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
