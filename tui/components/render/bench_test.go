package render

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkRenderCodeBlocksWithoutLanguage renders a page of 40 code
// blocks without a language (HTML <pre>, indented blocks), whose lexer
// chroma has to guess.
func BenchmarkRenderCodeBlocksWithoutLanguage(b *testing.B) {
	var md strings.Builder
	for i := range 40 {
		fmt.Fprintf(&md, "Paragraph %d about the code below.\n\n```\nx := a[%d] << s // shift\ny = f(x, %d)\n```\n\n", i, i, i)
	}
	src := md.String()
	b.ReportAllocs()
	for b.Loop() {
		_ = Markdown(src, 100, "dark")
	}
}
