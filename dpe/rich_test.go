package dpe

import (
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

func TestNestedListKeepsLevelsAndNumbers(t *testing.T) {
	// "1. one / 1. nested / 2. two": "two" is item 2 of the outer list.
	e := protocol.DPEElementDetail{Category: "list", Content: map[string]any{
		"ordered": true, "start": 1, "items": []any{"one", "nested", "two"},
		"levels": []any{0.0, 1.0, 0.0}, "markers": []any{"1.", "1.", "2."},
	}}
	md := RenderElementMarkdown(e)
	if want := "1. one\n    1. nested\n2. two"; md != want {
		t.Errorf("markdown %q, want %q", md, want)
	}
	if got := commonMarkText(t, md); got != "one\nnested\ntwo" {
		t.Errorf("renders as %q", got)
	}
	if txt, want := RenderElementText(e), "1. one\n  1. nested\n2. two"; txt != want {
		t.Errorf("text %q, want %q", txt, want)
	}
	// An old-style list (no levels) is unchanged.
	old := protocol.DPEElementDetail{Category: "list", Content: map[string]any{"ordered": true, "start": 3, "items": []any{"a", "b"}}}
	if got := RenderElementMarkdown(old); got != "3. a\n4. b" {
		t.Errorf("old list %q", got)
	}
}

func TestRichMarkdownIsUsedAndTextStaysPlain(t *testing.T) {
	e := protocol.DPEElementDetail{Category: "text", Content: map[string]any{
		"text": "Use bold and code here", "markdown": "Use **bold** and `code` here",
	}}
	if got := RenderElementMarkdown(e); got != "Use **bold** and `code` here" {
		t.Errorf("markdown %q", got)
	}
	if got := RenderElementText(e); got != "Use bold and code here" {
		t.Errorf("text %q", got)
	}
	li := protocol.DPEElementDetail{Category: "list", Content: map[string]any{
		"items": []any{"see docs"}, "items_markdown": []any{"see [docs](https://x)"},
	}}
	if got := RenderElementMarkdown(li); got != "- see [docs](https://x)" {
		t.Errorf("list %q", got)
	}
}

func TestQuoteAndIndentPlaceElements(t *testing.T) {
	p := protocol.DPEPage{Elements: []protocol.DPEElementDetail{
		{ElementID: "txt-0-1", Category: "text", Content: map[string]any{"text": "quoted", "quote": 1.0}},
		{ElementID: "lst-0-1", Category: "list", Content: map[string]any{"items": []any{"in quote"}, "quote": 1.0}},
		{ElementID: "lst-0-2", Category: "list", Content: map[string]any{"ordered": true, "items": []any{"step"}, "markers": []any{"1."}}},
		{ElementID: "code-0-1", Category: "code", Content: map[string]any{"language": "sh", "code": "npm i", "indent": 1.0}},
		{ElementID: "lst-0-3", Category: "list", Content: map[string]any{"ordered": true, "start": 2, "items": []any{"next"}, "markers": []any{"2."}}},
	}}
	md := RenderPageMarkdown(p)
	want := "> quoted\n>\n> - in quote\n\n1. step\n\n    ```sh\n    npm i\n    ```\n\n2. next\n"
	if md != want {
		t.Fatalf("markdown\n%s\nwant\n%s", md, want)
	}
	// One quote, one list of two items with the code inside the first.
	if got := commonMarkText(t, md); got != "quoted\nin quote\nstep\nnpm i\nnext" {
		t.Errorf("renders as %q", got)
	}
}

func TestTableAlignmentAndRichCells(t *testing.T) {
	e := protocol.DPEElementDetail{Category: "table", Content: map[string]any{
		"headers": []any{"Name", "Size"}, "rows": []any{[]any{"a", "1"}, []any{"bb", "22"}},
		"align":            []any{"left", "right"},
		"headers_markdown": []any{"**Name**", "Size"},
		"rows_markdown":    []any{[]any{"`a`", "1"}, []any{"bb", "22"}},
	}}
	want := "| **Name** | Size |\n| :------- | ---: |\n| `a`      |    1 |\n| bb       |   22 |"
	if got := RenderElementMarkdown(e); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Without rich cells the plain cells are escaped.
	e.Content = map[string]any{"headers": []any{"a*b*"}, "rows": []any{}}
	if got := RenderElementMarkdown(e); !strings.HasPrefix(got, `| a\*b\* |`) {
		t.Errorf("plain cell %q", got)
	}
}

func TestElementsWithinAnotherAreNotRepeated(t *testing.T) {
	link := protocol.DPEElementDetail{ElementID: "lnk-0-1", Category: "link", Content: map[string]any{"text": "docs", "url": "https://x", "within": "txt-0-1"}}
	p := protocol.DPEPage{Elements: []protocol.DPEElementDetail{
		{ElementID: "txt-0-1", Category: "text", Content: map[string]any{"text": "see docs", "markdown": "see [docs](https://x)"}},
		link,
	}}
	if got := RenderPageMarkdown(p); got != "see [docs](https://x)\n" {
		t.Errorf("page %q", got)
	}
	// Filtered to links only, the link is shown.
	if got := RenderPageMarkdown(protocol.DPEPage{Elements: []protocol.DPEElementDetail{link}}); got != "[docs](https://x)\n" {
		t.Errorf("links only %q", got)
	}
}

func TestFormulaShowsCellAndValue(t *testing.T) {
	e := protocol.DPEElementDetail{Category: "formula", Content: map[string]any{"expression": "=A1*B1", "cell": "C1", "value": "42"}}
	if got, want := RenderElementMarkdown(e), "`C1` $ =A1\\*B1 $ → 42"; got != want {
		t.Errorf("markdown %q, want %q", got, want)
	}
	if got, want := RenderElementText(e), "C1: =A1*B1 → 42"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
}

func TestRenderLevels(t *testing.T) {
	cat := protocol.DPECatalog{TotalCount: 2, Documents: []protocol.DPEDocumentSummary{
		{Title: "main.go", URI: "dpe://h/a", FileType: "go", PageCount: 1, Path: "cmd/a/main.go", Summary: "Use <name>"},
		{Title: "main.go", URI: "dpe://h/b", FileType: "go", PageCount: 1, Path: "cmd/b/main.go"},
		{Title: "x.pdf", URI: "dpe://h/c", FileType: "pdf", Unreadable: "encrypted"},
	}}
	md := RenderCatalogMarkdown(cat)
	for _, want := range []string{"`cmd/a/main.go`", "`cmd/b/main.go`", `Use \<name>`, "unreadable: encrypted"} {
		if !strings.Contains(md, want) {
			t.Errorf("catalog markdown lacks %q:\n%s", want, md)
		}
	}
	if txt := RenderCatalogText(cat); !strings.Contains(txt, "cmd/b/main.go") {
		t.Errorf("catalog text lacks the path:\n%s", txt)
	}
	off, total := 0, 1
	doc := protocol.DPEDocument{Title: "A *b*", FileType: "md", PageCount: 1, FileURI: "file:///a", PageOffset: &off, PageTotal: &total,
		Pages: []protocol.DPEPageSummary{{PageIndex: 0, Title: "P [1]", ElementCount: 2, URI: "dpe://h/a/pages/0"}}}
	md = RenderDocumentMarkdown(doc)
	for _, want := range []string{`# A \*b\*`, `[P \[1\]](dpe://h/a/pages/0)`} {
		if !strings.Contains(md, want) {
			t.Errorf("document markdown lacks %q:\n%s", want, md)
		}
	}
	if txt := RenderDocumentText(doc); !strings.Contains(txt, "A *b*") || !strings.Contains(txt, "P [1]") {
		t.Errorf("document text:\n%s", txt)
	}
}

// A page index entry of a page the server has not read yet (a PDF read
// page by page) says so, instead of "-1 elements".
func TestRenderUnreadPages(t *testing.T) {
	off, total := 0, 2
	doc := protocol.DPEDocument{Title: "Manual", FileType: "pdf", PageCount: 2, PageOffset: &off, PageTotal: &total,
		Pages: []protocol.DPEPageSummary{
			{PageIndex: 0, Title: "Contents", ElementCount: 3, URI: "dpe://h/m/pages/0"},
			{PageIndex: 1, Title: "Page 2", ElementCount: protocol.ElementsNotCounted, URI: "dpe://h/m/pages/1"},
		}}
	for name, out := range map[string]string{"markdown": RenderDocumentMarkdown(doc), "text": RenderDocumentText(doc)} {
		if strings.Contains(out, "-1") || !strings.Contains(out, "3 elements") || !strings.Contains(out, "not read yet") {
			t.Errorf("%s:\n%s", name, out)
		}
	}
}
