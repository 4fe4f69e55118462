// Command corpusgen writes the small real corpus in testdata/corpus that the
// document server's tests and golden files use: Markdown, text, Go source,
// CSV, TSV, an XLSX workbook (excelize: two sheets, formulas, a chart) and a
// PDF (go-pdf/fpdf: three pages, headings in a larger font). The DOCX and
// PPTX files are written by scripts/gen-corpus-office.py with python-docx
// and python-pptx, so that they come from writers this project did not
// write. Output is deterministic: fixed contents, fixed dates.
//
//	go run ./cmd/corpusgen -out testdata/corpus
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"
	"github.com/xuri/excelize/v2"
)

func main() {
	out := flag.String("out", "testdata/corpus", "directory to write the corpus into")
	flag.Parse()
	if err := generate(*out); err != nil {
		fmt.Fprintln(os.Stderr, "corpusgen:", err)
		os.Exit(1)
	}
}

// fixed is the modification time given to every generated file, so the
// golden files' last_modified never changes.
var fixed = time.Date(2026, 1, 15, 8, 30, 0, 0, time.UTC)

func generate(dir string) error {
	files := map[string]string{
		"README.md":               readme,
		"reports/q3-report.md":    q3Report,
		"notes/meeting.txt":       meetingNotes,
		"src/wordfreq.go":         goSource,
		"data/sales.csv":          salesCSV(),
		"data/inventory.tsv":      inventoryTSV,
		"notes/中文笔记.md":           chineseNotes,
		"reports/hostile-text.md": hostile,
	}
	for name, body := range files {
		if err := write(dir, name, []byte(body)); err != nil {
			return err
		}
	}
	if err := writeXLSX(filepath.Join(dir, "reports/budget.xlsx")); err != nil {
		return err
	}
	if err := writePDF(filepath.Join(dir, "reports/handbook.pdf")); err != nil {
		return err
	}
	return touchAll(dir)
}

func write(dir, name string, data []byte) error {
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

// touchAll gives every file the fixed modification time.
func touchAll(dir string) error {
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, fixed, fixed)
	})
}

const readme = `# Corpus

This folder is a small real corpus for the document server: one file of every
supported format. It is generated; do not edit by hand.
`

const q3Report = `---
title: Q3 Operations Report
keywords: [operations, revenue, q3]
summary: Revenue, costs and hiring for the third quarter of 2026.
---
# Q3 Operations Report

The third quarter closed above plan. Revenue grew 12% over Q2, driven by the
new subscription tier. This report covers revenue, costs and hiring.

## Revenue

| Month | Revenue (k$) | Growth |
|-------|-------------:|-------:|
| July | 1,250 | +4% |
| August | 1,380 | +10% |
| September | 1,420 | +3% |

Details are in the [finance dashboard](https://example.com/finance).

![Revenue by month](charts/revenue.png "Monthly revenue bar chart")

## Costs

1. Cloud hosting rose with traffic.
2. Office rent stayed flat.
3. Travel fell by a third.

> Costs stayed under budget for the second quarter in a row.

## Hiring

- Engineering: 4 new hires
  - two backend
  - two frontend
- [x] Sales: 2 new hires
- [ ] Support: position open

` + "```python\n" + `def growth(prev, cur):
    return (cur - prev) / prev
` + "```\n" + `
---

Next review: October 15.
`

const meetingNotes = `Weekly sync, 12 January

Attendees: Ana, Bo, Chen. The agenda covered the release, the budget and the
office move.

Release: the beta ships on Friday. Bo owns the checklist.

Budget: travel is frozen until March. Chen will send the revised numbers.

Office move: boxes arrive on the 20th.
`

const goSource = `// Package wordfreq counts word frequencies in text. It is a small sample
// program for the document server's corpus.
package wordfreq

import (
	"sort"
	"strings"
)

// Count returns how often each lower-cased word occurs in text.
func Count(text string) map[string]int {
	m := map[string]int{}
	for _, w := range strings.Fields(strings.ToLower(text)) {
		m[w]++
	}
	return m
}

// Top returns the n most frequent words, most frequent first.
func Top(m map[string]int, n int) []string {
	words := make([]string, 0, len(m))
	for w := range m {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		if m[words[i]] != m[words[j]] {
			return m[words[i]] > m[words[j]]
		}
		return words[i] < words[j]
	})
	if len(words) > n {
		words = words[:n]
	}
	return words
}
`

// salesCSV has 450 data rows, so it spans three pages of 200 rows.
func salesCSV() string {
	var b strings.Builder
	b.WriteString("order_id,region,product,quantity,unit_price\n")
	regions := []string{"North", "South", "East", "West"}
	products := []string{"Widget", "Gadget", "Gizmo, deluxe", "Doohickey"}
	for i := 1; i <= 450; i++ {
		p := products[i%len(products)]
		if strings.Contains(p, ",") {
			p = `"` + p + `"`
		}
		fmt.Fprintf(&b, "%d,%s,%s,%d,%d.%02d\n", 1000+i, regions[i%len(regions)], p, 1+i%7, 5+i%20, i%100)
	}
	return b.String()
}

const inventoryTSV = "sku\titem\tstock\twarehouse\n" +
	"A-100\tSteel bolts\t1200\tBerlin\n" +
	"A-101\tCopper wire\t300\tBerlin\n" +
	"B-200\tSolar panel\t42\tLyon\n" +
	"B-201\tInverter\t17\tLyon\n" +
	"C-300\tBattery pack\t85\tTurin\n"

const chineseNotes = `# 项目周报

本周完成了文档服务器的第一版。下周计划补充测试和性能基准。

## 风险

- 大文件解析耗时
- 第三方格式兼容性
`

// hostile carries text that must not reach a terminal raw: an escape
// sequence, a bell, a carriage return and C1 controls.
const hostile = "# Hostile \x1b[31mred\x1b[0m title\n\nA bell \a here, a carriage\rreturn, a C1 \u009b control and a zero\u200bwidth space.\n"

func writeXLSX(path string) error {
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetSheetName("Sheet1", "Summary"); err != nil {
		return err
	}
	rows := [][]any{
		{"Quarter", "Revenue", "Cost", "Margin"},
		{"Q1", 1250, 900, nil},
		{"Q2", 1380, 950, nil},
		{"Q3", 1420, 980, nil},
		{"Q4", 1560, 1010, nil},
	}
	for r, row := range rows {
		for c, v := range row {
			cell, _ := excelize.CoordinatesToCellName(c+1, r+1)
			if v != nil {
				if err := f.SetCellValue("Summary", cell, v); err != nil {
					return err
				}
			}
		}
	}
	for r := 2; r <= 5; r++ {
		if err := f.SetCellFormula("Summary", "D"+strconv.Itoa(r), fmt.Sprintf("B%d-C%d", r, r)); err != nil {
			return err
		}
	}
	if err := f.SetCellValue("Summary", "A7", "Total"); err != nil {
		return err
	}
	if err := f.SetCellFormula("Summary", "B7", "SUM(B2:B5)"); err != nil {
		return err
	}
	if err := f.AddChart("Summary", "F2", &excelize.Chart{
		Type: excelize.Col,
		Series: []excelize.ChartSeries{{
			Name: "Summary!$B$1", Categories: "Summary!$A$2:$A$5", Values: "Summary!$B$2:$B$5",
		}},
		Title: excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: "Revenue by quarter"}}},
	}); err != nil {
		return err
	}
	if _, err := f.NewSheet("Staff"); err != nil {
		return err
	}
	staff := [][]any{{"Name", "Team", "Start"}, {"Ana", "Engineering", "2024-03-01"}, {"Bo", "Sales", "2025-07-15"}, {"Chen", "Support", "2026-01-10"}}
	for r, row := range staff {
		for c, v := range row {
			cell, _ := excelize.CoordinatesToCellName(c+2, r+3) // a used range starting at B3
			if err := f.SetCellValue("Staff", cell, v); err != nil {
				return err
			}
		}
	}
	f.SetDocProps(&excelize.DocProperties{Title: "Budget 2026", Subject: "Quarterly revenue, cost and margin, with the staff list.", Keywords: "budget, finance", Created: fixed.Format(time.RFC3339), Modified: fixed.Format(time.RFC3339)})
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return f.SaveAs(path)
}

func writePDF(path string) error {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCreationDate(fixed)
	pdf.SetModificationDate(fixed)
	pdf.SetTitle("Employee Handbook", false)
	pdf.SetSubject("Policies for new employees: hours, leave and equipment.", false)
	pdf.SetKeywords("handbook, policy", false)
	pages := []struct {
		heading string
		paras   []string
	}{
		{"Employee Handbook", []string{
			"Welcome to the company. This handbook explains how we work.",
			"Read it in your first week and ask your manager about anything unclear.",
		}},
		{"Working hours", []string{
			"Core hours are 10:00 to 16:00. Outside them, plan your own day.",
			"Overtime needs written approval from your manager.",
		}},
		{"Leave and equipment", []string{
			"Everyone has 25 days of paid leave a year.",
			"Laptops are replaced every three years.",
		}},
	}
	for _, pg := range pages {
		pdf.AddPage()
		pdf.SetFont("Helvetica", "B", 20)
		pdf.Cell(0, 12, pg.heading)
		pdf.Ln(16)
		pdf.SetFont("Helvetica", "", 11)
		for _, p := range pg.paras {
			pdf.MultiCell(0, 6, p, "", "L", false)
			pdf.Ln(4)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return pdf.OutputFileAndClose(path)
}
