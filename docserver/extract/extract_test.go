package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/dpe"
)

const corpus = "../../testdata/corpus"

func parseCorpus(t *testing.T, rel string) *Document {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpus, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Parse(context.Background(), Source{Name: rel, Data: data}, Options{})
	if err != nil {
		t.Fatalf("parse %s: %v", rel, err)
	}
	return doc
}

// find returns the first element of a category on a page.
func find(t *testing.T, doc *Document, page int, cat dpe.Category) Element {
	t.Helper()
	if page >= len(doc.Pages) {
		t.Fatalf("page %d missing: document has %d pages", page, len(doc.Pages))
	}
	for _, e := range doc.Pages[page].Elements {
		if e.Category == cat {
			return e
		}
	}
	t.Fatalf("no %s element on page %d: %+v", cat, page, doc.Pages[page].Elements)
	return Element{}
}

func pageTitles(doc *Document) []string {
	var out []string
	for _, p := range doc.Pages {
		out = append(out, p.Title)
	}
	return out
}

func TestFormats(t *testing.T) {
	tests := []struct {
		file     string
		title    string
		summary  string
		keywords []string
		pages    []string
		check    func(t *testing.T, d *Document)
	}{
		{
			file: "reports/q3-report.md", title: "Q3 Operations Report",
			summary:  "Revenue, costs and hiring for the third quarter of 2026.",
			keywords: []string{"operations", "revenue", "q3"},
			pages:    []string{"Q3 Operations Report", "Revenue", "Costs", "Hiring"},
			check: func(t *testing.T, d *Document) {
				tbl := find(t, d, 1, dpe.Table)
				if got := tbl.Content["headers"]; !reflect.DeepEqual(got, []string{"Month", "Revenue (k$)", "Growth"}) {
					t.Errorf("headers = %v", got)
				}
				if rows := tbl.Content["rows"].([][]string); len(rows) != 3 || rows[2][0] != "September" {
					t.Errorf("rows = %v", rows)
				}
				if got := find(t, d, 1, dpe.Link).Content["url"]; got != "https://example.com/finance" {
					t.Errorf("link url = %v", got)
				}
				img := find(t, d, 1, dpe.Image)
				if img.Content["url"] != "charts/revenue.png" || img.Content["alt"] != "Revenue by month" {
					t.Errorf("image = %v", img.Content)
				}
				lst := find(t, d, 2, dpe.List)
				if lst.Content["ordered"] != true || lst.Content["start"] != 1 || len(lst.Content["items"].([]string)) != 3 {
					t.Errorf("ordered list = %v", lst.Content)
				}
				hl := find(t, d, 3, dpe.List)
				hiring := hl.Content["items"].([]string)
				want := []string{"Engineering: 4 new hires", "two backend", "two frontend", "[x] Sales: 2 new hires", "[ ] Support: position open"}
				if !reflect.DeepEqual(hiring, want) {
					t.Errorf("nested/task list = %q, want %q", hiring, want)
				}
				if lv := hl.Content["levels"]; !reflect.DeepEqual(lv, []int{0, 1, 1, 0, 0}) {
					t.Errorf("levels = %v", lv)
				}
				code := find(t, d, 3, dpe.Code)
				if code.Content["language"] != "python" || !strings.Contains(code.Content["code"].(string), "def growth") {
					t.Errorf("code = %v", code.Content)
				}
				find(t, d, 3, dpe.Separator)
			},
		},
		{
			file: "notes/meeting.txt", title: "Weekly sync, 12 January",
			summary: "Attendees: Ana, Bo, Chen. The agenda covered the release, the budget and the office move.",
			pages:   []string{"Lines 1–10"},
		},
		{
			file: "src/wordfreq.go", title: "wordfreq.go",
			summary: "Package wordfreq counts word frequencies in text. It is a small sample program for the document server's corpus.",
			pages:   []string{"Lines 1–35"},
			check: func(t *testing.T, d *Document) {
				c := find(t, d, 0, dpe.Code)
				if c.Content["language"] != "go" || !strings.HasPrefix(c.Content["code"].(string), "// Package wordfreq") {
					t.Errorf("code = %v", c.Content["language"])
				}
			},
		},
		{
			file: "data/sales.csv", title: "sales",
			summary:  "CSV table with 5 columns: order_id, region, product, quantity, unit_price",
			keywords: []string{"order_id", "region", "product", "quantity", "unit_price"},
			pages:    []string{"Rows 1–200", "Rows 201–400", "Rows 401–450"},
			check: func(t *testing.T, d *Document) {
				tbl := find(t, d, 1, dpe.Table)
				rows := tbl.Content["rows"].([][]string)
				if len(rows) != 200 || rows[0][0] != "1201" {
					t.Errorf("page 1 rows: %d, first %v", len(rows), rows[0])
				}
				if tbl.Metadata["source_range"] != "A202:E401" || tbl.Metadata["header_range"] != "A1:E1" {
					t.Errorf("metadata = %v", tbl.Metadata)
				}
				if tbl.Detail["total_rows"] != 200 || tbl.Detail["total_columns"] != 5 {
					t.Errorf("detail = %v", tbl.Detail)
				}
				if got := find(t, d, 0, dpe.Table).Metadata["source_range"]; got != "A1:E201" {
					t.Errorf("first slice range = %v", got)
				}
				// A quoted field with a comma stays one cell.
				if rows[1][2] != "Gizmo, deluxe" && rows[0][2] != "Gizmo, deluxe" {
					t.Errorf("quoted field split: %v %v", rows[0], rows[1])
				}
			},
		},
		{
			file: "data/inventory.tsv", title: "inventory",
			summary: "TSV table with 4 columns: sku, item, stock, warehouse",
			pages:   []string{"Rows 1–5"},
		},
		{
			file: "reports/budget.xlsx", title: "Budget 2026",
			summary:  "Quarterly revenue, cost and margin, with the staff list.",
			keywords: []string{"budget", "finance"},
			pages:    []string{"Summary", "Staff"},
			check: func(t *testing.T, d *Document) {
				tbl := find(t, d, 0, dpe.Table)
				if tbl.Metadata["has_formulas"] != true || tbl.Metadata["source_range"] != "A1:D7" {
					t.Errorf("summary table metadata = %v", tbl.Metadata)
				}
				fx := find(t, d, 0, dpe.Formula)
				if fx.Content["cell"] != "D2" || fx.Content["expression"] != "=B2-C2" {
					t.Errorf("formula = %v", fx.Content)
				}
				ch := find(t, d, 0, dpe.Chart)
				if ch.Content["chart_type"] != "column" || ch.Content["title"] != "Revenue by quarter" {
					t.Errorf("chart = %v", ch.Content)
				}
				staff := find(t, d, 1, dpe.Table)
				if staff.Metadata["source_range"] != "B3:D6" || staff.Metadata["has_formulas"] != false {
					t.Errorf("staff metadata = %v", staff.Metadata)
				}
			},
		},
		{
			file: "reports/handbook.pdf", title: "Employee Handbook",
			summary:  "Policies for new employees: hours, leave and equipment.",
			keywords: []string{"handbook", "policy"},
			pages:    []string{"Employee Handbook", "Working hours", "Leave and equipment"},
			check: func(t *testing.T, d *Document) {
				if h := find(t, d, 1, dpe.Heading); h.Content["text"] != "Working hours" || h.Content["level"] != 1 {
					t.Errorf("heading = %v", h.Content)
				}
				if txt := find(t, d, 2, dpe.Text).Content["text"]; txt != "Everyone has 25 days of paid leave a year." {
					t.Errorf("text = %q", txt)
				}
			},
		},
		{
			file: "guides/onboarding.docx", title: "Onboarding Guide",
			summary:  "First steps for new team members: accounts, contacts and links.",
			keywords: []string{"onboarding", "guide"},
			pages:    []string{"Onboarding Guide", "Contacts", "Appendix"},
			check: func(t *testing.T, d *Document) {
				var lists []Element
				for _, e := range d.Pages[0].Elements {
					if e.Category == dpe.List {
						lists = append(lists, e)
					}
				}
				if len(lists) != 2 || lists[0].Content["ordered"] != false || lists[1].Content["ordered"] != true {
					t.Fatalf("lists = %+v", lists)
				}
				if items := lists[1].Content["items"].([]string); items[2] != "Read the handbook" {
					t.Errorf("numbered items = %v", items)
				}
				tbl := find(t, d, 1, dpe.Table)
				if !reflect.DeepEqual(tbl.Content["headers"], []string{"Topic", "Person", "Channel"}) {
					t.Errorf("table = %v", tbl.Content)
				}
			},
		},
		{
			file: "guides/roadmap.pptx", title: "Product Roadmap",
			summary:  "What ships in 2026, quarter by quarter.",
			keywords: []string{"roadmap", "product"},
			pages:    []string{"Product Roadmap 2026", "Goals", "Timeline", "Growth"},
			check: func(t *testing.T, d *Document) {
				if items := find(t, d, 1, dpe.List).Content["items"].([]string); len(items) != 3 {
					t.Errorf("bullets = %v", items)
				}
				if n := find(t, d, 1, dpe.Annotation).Content["text"]; n != "Stress the mobile launch date." {
					t.Errorf("notes = %v", n)
				}
				if rows := find(t, d, 2, dpe.Table).Content["rows"].([][]string); len(rows) != 3 || rows[1][1] != "Launch" {
					t.Errorf("table rows = %v", rows)
				}
				ch := find(t, d, 3, dpe.Chart)
				if ch.Content["chart_type"] != "line" || ch.Content["title"] != "Monthly active users" ||
					!strings.Contains(ch.Content["data_summary"].(string), "Users (k)") {
					t.Errorf("chart = %v", ch.Content)
				}
			},
		},
		{
			file: "notes/中文笔记.md", title: "项目周报",
			summary: "本周完成了文档服务器的第一版。下周计划补充测试和性能基准。",
			pages:   []string{"项目周报", "风险"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			d := parseCorpus(t, tt.file)
			if d.Title != tt.title {
				t.Errorf("title = %q, want %q", d.Title, tt.title)
			}
			if d.Summary != tt.summary {
				t.Errorf("summary = %q, want %q", d.Summary, tt.summary)
			}
			if len([]rune(d.Summary)) > SummaryChars {
				t.Errorf("summary longer than %d runes", SummaryChars)
			}
			if tt.keywords != nil && !reflect.DeepEqual(d.Keywords, tt.keywords) {
				t.Errorf("keywords = %q, want %q", d.Keywords, tt.keywords)
			}
			if got := pageTitles(d); !reflect.DeepEqual(got, tt.pages) {
				t.Errorf("pages = %q, want %q", got, tt.pages)
			}
			checkIDs(t, d)
			if tt.check != nil {
				tt.check(t, d)
			}
			// The cheap peek finds the same title and summary as the parse.
			f, err := os.Open(filepath.Join(corpus, filepath.FromSlash(tt.file)))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			st, _ := f.Stat()
			m, err := Peek(context.Background(), tt.file, f, st.Size(), Options{})
			if err != nil {
				t.Fatalf("peek: %v", err)
			}
			if m.Title != d.Title || m.Summary != d.Summary {
				t.Errorf("peek = %+v, parse = {%q %q}", m, d.Title, d.Summary)
			}
		})
	}
}

// checkIDs checks that element IDs are unique, carry their page, and that
// every content uses the keys of its category.
func checkIDs(t *testing.T, d *Document) {
	t.Helper()
	seen := map[string]bool{}
	for pi, p := range d.Pages {
		for _, e := range p.Elements {
			if seen[e.ID] {
				t.Errorf("duplicate element id %s", e.ID)
			}
			seen[e.ID] = true
			got, gotPage, ok := d.FindElement(e.ID)
			if !ok || gotPage != pi || got.ID != e.ID {
				t.Errorf("FindElement(%s) = page %d, %v", e.ID, gotPage, ok)
			}
			if !e.Category.Valid() {
				t.Errorf("%s: invalid category %q", e.ID, e.Category)
			}
			if e.Summary == "" {
				t.Errorf("%s: empty summary", e.ID)
			}
		}
	}
}

func TestIDsStableAcrossParses(t *testing.T) {
	for _, f := range []string{"reports/q3-report.md", "guides/onboarding.docx", "reports/budget.xlsx"} {
		a, b := parseCorpus(t, f), parseCorpus(t, f)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two parses of the same bytes differ", f)
		}
	}
}

func TestHostileTextIsCleaned(t *testing.T) {
	d := parseCorpus(t, "reports/hostile-text.md")
	all := d.Title
	for _, p := range d.Pages {
		for _, e := range p.Elements {
			all += " " + e.Summary
			for _, v := range e.Content {
				if s, ok := v.(string); ok {
					all += " " + s
				}
			}
		}
	}
	for _, bad := range []string{"\x1b", "\a", "\r", "\u009b"} {
		if strings.Contains(all, bad) {
			t.Errorf("control %q survived: %q", bad, all)
		}
	}
	if !strings.Contains(all, "carriage\nreturn") && !strings.Contains(all, "carriage return") {
		t.Errorf("a lone CR should end a line: %q", all)
	}
}

func TestMarkdownSplitsLongSections(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Long\n\n")
	for i := 0; i < 40; i++ {
		b.WriteString(strings.Repeat("word ", 80) + "\n\n")
	}
	d, err := Parse(context.Background(), Source{Name: "long.md", Data: []byte(b.String())}, Options{PageChars: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Pages) < 8 {
		t.Fatalf("pages = %d, want the section split by size", len(d.Pages))
	}
	if d.Pages[1].Title != "Long (continued)" {
		t.Errorf("continuation title = %q", d.Pages[1].Title)
	}
	for i, p := range d.Pages {
		size := 0
		for _, e := range p.Elements {
			size += len(e.Content["text"].(string))
		}
		if size > 2000 && len(p.Elements) > 1 {
			t.Errorf("page %d holds %d bytes", i, size)
		}
	}
}

func TestMarkdownSplitsAtH1WhenSeveral(t *testing.T) {
	src := "intro text\n\n# One\n\n## a\n\n# Two\n\ntext\n"
	d, err := Parse(context.Background(), Source{Name: "x.md", Data: []byte(src)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := pageTitles(d); !reflect.DeepEqual(got, []string{"Page 1", "One", "Two"}) {
		t.Errorf("pages = %q", got)
	}
}

func TestCSVBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b\n")
	for i := 0; i < 1000; i++ {
		b.WriteString("1,2\n")
	}
	d, err := Parse(context.Background(), Source{Name: "x.csv", Data: []byte(b.String())}, Options{MaxRows: 300, TableRowsPerPage: 100})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Truncated || len(d.Pages) != 3 {
		t.Fatalf("truncated=%v pages=%d, want the row bound to cut at 300 rows", d.Truncated, len(d.Pages))
	}
	last := d.Pages[2].Elements[0]
	if last.Metadata["truncated"] != true {
		t.Errorf("last slice metadata = %v", last.Metadata)
	}
}

func TestCorruptFilesAreErrorsNotPanics(t *testing.T) {
	junk := []byte("PK\x03\x04 this is not really a zip file at all")
	var zipBomb bytes.Buffer
	zw := zip.NewWriter(&zipBomb)
	w, _ := zw.Create("word/document.xml")
	w.Write(bytes.Repeat([]byte("<"), 1<<20))
	zw.Close()
	for _, name := range []string{"a.xlsx", "a.docx", "a.pptx", "a.pdf"} {
		for _, data := range [][]byte{nil, junk, zipBomb.Bytes()} {
			_, err := Parse(context.Background(), Source{Name: name, Data: data}, Options{MaxZipEntry: 1 << 16})
			if err == nil {
				t.Errorf("%s (%d bytes): no error", name, len(data))
			}
			_, err = Peek(context.Background(), name, bytes.NewReader(data), int64(len(data)), Options{MaxZipEntry: 1 << 16})
			if err == nil && name != "a.pdf" {
				t.Errorf("peek %s (%d bytes): no error", name, len(data))
			}
		}
	}
}

func TestZipEntryBound(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("word/document.xml")
	w.Write([]byte(`<w:document xmlns:w="x"><w:body>`))
	w.Write(bytes.Repeat([]byte(`<w:p><w:r><w:t>aaaaaaaaaa</w:t></w:r></w:p>`), 100000)) // ~4 MB, compresses to little
	w.Write([]byte(`</w:body></w:document>`))
	zw.Close()
	_, err := Parse(context.Background(), Source{Name: "bomb.docx", Data: buf.Bytes()}, Options{MaxZipEntry: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), "size bound") {
		t.Fatalf("err = %v, want the part size bound", err)
	}
}

func TestKindOf(t *testing.T) {
	for name, want := range map[string]Kind{
		"a.md": KindMarkdown, "b.MARKDOWN": KindMarkdown, "c.txt": KindText, "d.go": KindCode, "Makefile": KindCode,
		"e.csv": KindCSV, "f.tsv": KindTSV, "g.xlsx": KindXLSX, "h.pdf": KindPDF, "i.docx": KindDOCX,
		"j.pptx": KindPPTX, "k.png": KindUnknown, "l": KindUnknown,
		// Plain-text files projects ship without an extension.
		"LICENSE": KindText, "vendor/x/COPYING": KindText, "LICENSE-MIT": KindText, "COPYING3": KindText,
		"README": KindText, "PATENTS": KindText, "AUTHORS": KindText, "NOTICE": KindText,
		"license.md": KindMarkdown, "LICENSE.png": KindUnknown, "licenses": KindText,
	} {
		if got, _ := KindOf(name); got != want {
			t.Errorf("KindOf(%q) = %v, want %v", name, got, want)
		}
	}
	if _, lang := KindOf("x.py"); lang != "python" {
		t.Errorf("language of .py = %q", lang)
	}
	for name, want := range map[string]string{
		"A/B.XLSX": "xlsx", "Makefile": "makefile", "GNUmakefile": "makefile", "Dockerfile": "dockerfile",
		"LICENSE": "license", "COPYING3": "license", "LICENSE-MIT": "license", "LICENSE.md": "md",
		"README": "text", "AUTHORS": "text", "a": "text", "fuzz/0cb1786dee0f090b": "text", "GPL-3": "text",
	} {
		if got := FileType(name); got != want {
			t.Errorf("FileType(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestFirstSentences(t *testing.T) {
	for in, want := range map[string]string{
		"One. Two. Three.":          "One. Two. Three.",
		"":                          "",
		"版本 1.2 已发布。后续计划。":          "版本 1.2 已发布。后续计划。",
		strings.Repeat("long ", 60): strings.TrimSpace(strings.Repeat("long ", 31)) + "…",
	} {
		if got := firstSentences(in, SummaryChars); got != want {
			t.Errorf("firstSentences(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzMarkdown(f *testing.F) {
	f.Add([]byte("# T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] item\n  - nested\n\n```go\ncode\n```\n"))
	f.Add([]byte("---\ntitle: x\nkeywords:\n - a\n---\n> quote\n\n![img](u)\n[l](v)\n<div>html</div>\n"))
	f.Add([]byte(strings.Repeat(">", 500) + " deep"))
	f.Add([]byte(strings.Repeat("- ", 300) + "x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := Options{PageChars: 500, MaxPages: 50, MaxElements: 50}
		d, err := Parse(context.Background(), Source{Name: "f.md", Data: data}, opts)
		if err != nil {
			return
		}
		checkBounded(t, d, opts, len(data))
	})
}

func FuzzCSV(f *testing.F) {
	f.Add([]byte("a,b\n1,2\n"), false)
	f.Add([]byte("\"unterminated,x\n1,\"2\"\"3\"\n"), false)
	f.Add([]byte("a\tb\n\t\t\t\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, tsv bool) {
		name := "f.csv"
		if tsv {
			name = "f.tsv"
		}
		opts := Options{TableRowsPerPage: 10, MaxRows: 100, MaxColumns: 20, MaxCellChars: 50, MaxPages: 20}
		d, err := Parse(context.Background(), Source{Name: name, Data: data}, opts)
		if err != nil {
			return
		}
		checkBounded(t, d, opts, len(data))
		for _, p := range d.Pages {
			for _, e := range p.Elements {
				rows := e.Content["rows"].([][]string)
				if len(rows) > 10 {
					t.Fatalf("%d rows on one page", len(rows))
				}
				for _, r := range rows {
					if len(r) > 20 {
						t.Fatalf("%d columns", len(r))
					}
					for _, c := range r {
						if len([]rune(c)) > 50 {
							t.Fatalf("cell of %d runes", len([]rune(c)))
						}
					}
				}
			}
		}
	})
}

// checkBounded checks a fuzzed parse: bounds held, IDs unique, output no
// larger than a small multiple of the input, no control characters.
func checkBounded(t *testing.T, d *Document, opts Options, inputLen int) {
	t.Helper()
	if len(d.Pages) > opts.MaxPages {
		t.Fatalf("%d pages > %d", len(d.Pages), opts.MaxPages)
	}
	total := 0
	seen := map[string]bool{}
	for _, p := range d.Pages {
		for _, e := range p.Elements {
			if seen[e.ID] {
				t.Fatalf("duplicate id %s", e.ID)
			}
			seen[e.ID] = true
			for _, v := range e.Content {
				if s, ok := v.(string); ok {
					total += len(s)
					if strings.ContainsAny(s, "\x1b\x00\r") {
						t.Fatalf("control character in %q", s)
					}
				}
			}
		}
	}
	if total > 4*inputLen+1024 {
		t.Fatalf("output text %d bytes for %d input bytes", total, inputLen)
	}
}
