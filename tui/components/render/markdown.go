// Package render turns content into terminal text: Markdown through
// glamour (tables at their natural width, code blocks named), coloured JSON,
// and wrapped plain text.
package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/glamour/v2/styles"
	"github.com/alecthomas/chroma/v2/quick"
	"github.com/charmbracelet/x/ansi"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// Markdown renders Markdown for a terminal of the given width with a
// glamour standard style, tabs expanded first. On a glamour failure the Markdown is returned
// word-wrapped, so the user still reads the text.
func Markdown(md string, width int, style string) string {
	width = max(width, 20)
	md = dpe.ExpandTabs(md, tabWidth)
	cfg, ok := styles.DefaultStyles[style]
	if !ok {
		return fmt.Sprintf("(markdown rendering failed: no style %q)\n\n", style) + Wrap(md, width)
	}
	// Lines come out a margin narrower than width; tables are drawn at
	// their natural width (see renderGlamour). glamour drops hard line
	// breaks; dpe writes line breaks only where the source has them (a
	// text file's lines), so they are kept. glamour resolves every relative
	// link and image path against its base URL and, with none, shows
	// "img/a.png" as "/img/a.png"; a base it cannot parse makes it keep the
	// path as written.
	out, err := renderGlamour(md, width, *cfg)
	if err != nil {
		return fmt.Sprintf("(markdown rendering failed: %v)\n\n", err) + Wrap(md, width)
	}
	// dpe carries a text line's indentation as no-break spaces; on screen
	// (and when copied from it) they are spaces.
	return trimBlankEdges(strings.ReplaceAll(out, "\u00a0", " "))
}

// JSON pretty-prints v (HTML characters kept as they are) and colours
// it with a chroma style; an empty style gives plain JSON.
func JSON(v any, style string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "(cannot encode JSON: " + err.Error() + ")"
	}
	src := strings.TrimRight(buf.String(), "\n")
	if style == "" {
		return src
	}
	var out strings.Builder
	if err := quick.Highlight(&out, src, "json", "terminal256", style); err != nil {
		return src
	}
	return strings.TrimRight(out.String(), "\n")
}

// Wrap hard-wraps text to width cells, breaking long words; tabs
// are expanded first.
func Wrap(s string, width int) string {
	return ansi.Wrap(dpe.ExpandTabs(s, tabWidth), max(width, 1), "")
}

// unresolvedBase is a base URL glamour fails to parse (see Markdown).
const unresolvedBase = "%"

// tabWidth is where tab stops fall on screen. A terminal cell grid does
// not interpret tabs (they would vanish, and Go source would lose its
// indentation), so text is laid out with tabs expanded to these stops, the
// width gofmt and most source files assume.
const tabWidth = 8

// WrapStyled wraps every line of styled text (such as coloured JSON) to width.
func WrapStyled(s string, width int) string {
	return ansi.Hardwrap(s, max(width, 1), true)
}

// trimBlankEdges drops the blank lines glamour puts around a document.
func trimBlankEdges(s string) string {
	lines := strings.Split(s, "\n")
	start, end := 0, len(lines)
	for start < end && strings.TrimSpace(ansi.Strip(lines[start])) == "" {
		start++
	}
	for end > start && strings.TrimSpace(ansi.Strip(lines[end-1])) == "" {
		end--
	}
	return strings.Join(lines[start:end], "\n")
}
