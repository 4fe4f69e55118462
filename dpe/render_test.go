package dpe

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// renderGoldens holds the golden renderings (rewritten with -update).
const renderGoldens = "../testdata/render"

// samplePage is decoded from JSON, as a client receives it, so content
// values are float64 and []any.
func samplePage(t *testing.T) protocol.DPEPage {
	t.Helper()
	const pageJSON = `{
	  "page_index": 0, "title": "概览", "doc_ref": "rpt-2026", "uri": "dpe://com.example.docs/rpt-2026/pages/0",
	  "element_count": 22,
	  "elements": [
	    {"element_id": "h-001", "category": "heading", "summary": "2026 年度总结", "content": {"level": 1, "text": "2026 年度总结"}},
	    {"element_id": "h-002", "category": "heading", "content": {"level": 9, "text": "Deep\nheading"}},
	    {"element_id": "txt-001", "category": "text", "content": {"text": "本报告总结了 2026 年度的运营情况。\n\nSecond paragraph."}},
	    {"element_id": "tbl-001", "category": "table", "summary": "季度收入对比表", "content": {"headers": ["季度", "收入（万元）", "同比|增长"], "rows": [["Q1", "1,250", "+12%"], ["Q2", "1,380"], ["Q3", "a|b", "line1\nline2"]]}},
	    {"element_id": "pv-001", "category": "pivot_table", "content": {"headers": ["Region", "Total"], "rows": [["North", 12.5], ["South", 7]]}},
	    {"element_id": "ls-001", "category": "list", "content": {"ordered": true, "start": 3, "items": ["three", "four"]}},
	    {"element_id": "ls-002", "category": "list", "content": {"ordered": false, "items": ["apples", "pears\nand more"]}},
	    {"element_id": "code-001", "category": "code", "content": {"language": "go", "code": "fmt.Println(\"` + "```" + `\")\n"}},
	    {"element_id": "chart-001", "category": "chart", "content": {"chart_type": "line", "title": "季度收入趋势", "data_summary": "Q1-Q4 收入呈上升趋势"}},
	    {"element_id": "img-001", "category": "image", "content": {"url": "https://example.com/a.png", "alt": "Logo"}},
	    {"element_id": "img-002", "category": "image", "content": {"description": "组织架构图"}},
	    {"element_id": "lnk-001", "category": "link", "content": {"text": "A2C-SMCP", "url": "https://github.com/A2C-SMCP"}},
	    {"element_id": "f-001", "category": "formula", "content": {"expression": "=SUM(B2:B5)", "cell": "B6"}},
	    {"element_id": "d-001", "category": "diagram", "summary": "Data flow", "content": {}},
	    {"element_id": "an-001", "category": "annotation", "summary": "Reviewer note", "content": {"text": "check Q3", "author": "li"}},
	    {"element_id": "hd-001", "category": "header", "summary": "Company confidential", "content": {"text": "Company confidential"}},
	    {"element_id": "ft-001", "category": "footer", "content": {"text": "Page 1 of 12"}},
	    {"element_id": "sep-001", "category": "separator", "summary": "", "content": {}},
	    {"element_id": "aud-001", "category": "audio", "summary": "Earnings call", "content": {"url": "https://example.com/call.mp3", "title": "Q4 call"}},
	    {"element_id": "vid-001", "category": "video", "summary": "Launch video", "content": {"url": "https://example.com/v.mp4"}},
	    {"element_id": "form-001", "category": "form", "summary": "Expense claim form", "content": {"fields": ["name", "amount"]}},
	    {"element_id": "w-001", "category": "widget", "summary": "Date picker", "content": {"kind": "date"}}
	  ]
	}`
	var p protocol.DPEPage
	if err := json.Unmarshal([]byte(pageJSON), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRenderPageGolden(t *testing.T) {
	p := samplePage(t)
	seen := map[Category]bool{}
	for _, e := range p.Elements {
		seen[Category(e.Category)] = true
	}
	for _, c := range Categories() {
		if !seen[c] {
			t.Errorf("sample page has no %s element; the golden must cover every category", c)
		}
	}
	testutil.Golden(t, filepath.Join(renderGoldens, "page.md"), []byte(RenderPageMarkdown(p)))
	testutil.Golden(t, filepath.Join(renderGoldens, "page.txt"), []byte(RenderPageText(p)))
}

func TestRenderElements(t *testing.T) {
	p := samplePage(t)
	var md, txt strings.Builder
	for _, e := range p.Elements {
		md.WriteString("## " + e.ElementID + " (" + e.Category + ")\n" + RenderElementMarkdown(e) + "\n\n")
		txt.WriteString("== " + e.ElementID + "\n" + RenderElementText(e) + "\n\n")
	}
	testutil.Golden(t, filepath.Join(renderGoldens, "elements.md"), []byte(md.String()))
	testutil.Golden(t, filepath.Join(renderGoldens, "elements.txt"), []byte(txt.String()))
}

func TestRenderRules(t *testing.T) {
	el := func(cat string, c map[string]any) protocol.DPEElementDetail {
		return protocol.DPEElementDetail{Category: cat, Summary: "sum", Content: c}
	}
	tests := []struct {
		name string
		e    protocol.DPEElementDetail
		want string
	}{
		{"heading level 2", el("heading", map[string]any{"level": 2, "text": "Title"}), "## Title"},
		{"heading clamps", el("heading", map[string]any{"level": 0.0, "text": "T"}), "# T"},
		{"table from Go values escapes pipes", el("table", map[string]any{"headers": []string{"a|b"}, "rows": [][]string{{"1"}}}),
			"| a\\|b |\n| ---- |\n| 1    |"},
		{"ordered list", el("list", map[string]any{"ordered": true, "items": []string{"x", "y"}}), "1. x\n2. y"},
		{"unordered list", el("list", map[string]any{"items": []any{"x"}}), "- x"},
		{"code fence", el("code", map[string]any{"language": "py", "code": "print(1)"}), "```py\nprint(1)\n```"},
		{"chart", el("chart", map[string]any{"title": "T", "data_summary": "up"}), "[图表: T] up"},
		{"image url", el("image", map[string]any{"url": "u", "alt": "a"}), "![a](u)"},
		{"image description", el("image", map[string]any{"description": "d"}), "[图片: d]"},
		{"link", el("link", map[string]any{"text": "t", "url": "u"}), "[t](u)"},
		{"formula", el("formula", map[string]any{"expression": "x+1"}), "$ x+1 $"},
		{"other", el("audio", map[string]any{"url": "u"}), "[audio: sum]"},
		{"missing content", protocol.DPEElementDetail{Category: "table"}, ""},
		{"ragged rows padded", el("table", map[string]any{"headers": []any{"a", "b"}, "rows": [][]any{{"1"}, {"2", "3", "4"}}}),
			"| a   | b   |     |\n| --- | --- | --- |\n| 1   |     |     |\n| 2   | 3   | 4   |"},
		{"newline in cell", el("table", map[string]any{"headers": []string{"h"}, "rows": [][]string{{"x\r\ny"}}}),
			"| h      |\n| ------ |\n| x<br>y |"},
		{"ordered list honours start", el("list", map[string]any{"ordered": true, "start": 7.0, "items": []any{"x", "y"}}), "7. x\n8. y"},
		{"negative start clamped", el("list", map[string]any{"ordered": true, "start": -4, "items": []string{"x"}}), "0. x"},
		{"code fence longer than backticks inside", el("code", map[string]any{"language": "md", "code": "a ```` b\n"}),
			"`````md\na ```` b\n`````"},
		{"code language cannot break the fence", el("code", map[string]any{"language": "go`x", "code": "x"}), "```gox\nx\n```"},
		{"code keeps a blank last line", el("code", map[string]any{"language": "go", "code": "}\n\n"}), "```go\n}\n\n```"},
		{"image prefers url; alt brackets escaped; its title kept", el("image", map[string]any{"url": "u", "alt": "a]b", "description": `the "d"`}), `![a\]b](u "the \"d\"")`},
		{"image whose description is its alt has no title", el("image", map[string]any{"url": "u", "alt": "a", "description": "a"}), "![a](u)"},
		{"image without url falls back to alt", el("image", map[string]any{"alt": "only alt"}), "[图片: only alt]"},
		{"link destination with spaces and parens", el("link", map[string]any{"text": "[x]", "url": "http://h/a b(c)"}),
			"[\\[x\\]](<http://h/a b(c)>)"},
		{"link without text shows the url", el("link", map[string]any{"url": "http://h"}), "[http://h](http://h)"},
		{"formula on one line", el("formula", map[string]any{"expression": "a\n+b"}), "$ a +b $"},
		{"other without summary uses text", protocol.DPEElementDetail{Category: "annotation", Content: map[string]any{"text": "check Q3"}}, "[annotation: check Q3]"},
		{"other with nothing to show", protocol.DPEElementDetail{Category: "form", Content: map[string]any{}}, "[form]"},
		{"separator is a thematic break", protocol.DPEElementDetail{Category: "separator", Content: map[string]any{}}, "---"},
		{"unknown category", protocol.DPEElementDetail{Category: "sticker", Summary: "s"}, "[sticker: s]"},
		{"text keeps paragraph breaks", el("text", map[string]any{"text": "a\n\nb\n"}), "a\n\nb"},
		{"chart without summary", el("chart", map[string]any{"title": "T"}), "[图表: T]"},
		{"wrong types", el("heading", map[string]any{"level": "x", "text": []any{1}}), "# \\[1\\]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RenderElementMarkdown(tt.e); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRenderText(t *testing.T) {
	el := func(cat string, c map[string]any) protocol.DPEElementDetail {
		return protocol.DPEElementDetail{Category: cat, Content: c}
	}
	tests := []struct {
		name string
		e    protocol.DPEElementDetail
		want string
	}{
		{"heading has no hashes", el("heading", map[string]any{"level": 2, "text": "T"}), "T"},
		{"table tab-separated, tabs in cells folded", el("table", map[string]any{"headers": []string{"a", "b"}, "rows": [][]string{{"1\t2", "3|4"}}}),
			"a\tb\n1 2\t3|4"},
		{"ordered list", el("list", map[string]any{"ordered": "true", "start": 2, "items": []string{"x"}}), "2. x"},
		{"code without fence", el("code", map[string]any{"language": "go", "code": "x := 1\n"}), "x := 1"},
		{"code keeps a blank last line", el("code", map[string]any{"language": "go", "code": "}\n\n"}), "}\n"},
		{"image keeps its url", el("image", map[string]any{"alt": "Logo", "url": "u"}), "Image: Logo <u>"},
		{"link", el("link", map[string]any{"text": "t", "url": "u"}), "t <u>"},
		{"separator", el("separator", nil), "----"},
		{"other", protocol.DPEElementDetail{Category: "widget", Summary: "Date\npicker"}, "widget: Date picker"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RenderElementText(tt.e); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRenderPageJoins(t *testing.T) {
	p := protocol.DPEPage{Elements: []protocol.DPEElementDetail{
		{Category: "heading", Content: map[string]any{"level": 1, "text": "A"}},
		{Category: "table"}, // renders to nothing and leaves no gap
		{Category: "text", Content: map[string]any{"text": "b"}},
	}}
	if got, want := RenderPageMarkdown(p), "# A\n\nb\n"; got != want {
		t.Errorf("markdown = %q, want %q", got, want)
	}
	if got, want := RenderPageText(p), "A\n\nb\n"; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	if got := RenderPageMarkdown(protocol.DPEPage{}); got != "" {
		t.Errorf("empty page = %q, want empty", got)
	}
}

// TestRenderUntypedContent feeds content of every wrong shape; rendering
// must not panic and must still produce the element's frame: a heading's
// "# ", a code fence, a table's pipes, a chart's or an image's label, a
// formula's dollars, a link's brackets, a separator's rule, and for the
// categories without content rules their "[category: summary]".
func TestRenderUntypedContent(t *testing.T) {
	junk := []any{nil, 1.5, -3, "s", true, []any{nil, map[string]any{"k": 1}}, map[string]any{"x": []any{}}, [][]string{{"a"}}}
	keys := []string{"level", "text", "headers", "rows", "items", "ordered", "start", "language", "code", "title",
		"data_summary", "url", "alt", "description", "expression"}
	lines := func(s string, ok func(string) bool) bool {
		for _, l := range strings.Split(s, "\n") {
			if !ok(l) {
				return false
			}
		}
		return true
	}
	label := func(c Category) func(md, txt string) bool {
		return func(md, txt string) bool { return md == "["+string(c)+": sum]" && txt == string(c)+": sum" }
	}
	frames := map[Category]func(md, txt string) bool{
		Text:    func(md, txt string) bool { return !strings.Contains(md, "\x00") },
		Heading: func(md, txt string) bool { return strings.HasPrefix(md, "# ") && !strings.Contains(md, "\n") },
		List: func(md, txt string) bool {
			return lines(md, func(l string) bool { return l == "" || strings.HasPrefix(l, "- ") }) &&
				lines(txt, func(l string) bool { return l == "" || strings.HasPrefix(l, "• ") })
		},
		Code: func(md, txt string) bool { return strings.HasPrefix(md, "```") && strings.HasSuffix(md, "\n```") },
		Table: func(md, txt string) bool {
			return lines(md, func(l string) bool { return l == "" || strings.HasPrefix(l, "|") && strings.HasSuffix(l, "|") })
		},
		Chart: func(md, txt string) bool {
			return strings.HasPrefix(md, "[图表: ") && strings.HasPrefix(txt, "Chart: ")
		},
		Image: func(md, txt string) bool {
			return (strings.HasPrefix(md, "![") || strings.HasPrefix(md, "[图片: ")) && strings.HasPrefix(txt, "Image: ")
		},
		Formula: func(md, txt string) bool { return strings.HasPrefix(md, "$ ") && strings.HasSuffix(md, " $") },
		Link: func(md, txt string) bool {
			return strings.HasPrefix(md, "[") && strings.Contains(md, "](") && strings.HasSuffix(md, ")")
		},
		Separator: func(md, txt string) bool { return md == "---" && txt == "----" },
	}
	frames[PivotTable] = frames[Table]
	for _, c := range Categories() {
		frame := frames[c]
		if frame == nil {
			frame = label(c)
		}
		for _, j := range junk {
			content := map[string]any{}
			for _, k := range keys {
				content[k] = j
			}
			e := protocol.DPEElementDetail{Category: string(c), Summary: "sum", Content: content}
			if md, txt := RenderElementMarkdown(e), RenderElementText(e); !frame(md, txt) {
				t.Errorf("%s with every key %#v: no frame in markdown %q, text %q", c, j, md, txt)
			}
		}
	}
}

func BenchmarkRenderTable1000(b *testing.B) {
	rows := make([]any, 1000)
	for i := range rows {
		rows[i] = []any{"row", float64(i), "some text | with pipe", "2026-01-01"}
	}
	p := protocol.DPEPage{Elements: []protocol.DPEElementDetail{{Category: "table",
		Content: map[string]any{"headers": []any{"a", "b", "c", "d"}, "rows": rows}}}}
	b.ReportAllocs()
	for b.Loop() {
		_ = RenderPageMarkdown(p)
	}
}

// FuzzRenderElement renders elements decoded from arbitrary JSON, as a
// client receives them from an untrusted server: no input may panic.
func FuzzRenderElement(f *testing.F) {
	for _, s := range []string{
		`{"category":"table","content":{"headers":["a"],"rows":[["1","2"],"x",null]}}`,
		`{"category":"list","content":{"ordered":true,"start":1e300,"items":[1,[2],{"a":3}]}}`,
		`{"category":"code","content":{"code":"` + "```" + `","language":"go"}}`,
		`{"category":"heading","content":{"level":-1e9,"text":null}}`,
		`{"category":"image","content":{"url":"a b","alt":"]["}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var e protocol.DPEElementDetail
		if json.Unmarshal([]byte(raw), &e) != nil {
			return
		}
		_ = RenderElementMarkdown(e)
		_ = RenderElementText(e)
		_ = RenderPageMarkdown(protocol.DPEPage{Elements: []protocol.DPEElementDetail{e, e}})
	})
}
