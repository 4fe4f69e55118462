package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// pageDetail converts a page as the document server does (Level 2).
func pageDetail(p Page) protocol.DPEPage {
	out := protocol.DPEPage{Title: p.Title}
	for _, e := range p.Elements {
		out.Elements = append(out.Elements, protocol.DPEElementDetail{ElementID: e.ID, Category: string(e.Category), Summary: e.Summary, Content: e.Content})
	}
	return out
}

// render renders every page of doc in a format, pages separated by a
// blank line.
func render(doc *Document, markdown bool) string {
	var parts []string
	for _, p := range doc.Pages {
		if markdown {
			parts = append(parts, dpe.RenderPageMarkdown(pageDetail(p)))
		} else {
			parts = append(parts, dpe.RenderPageText(pageDetail(p)))
		}
	}
	return strings.Join(parts, "\n")
}

func parseString(t *testing.T, name, src string) *Document {
	t.Helper()
	doc, err := Parse(context.Background(), Source{Name: name, Data: []byte(src)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// mdTraps has the constructs issue 11 saw lost or changed.
const mdTraps = `# Traps

Some **bold**, *italic*, ~~struck~~ and ` + "`/godebug/non-default-behavior/<name>:events`" + ` text, with an
[inline link](https://example.com/a) in the sentence and an autolink <https://example.com/b>.

> A quoted paragraph
> with two lines.
>
> - and a list in the quote

1. one
   1. nested
2. two

---

Footnote here[^1].

<!-- a hidden comment
over two lines -->

## Intro {#intro}

| Left | Center | Right |
|:-----|:------:|------:|
| a    | b      | c     |

![diagram](img/arch.png)

[^1]: The note.
`

func TestMarkdownKeepsStructure(t *testing.T) {
	doc := parseString(t, "traps.md", mdTraps)
	md := render(doc, true)
	for _, want := range []string{
		"Some **bold**, *italic*, ~~struck~~ and `/godebug/non-default-behavior/<name>:events` text, with an [inline link](https://example.com/a) in the sentence and an autolink <https://example.com/b>.",
		"> A quoted paragraph with two lines.\n>\n> - and a list in the quote",
		"1. one\n    1. nested\n2. two",
		"\n---\n",
		"Footnote here\\[1\\].",
		"## Intro\n",
		"| Left | Center | Right |\n| :--- | :----: | ----: |\n| a    |   b    |     c |",
		"![diagram](img/arch.png)",
		"\\[1\\] The note.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("format=markdown lacks %q\n--- got:\n%s", want, md)
		}
	}
	for _, bad := range []string{"hidden comment", "-->", "{#intro}", "[separator", "/img/arch.png", "[https://example.com/b](https://example.com/b)"} {
		if strings.Contains(md, bad) {
			t.Errorf("format=markdown has %q\n--- got:\n%s", bad, md)
		}
	}
	// The link in the sentence is also a link element, shown within its text.
	var link Element
	for _, p := range doc.Pages {
		for _, e := range p.Elements {
			if e.Category == dpe.Link && e.Content["url"] == "https://example.com/a" {
				link = e
			}
		}
	}
	if w, _ := link.Content["within"].(string); !strings.HasPrefix(w, "txt-") {
		t.Errorf("inline link element = %+v, want within a text element", link)
	}
	h := find(t, doc, 1, dpe.Heading)
	if h.Content["text"] != "Intro" || h.Content["anchor"] != "intro" {
		t.Errorf("heading with attribute = %v", h.Content)
	}
	// format=text stays plain.
	txt := render(doc, false)
	for _, want := range []string{
		"Some bold, italic, struck and /godebug/non-default-behavior/<name>:events text, with an inline link in the sentence and an autolink https://example.com/b.",
		"> A quoted paragraph with two lines.",
		"1. one\n  1. nested\n2. two",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("format=text lacks %q\n--- got:\n%s", want, txt)
		}
	}
	if strings.Contains(txt, "**") || strings.Contains(txt, "](") {
		t.Errorf("format=text has Markdown syntax:\n%s", txt)
	}
}

func TestMarkdownCodeInListItemStaysInTheItem(t *testing.T) {
	src := "1. Install:\n\n   ```sh\n   npm i x\n   ```\n\n2. Run it.\n"
	md := render(parseString(t, "a.md", src), true)
	want := "1. Install:\n\n    ```sh\n    npm i x\n    ```\n\n2. Run it.\n"
	if md != want {
		t.Errorf("got\n%s\nwant\n%s", md, want)
	}
}

func TestMarkdownQuoteInsideListItemStaysAQuote(t *testing.T) {
	md := render(parseString(t, "a.md", "- item\n\n  > note\n  > more\n\n- two\n"), true)
	if !strings.Contains(md, "\n> note more\n") || strings.Contains(md, "    > note") {
		t.Errorf("got\n%s", md)
	}
}

func TestMarkdownEscapesResolvedInText(t *testing.T) {
	doc := parseString(t, "a.md", "a\\*b &amp; c\n")
	if got := find(t, doc, 0, dpe.Text).Content["text"]; got != "a*b & c" {
		t.Errorf("text = %q", got)
	}
}

// txtTraps is a plain-text file with Markdown look-alikes, tabs, indentation
// and a run of blank lines.
const txtTraps = "Notes\n\nUse <name> as placeholder, a*b*c math, _under_\n# not a heading\n1) not a list\n    indented four\n\tTabbed\tcolumns\n\n\n\nAfter three blank lines\n"

func TestPlainTextLineForLine(t *testing.T) {
	doc := parseString(t, "notes.txt", txtTraps)
	if len(doc.Pages) != 1 || doc.Pages[0].Title != "Lines 1–11" {
		t.Fatalf("pages = %v", pageTitles(doc))
	}
	if got, want := render(doc, false), txtTraps; got != want {
		t.Errorf("format=text\n%q\nwant\n%q", got, want)
	}
	md := render(doc, true)
	for _, want := range []string{`Use \<name> as placeholder, a\*b\*c math, \_under\_\`, `\# not a heading\`, `1\) not a list\`,
		"\u00a0\u00a0\u00a0\u00a0indented four\\", strings.Repeat("\u00a0", 8) + "Tabbed\tcolumns"} {
		if !strings.Contains(md, want) {
			t.Errorf("format=markdown lacks %q\n%s", want, md)
		}
	}
}

func TestCodeLineForLine(t *testing.T) {
	src := "package main\n\n// Usage:\n//\tgo tool addr2line binary\nfunc main() {\n\tif x {\n\t\treturn\n\t}\n}\n"
	doc := parseString(t, "main.go", src)
	if got := render(doc, false); got != src {
		t.Errorf("format=text %q, want %q", got, src)
	}
	if got := render(doc, true); got != "```go\n"+src+"```\n" {
		t.Errorf("format=markdown %q", got)
	}
}

const htmlPage = `<!DOCTYPE html><html><head><title>Page title</title>
<style>p { color: red }</style><script>alert("x")</script></head>
<body>
<h1 id="top">Main <em>heading</em></h1>
<p>Some <b>bold</b> and <code>a &lt;b&gt;</code> with a <a href="https://example.com">link</a>.</p>
<!-- comment -->
<ul><li>one<ul><li>nested</li></ul></li><li>two</li></ul>
<ol start="3"><li>three</li></ol>
<pre><code class="language-go">func main() {
	fmt.Println("hi")
}</code></pre>
<blockquote><p>Quoted</p></blockquote>
<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>a</td><td>1</td></tr></tbody></table>
<hr>
<p><img src="img/x.png" alt="X"></p>
</body></html>`

func TestHTMLIsReadNotShownAsSource(t *testing.T) {
	doc := parseString(t, "page.html", htmlPage)
	if doc.Title != "Page title" {
		t.Errorf("title = %q", doc.Title)
	}
	md := render(doc, true)
	for _, want := range []string{
		"# Main *heading*",
		"Some **bold** and `a <b>` with a [link](https://example.com).",
		"- one\n    - nested\n- two",
		"3. three",
		"```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```",
		"> Quoted",
		"| Name | Value |",
		"---",
		"![X](img/x.png)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("format=markdown lacks %q\n--- got:\n%s", want, md)
		}
	}
	for _, bad := range []string{"<p>", "<ul>", "color: red", "alert", "comment", "<h1"} {
		if strings.Contains(md, bad) {
			t.Errorf("format=markdown has %q:\n%s", bad, md)
		}
	}
	lst := find(t, doc, 0, dpe.List)
	if !reflect.DeepEqual(lst.Content["items"], []string{"one", "nested", "two"}) || !reflect.DeepEqual(lst.Content["levels"], []int{0, 1, 0}) {
		t.Errorf("list = %v", lst.Content)
	}
	if k, _ := KindOf("x.htm"); k != KindHTML {
		t.Errorf("KindOf(.htm) = %v", k)
	}
}

func TestHTMLBlockInMarkdown(t *testing.T) {
	src := "# T\n\n<p align=\"center\">\n  <img src=\"logo.png\" alt=\"Logo\">\n</p>\n\n<details><summary>More</summary>\n\nHidden <b>text</b>\n\n</details>\n"
	md := render(parseString(t, "a.md", src), true)
	if !strings.Contains(md, "![Logo](logo.png)") || strings.Contains(md, "<p") || strings.Contains(md, "<details") {
		t.Errorf("got\n%s", md)
	}
	if !strings.Contains(md, "More") || !strings.Contains(md, "Hidden") {
		t.Errorf("text lost:\n%s", md)
	}
}

// docxOf builds a minimal DOCX package from a body and a styles part;
// extra parts (numbering, relationships) may follow as name, data pairs.
func docxOf(t *testing.T, styles, body string, extra ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	parts := map[string]string{
		"[Content_Types].xml": `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
		"word/styles.xml":     `<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">` + styles + `</w:styles>`,
		"word/document.xml": `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ` +
			`xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body>` + body + `</w:body></w:document>`,
	}
	for i := 0; i+1 < len(extra); i += 2 {
		parts[extra[i]] = extra[i+1]
	}
	for name, data := range parts {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(data))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDOCXCodeBlocksKeepLineBreaks(t *testing.T) {
	styles := `<w:style w:type="paragraph" w:styleId="SourceCode"><w:name w:val="Source Code"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="PreformattedText"><w:name w:val="Preformatted Text"/></w:style>`
	p := func(style, runs string) string {
		ppr := ""
		if style != "" {
			ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
		}
		return `<w:p>` + ppr + runs + `</w:p>`
	}
	r := func(s string) string { return `<w:r><w:t xml:space="preserve">` + s + `</w:t></w:r>` }
	body := p("", r("Pandoc writes one paragraph with breaks:")) +
		p("SourceCode", r("func main() {")+`<w:r><w:br/><w:tab/></w:r>`+r("fmt.Println(1)")+`<w:r><w:br/></w:r>`+r("}")) +
		p("", r("LibreOffice writes a paragraph per line:")) +
		p("PreformattedText", r("if x:")) +
		p("PreformattedText", r("    return 1")) +
		p("PreformattedText", "") +
		p("PreformattedText", r("print(x)")) +
		p("", r("A monospace run makes code too:")) +
		p("", `<w:r><w:rPr><w:rFonts w:ascii="Consolas" w:hAnsi="Consolas"/></w:rPr><w:t xml:space="preserve">  $ make test</w:t></w:r>`)
	doc, err := Parse(context.Background(), Source{Name: "code.docx", Data: docxOf(t, styles, body)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, e := range doc.Pages[0].Elements {
		if e.Category == dpe.Code {
			codes = append(codes, e.Content["code"].(string))
		}
	}
	want := []string{"func main() {\n\tfmt.Println(1)\n}", "if x:\n    return 1\n\nprint(x)", "  $ make test"}
	if !reflect.DeepEqual(codes, want) {
		t.Errorf("code blocks = %q, want %q", codes, want)
	}
	if md := render(doc, true); !strings.Contains(md, "```\nif x:\n    return 1\n\nprint(x)\n```") {
		t.Errorf("markdown:\n%s", md)
	}
}

func TestXLSXFormulasNextToTheirCell(t *testing.T) {
	doc := parseCorpus(t, "reports/budget.xlsx")
	els := doc.Pages[0].Elements
	if els[0].Category != dpe.Table || els[1].Category != dpe.Formula {
		t.Fatalf("the formulas do not follow their table: %v", categories(els))
	}
	fx := els[1]
	if fx.Content["cell"] != "D2" || fx.Content["expression"] != "=B2-C2" || fx.Content["value"] != "350" {
		t.Errorf("formula = %v", fx.Content)
	}
	// The table shows the value in the cell (the file has no cached one).
	if rows := els[0].Content["rows"].([][]string); rows[0][3] != "350" || rows[5][1] != "5610" {
		t.Errorf("rows = %q", rows)
	}
	if got := dpe.RenderElementMarkdown(protocol.DPEElementDetail{Category: "formula", Content: fx.Content}); got != "`D2` $ =B2-C2 $ → 350" {
		t.Errorf("markdown %q", got)
	}
	if s := workbookSummary(nil); !strings.HasPrefix(s, "Workbook with 0 sheets: ") || strings.HasSuffix(s, ": ") {
		t.Errorf("empty workbook summary %q does not end with its reason", s)
	}
}

func categories(els []Element) []dpe.Category {
	var out []dpe.Category
	for _, e := range els {
		out = append(out, e.Category)
	}
	return out
}

func FuzzHTML(f *testing.F) {
	f.Add([]byte(htmlPage))
	f.Add([]byte("<ul><li><ul><li><ol><li>x</ol></ul></ul><table><tr><td>a<td>b</table><pre>\tx</pre>"))
	f.Add([]byte(strings.Repeat("<blockquote>", 300) + "deep"))
	f.Add([]byte("<p>a\x00b</p>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := Options{PageChars: 500, MaxPages: 50, MaxElements: 50}
		d, err := Parse(context.Background(), Source{Name: "f.html", Data: data}, opts)
		if errors.Is(err, ErrBinary) {
			// Bytes that are not text under an HTML name are refused, with
			// the reason; that is the one error HTML parsing may give.
			if CheckText(KindHTML, data) == nil {
				t.Fatalf("refused as binary, but its head passes CheckText: %v", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("HTML never fails to parse: %v", err)
		}
		checkBounded(t, d, opts, len(data))
		for _, p := range d.Pages {
			md := dpe.RenderPageMarkdown(pageDetail(p))
			if strings.Contains(md, "<script") || strings.Contains(md, "<style") {
				t.Fatalf("a tag reaches the Markdown: %q", md)
			}
		}
	})
}

// Every link is shown once: a paragraph's or a list's links stay on its
// page even when it passes the page budget, and a paragraph split into
// plain pieces shows its links on their own.
func TestEveryLinkShownOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Contents\n\n")
	for i := range 60 {
		fmt.Fprintf(&b, "- [Section %d](#section-%d)\n", i, i)
	}
	b.WriteString("\nA long paragraph with [a link](https://example.com/long). " + strings.Repeat("Words to pass the budget. ", 20) + "\n\n")
	b.WriteString("A short one with [another](https://example.com/short).\n")
	doc, err := Parse(context.Background(), Source{Name: "a.md", Data: []byte(b.String())}, Options{PageChars: 300})
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, p := range doc.Pages {
		all.WriteString(dpe.RenderPageMarkdown(pageDetail(p)))
	}
	md := all.String()
	for _, url := range []string{"#section-0", "#section-59", "https://example.com/long", "https://example.com/short"} {
		if n := strings.Count(md, "]("+url+")"); n != 1 {
			t.Errorf("%s shown %d times in\n%s", url, n, md)
		}
	}
}

func TestHTMLCodeInsideListItem(t *testing.T) {
	src := "<ol><li>Install:<pre><code>npm i x\n  --save</code></pre></li><li>Run it.</li></ol>"
	md := render(parseString(t, "a.html", src), true)
	want := "1. Install:\n\n    ```\n    npm i x\n      --save\n    ```\n\n2. Run it.\n"
	if md != want {
		t.Errorf("got\n%s\nwant\n%s", md, want)
	}
}

func TestDOCXInlineFormattingLinksAndNestedLists(t *testing.T) {
	r := func(rpr, s string) string {
		return `<w:r><w:rPr>` + rpr + `</w:rPr><w:t xml:space="preserve">` + s + `</w:t></w:r>`
	}
	item := func(ilvl, s string) string {
		return `<w:p><w:pPr><w:numPr><w:ilvl w:val="` + ilvl + `"/><w:numId w:val="1"/></w:numPr></w:pPr>` + r("", s) + `</w:p>`
	}
	body := `<w:p>` + r("", "Plain, ") + r(`<w:b/>`, "bold") + r(`<w:b/>`, " too") + r("", ", ") + r(`<w:i/>`, "italic") +
		r("", ", ") + r(`<w:rFonts w:ascii="Consolas"/>`, "a*b&lt;c&gt;") + r("", " and ") +
		`<w:hyperlink r:id="rId9">` + r("", "a link") + `</w:hyperlink>` + r("", " in the sentence.") + `</w:p>` +
		item("0", "one") + item("1", "nested") + item("0", "two")
	numbering := `<w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">` +
		`<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/></w:lvl><w:lvl w:ilvl="1"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum>` +
		`<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>`
	rels := `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
		`<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.com/x" TargetMode="External"/></Relationships>`
	doc, err := Parse(context.Background(), Source{Name: "f.docx", Data: docxOf(t, "", body, "word/numbering.xml", numbering, "word/_rels/document.xml.rels", rels)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	md := render(doc, true)
	for _, want := range []string{
		"Plain, **bold too**, *italic*, `a*b<c>` and [a link](https://example.com/x) in the sentence.",
		"1. one\n    - nested\n2. two",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "https://example.com/x") != 1 {
		t.Errorf("the link is not shown exactly once:\n%s", md)
	}
	if txt := render(doc, false); !strings.Contains(txt, "Plain, bold too, italic, a*b<c> and a link in the sentence.") {
		t.Errorf("text:\n%s", txt)
	}
}
