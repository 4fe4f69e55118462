package extract

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// hostileInline is n units of unit (with %d for the unit's number) in
// paragraphs of perParagraph units.
func hostileInline(unit string, n, perParagraph int) []byte {
	var b strings.Builder
	b.WriteString("# Links\n\n")
	for i := range n {
		fmt.Fprintf(&b, unit, i)
		if (i+1)%perParagraph == 0 {
			b.WriteString("\n\n")
		}
	}
	b.WriteString("\n")
	return []byte(b.String())
}

// Goldmark's link and emphasis parsers look back over every delimiter
// still open in a paragraph: one paragraph of 50,000 emphasised links
// took minutes (7m50s in the document server). The inline phase is now
// bounded: the file is read at once, marked truncated, and none of its
// text is lost (what is past the bound stays as written).
func TestMarkdownInlineMarkupIsBounded(t *testing.T) {
	sizeTests.Start(t)
	cases := map[string][]byte{
		"one paragraph":       hostileInline("[*a%d](b) ", 50_000, 50_000),
		"unclosed emphasis":   hostileInline("*[a%d](b)_ ", 50_000, 50_000),
		"dense paragraphs":    hostileInline("[*a%d](b) ", 60_000, 3_000),
		"one line per unit":   hostileInline("[*a%d](b)\n", 50_000, 50_000),
		"nested link labels":  hostileInline("[[*a%d](b) ", 30_000, 30_000),
		"code spans and tags": hostileInline("`a%d <b> [c](d) ", 40_000, 40_000),
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			type result struct {
				doc *Document
				err error
			}
			done := make(chan result, 1)
			start := time.Now()
			go func() {
				d, err := parseBytes(context.Background(), t, "links.md", src)
				done <- result{d, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(2 * time.Minute):
				t.Fatalf("%d bytes still parsing after two minutes", len(src))
			}
			t.Logf("%d bytes in %v", len(src), time.Since(start).Round(time.Millisecond))
			if r.err != nil {
				t.Fatal(r.err)
			}
			if !r.doc.Truncated {
				t.Error("not marked truncated")
			}
			var text strings.Builder
			for _, pg := range r.doc.Pages {
				for _, e := range pg.Elements {
					if s, ok := e.Content["text"].(string); ok {
						text.WriteString(s)
					}
				}
			}
			// The last unit's text is there: nothing was dropped.
			last := strings.Count(string(src), "a") - 1
			if !strings.Contains(text.String(), fmt.Sprintf("a%d", last)) {
				t.Errorf("the text of unit %d is missing (%d bytes of text)", last, text.Len())
			}
		})
	}
}

// Ordinary inline markup is untouched by the bound.
func TestMarkdownInlineMarkupKept(t *testing.T) {
	src := []byte("# T\n\nSee [the *docs*](https://example.com/d) and `code`, **bold** and ~~gone~~.\n")
	d, err := parseBytes(context.Background(), t, "t.md", src)
	if err != nil {
		t.Fatal(err)
	}
	if d.Truncated {
		t.Error("an ordinary paragraph was marked truncated")
	}
	md, _ := find(t, d, 0, dpe.Text).Content["markdown"].(string)
	for _, want := range []string{"[the *docs*](https://example.com/d)", "`code`", "**bold**", "~~gone~~"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown %q lacks %q", md, want)
		}
	}
}
