package render

import (
	"strings"
	"testing"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// tableLines returns the lines of rendered (ANSI-stripped) output that
// belong to a table: those with a column separator or the header rule.
func tableLines(out string) []string {
	var got []string
	for l := range strings.SplitSeq(xansi.Strip(out), "\n") {
		if strings.ContainsAny(l, "│┼") {
			got = append(got, strings.TrimRight(l, " "))
		}
	}
	return got
}

// endCol is the screen column just after the last occurrence of s in l.
func endCol(l, s string) int {
	i := strings.LastIndex(l, s)
	if i < 0 {
		return -1
	}
	return xansi.StringWidth(l[:i+len(s)])
}

// startCol is the screen column of the first occurrence of s in l.
func startCol(l, s string) int {
	i := strings.Index(l, s)
	if i < 0 {
		return -1
	}
	return xansi.StringWidth(l[:i])
}

func TestTableKeepsItsNaturalWidthAndAlignment(t *testing.T) {
	md := "Before.\n\n" +
		"| Name | Amount | Mid |\n" +
		"|:-----|-------:|:---:|\n" +
		"| a | 1 | x |\n" +
		"| bbbb | 22,333 | yyyyy |\n\n" +
		"After."
	for _, style := range []string{"dark", "light", "notty"} {
		out := Markdown(md, 100, style)
		lines := tableLines(out)
		if style == "notty" { // ASCII separators
			lines = nil
			for l := range strings.SplitSeq(xansi.Strip(out), "\n") {
				if strings.Contains(l, "|") {
					lines = append(lines, strings.TrimRight(l, " "))
				}
			}
		}
		if len(lines) != 4 {
			t.Fatalf("%s: want header, rule and 2 rows, got %q in\n%s", style, lines, xansi.Strip(out))
		}
		// Natural width: the widest cells plus padding and separators,
		// not the 100 columns of the view.
		for _, l := range lines {
			if w := xansi.StringWidth(l); w > 30 {
				t.Errorf("%s: table line %q is %d wide: the table is stretched", style, l, w)
			}
		}
		head, r1, r2 := lines[0], lines[2], lines[3]
		// Right-aligned column: the numbers end where the header ends.
		if e := endCol(head, "Amount"); endCol(r1, "1") != e || endCol(r2, "22,333") != e {
			t.Errorf("%s: Amount is not right-aligned:\n%s", style, strings.Join(lines, "\n"))
		}
		// Left-aligned column: cells start where the header starts.
		if s := startCol(head, "Name"); startCol(r1, "a") != s || startCol(r2, "bbbb") != s {
			t.Errorf("%s: Name is not left-aligned:\n%s", style, strings.Join(lines, "\n"))
		}
		// Centred column: "x" sits in the middle of "yyyyy".
		if startCol(r1, "x") != startCol(r2, "yyyyy")+2 {
			t.Errorf("%s: Mid is not centred:\n%s", style, strings.Join(lines, "\n"))
		}
		plain := xansi.Strip(out)
		if !strings.Contains(plain, "Before.") || !strings.Contains(plain, "After.") {
			t.Errorf("%s: the text around the table is lost:\n%s", style, plain)
		}
		// The table starts at the document's margin, like the text.
		if startCol(head, "Name") != startCol(plainLine(plain, "Before."), "Before.")+1 {
			t.Errorf("%s: table not aligned with the text margin:\n%s", style, plain)
		}
	}
}

func plainLine(s, sub string) string {
	for l := range strings.SplitSeq(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

func TestWideTableWrapsToTheView(t *testing.T) {
	long := strings.Repeat("word ", 30)
	md := "| k | text |\n|---|---|\n| one | " + long + "|\n| two | short |\n"
	const width = 40
	out := xansi.Strip(Markdown(md, width, "dark"))
	for l := range strings.SplitSeq(out, "\n") {
		if w := xansi.StringWidth(strings.TrimRight(l, " ")); w > width {
			t.Errorf("line %q is %d wide, view is %d", l, w, width)
		}
	}
	if n := strings.Count(out, "word"); n != 30 {
		t.Errorf("a wrapped cell lost words: %d of 30 left:\n%s", n, out)
	}
	if !strings.Contains(out, "two") || !strings.Contains(out, "short") {
		t.Errorf("rows lost:\n%s", out)
	}
}

func TestTableCellsKeepInlineMarkdownAndLineBreaks(t *testing.T) {
	md := "| a | b |\n|---|---|\n| **bold** `code` | first<br>second |\n"
	out := xansi.Strip(Markdown(md, 80, "dark"))
	lines := tableLines(out)
	if len(lines) != 4 {
		t.Fatalf("want the <br> cell on two lines (4 table lines), got %q", lines)
	}
	if !strings.Contains(lines[2], "bold") || !strings.Contains(lines[2], "code") || !strings.Contains(lines[2], "first") {
		t.Errorf("first row = %q", lines[2])
	}
	if !strings.Contains(lines[3], "second") || strings.Contains(out, "<br>") || strings.Contains(out, "**") {
		t.Errorf("cell markup shown raw or break lost:\n%s", out)
	}
	// Styles survive inside cells (bold).
	styled := Markdown(md, 80, "dark")
	if !strings.Contains(styled, "1mbold") && !strings.Contains(styled, ";1mbold") {
		t.Errorf("bold cell text is not bold: %q", styled)
	}
}

func TestTableInQuoteAndListItem(t *testing.T) {
	md := "> | q | r |\n> |---|---|\n> | 1 | 2 |\n\n- item\n\n    | in | list |\n    |----|------|\n    | a  | b    |\n"
	out := xansi.Strip(Markdown(md, 60, "dark"))
	for l := range strings.SplitSeq(out, "\n") {
		if strings.Contains(l, " q ") || strings.Contains(l, " 1 ") {
			if !strings.HasPrefix(strings.TrimLeft(l, " "), "│") {
				t.Errorf("a quoted table line lost its quote bar: %q\n%s", l, out)
			}
		}
		if strings.Contains(l, "in") && strings.Contains(l, "list") && strings.Contains(l, "item") {
			t.Errorf("the table is glued to its list item's text: %q", l)
		}
	}
	if !strings.Contains(out, "item") || !strings.Contains(out, " in ") {
		t.Errorf("content lost:\n%s", out)
	}
	if strings.Contains(out, "\ue000") {
		t.Errorf("a placeholder leaked:\n%q", out)
	}
}

// TestTablePlaceholderCannotCollide: a document that contains the
// placeholder's text shows it as text and still gets its table.
func TestTablePlaceholderCannotCollide(t *testing.T) {
	md := "\ue000t0\ue001 literal\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
	out := xansi.Strip(Markdown(md, 60, "dark"))
	if !strings.Contains(out, "\ue000t0\ue001 literal") {
		t.Errorf("the document's own text changed:\n%q", out)
	}
	if len(tableLines(out)) != 3 {
		t.Errorf("table lost:\n%s", out)
	}
}

// TestPlainCellsLookLikeGlamourText: the fast path for plain cells gives
// the same bytes as glamour's render of the same text.
func TestPlainCellsLookLikeGlamourText(t *testing.T) {
	for _, style := range []string{"dark", "light", "notty"} {
		cfg := *styles.DefaultStyles[style]
		d := &mdDocument{cfg: cfg, opts: ansi.Options{WordWrap: 80, Styles: cfg}}
		cs, err := d.cellRenderer()
		if err != nil {
			t.Fatal(err)
		}
		src := []byte("| h |\n|---|\n| a &amp; b 1,250 |\n")
		gm := goldmark.New(goldmark.WithExtensions(extension.GFM))
		doc := gm.Parser().Parse(text.NewReader(src))
		var cell gast.Node
		_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
			if c, ok := n.(*east.TableCell); ok && entering {
				cell = c // the last one: the body cell
			}
			return gast.WalkContinue, nil
		})
		fast, ok := cs.plain(cell, src)
		if !ok && style != "notty" {
			t.Fatalf("%s: a plain cell takes the slow path", style)
		}
		slow, err := renderCell(cell, src, &cellStyle{r: cs.r})
		if err != nil {
			t.Fatal(err)
		}
		// glamour styles each text node on its own: the same style, run
		// after run.
		if merged := strings.ReplaceAll(slow, cs.end+cs.open, ""); ok && fast != merged {
			t.Errorf("%s: fast %q, glamour %q", style, fast, slow)
		}
		if !strings.Contains(xansi.Strip(slow), "a & b 1,250") {
			t.Errorf("%s: cell text %q", style, slow)
		}
	}
}

// Outside tables the browser renders exactly what glamour's own renderer
// does: task lists, strikethrough, definition lists, autolinks, HTML,
// quotes and code come out the same.
func TestMarkdownWithoutTablesIsGlamours(t *testing.T) {
	md := "# Title\n\n- [ ] todo\n- [x] done\n\n~~gone~~ and *em* **strong** `code` <https://go.dev> www.example.com\n\n" +
		"term\n: definition\n\n> quoted\n> > nested\n\n1. one\n   1. nested\n2. two\n\n```go\nfunc main() {}\n```\n\n" +
		// Code blocks whose lexer chroma finds by name, by guessing from
		// the code (a shebang, XML), or not at all; an indented block.
		"```\n#!/bin/bash\necho \"$HOME\" | wc -c\n```\n\n```\n<?xml version=\"1.0\"?>\n<a b=\"c\">d</a>\n```\n\n" +
		"```nosuchlanguage\nx := 1 // note\n```\n\n```\nplain words, no language\n```\n\n    indented := code\n    return\n\n<div>html block</div>\n\n---\n\nText with [a link](https://x.example/a \"t\") and ![img](a.png).\n"
	for _, style := range []string{"dark", "light", "notty"} {
		r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(80),
			glamour.WithPreservedNewLines(), glamour.WithBaseURL(unresolvedBase))
		if err != nil {
			t.Fatal(err)
		}
		want, err := r.Render(md)
		if err != nil {
			t.Fatal(err)
		}
		got, err := renderGlamour(md, 80, *styles.DefaultStyles[style])
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: differs from glamour:\n--- glamour\n%s\n--- ours\n%s", style, xansi.Strip(want), xansi.Strip(got))
		}
	}
}

// A link in a cell shows its text, not its URL (which would widen the
// column; the links picker has it); an image shows its alt text.
func TestTableCellLinksShowTheirText(t *testing.T) {
	md := "| Entry | Section |\n|---|---|\n| [calling convention](Introduction.html#index-calling-convention): | [![logo](l.png) The Basics](The-Basics.html) |\n"
	out := xansi.Strip(Markdown(md, 100, "dark"))
	lines := tableLines(out)
	if len(lines) != 3 {
		t.Fatalf("table lines %q in\n%s", lines, out)
	}
	if !strings.Contains(lines[2], "calling convention:") || !strings.Contains(lines[2], "logo The Basics") {
		t.Errorf("cell text lost: %q", lines[2])
	}
	if strings.Contains(out, "Introduction.html") || strings.Contains(out, "l.png") || strings.Contains(out, "The-Basics.html") {
		t.Errorf("a URL is shown in the table:\n%s", out)
	}
}
