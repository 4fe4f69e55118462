package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/smcp-browse/smcp-browse/protocol"
)

func catalogOf(n int) *protocol.GetFinderRet {
	ret := &protocol.GetFinderRet{TotalCount: n * 3, ReqID: "r"}
	for i := range n {
		title := fmt.Sprintf("Report %d", i)
		if i%3 == 0 {
			title = fmt.Sprintf("年度报告 %d", i)
		}
		ret.Documents = append(ret.Documents, protocol.DPEDocumentSummary{
			DocRef: fmt.Sprintf("doc-%d", i), URI: fmt.Sprintf("dpe://h/doc-%d", i), FileType: "md",
			Title: title, PageCount: i % 17, Server: "docs", LastModified: "2026-01-15T08:30:00Z",
		})
	}
	return ret
}

func TestPrintCatalog(t *testing.T) {
	ret := catalogOf(4)
	ret.Documents[1].Title = "Bad \x1b[31mred\x1b[0m\ttitle\nsecond line"
	ret.Documents[2].LastModified = "yesterday"
	ret.Documents[3].Server = ""
	ret.Documents[0].Path = "reports/2026/" + strings.Repeat("q", 60) + "/main.go"
	ret.Documents[2].Path = "docs/main.go"
	ret.Documents[2].Pending, ret.Documents[2].PageCount = true, 0
	var out, errOut bytes.Buffer
	printCatalog(&out, &errOut, lsAnswer{ret: ret}, 10, time.UTC, true)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines:\n%s", len(lines), out.String())
	}
	uri := strings.Index(lines[0], "URI")
	for _, l := range lines[1:] {
		if i := strings.Index(l, "dpe://"); ansi.StringWidth(l[:i]) != uri {
			t.Errorf("not aligned: %q", l)
		}
	}
	if strings.ContainsAny(out.String(), "\x1b\t") {
		t.Errorf("control characters in the table: %q", out.String())
	}
	// The path tells files of one name apart; a long one is cut in the
	// middle, keeping its top folder and its file name (issue 23.4).
	if !strings.Contains(lines[1], " reports/…/main.go  md") {
		t.Errorf("long path: %q", lines[1])
	}
	if !strings.Contains(lines[3], " docs/main.go ") {
		t.Errorf("path: %q", lines[3])
	}
	if !strings.Contains(lines[3], " …  ") || strings.Contains(lines[3], " 0  ") {
		t.Errorf("a pending entry's pages: %q", lines[3])
	}
	if !strings.Contains(lines[2], "Bad red title second line  -") {
		t.Errorf("title not cleaned to one line: %q", lines[2])
	}
	if !strings.Contains(lines[3], "yesterday") || !strings.Contains(lines[4], " - ") {
		t.Errorf("odd time or empty server: %q / %q", lines[3], lines[4])
	}
	if errOut.String() != "11–14 of 12\n" /* offset 10, 4 rows, total 3×4 */ {
		t.Errorf("footer %q", errOut.String())
	}
}

// BenchmarkPrintCatalog formats a 1,000-document page (ls --limit is capped
// at 100 by the Computer; this bounds the cost of formatting from above).
func BenchmarkPrintCatalog(b *testing.B) {
	ret := catalogOf(1000)
	for b.Loop() {
		printCatalog(io.Discard, io.Discard, lsAnswer{ret: ret}, 0, time.UTC, true)
	}
}

// TestPrintCatalogMarksUnreadable: an unreadable document is not a bare
// "0" pages: its PAGES cell is marked and a note under the table says why,
// for a file and for a folder the server cannot open.
func TestPrintCatalogMarksUnreadable(t *testing.T) {
	ret := catalogOf(3)
	ret.Documents[0].Path = "secret.md"
	ret.Documents[0].PageCount = 0
	ret.Documents[0].Unreadable = "permission denied: the document server's user cannot read this file"
	ret.Documents[2].Path, ret.Documents[2].FileType = "private", "folder"
	ret.Documents[2].PageCount = 0
	ret.Documents[2].Unreadable = "permission denied: the document server's user cannot open this\x1b[31m folder"
	var out, errOut bytes.Buffer
	printCatalog(&out, &errOut, lsAnswer{ret: ret}, 0, time.UTC, true)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 7 {
		t.Fatalf("want the table, a blank line and two notes; got %d lines:\n%s", len(lines), out.String())
	}
	for i, want := range []string{"✗", "1", "✗"} {
		f := strings.Fields(lines[i+1]) // …, PAGES, SERVER, MODIFIED (2 fields), URI
		if cell := f[len(f)-5]; cell != want {
			t.Errorf("row %d: PAGES %q, want %q: %q", i+1, cell, want, lines[i+1])
		}
	}
	if lines[4] != "" ||
		lines[5] != "✗ secret.md: permission denied: the document server's user cannot read this file" ||
		lines[6] != "✗ private: permission denied: the document server's user cannot open this folder" {
		t.Errorf("notes:\n%s", strings.Join(lines[4:], "\n"))
	}
}

func TestIndexProgressSaysHowFarAndHowLong(t *testing.T) {
	for _, tc := range []struct {
		ix   protocol.SearchIndexing
		want string
	}{
		{protocol.SearchIndexing{Indexed: 3214, Total: 9580, RemainingMs: 12_300}, "indexing 3,214/9,580 documents, about 12 s left"},
		{protocol.SearchIndexing{Indexed: 0, Total: 11500}, "indexing 0/11,500 documents"},
		{protocol.SearchIndexing{Indexed: 10, Total: 20, RemainingMs: 150_000}, "indexing 10/20 documents, about 3 min left"},
		{protocol.SearchIndexing{}, "opening the index"},
	} {
		if got := indexProgress(&tc.ix); got != tc.want {
			t.Errorf("indexProgress(%+v) = %q, want %q", tc.ix, got, tc.want)
		}
	}
}

// Into a pipe or a file, ls writes titles and paths whole: a script gets
// the path it can open (issue 35.8); on a terminal they are cut.
func TestPrintCatalogWholeWhenNotATerminal(t *testing.T) {
	ret := catalogOf(2)
	long := "reports/2026/" + strings.Repeat("q", 60) + "/main.go"
	ret.Documents[0].Path = long
	ret.Documents[1].Title = strings.Repeat("Title ", 20)
	var out bytes.Buffer
	printCatalog(&out, io.Discard, lsAnswer{ret: ret}, 0, time.UTC, false)
	if !strings.Contains(out.String(), " "+long+" ") || !strings.Contains(out.String(), strings.TrimSpace(ret.Documents[1].Title)) || strings.Contains(out.String(), "…") {
		t.Errorf("a path or title was cut for a pipe:\n%s", out.String())
	}
	out.Reset()
	printCatalog(&out, io.Discard, lsAnswer{ret: ret}, 0, time.UTC, true)
	if strings.Contains(out.String(), long) || !strings.Contains(out.String(), "…") {
		t.Errorf("on a terminal the long path is not cut:\n%s", out.String())
	}
}

// A document cut short has ✂ after its page count and a note with how
// much is served; what each document server skipped is one line on
// stderr (issue 35.4: the cut and the skipped files were silent).
func TestPrintCatalogSaysWhatWasCut(t *testing.T) {
	ret := catalogOf(2)
	ret.Documents[1].Path, ret.Documents[1].PageCount = "big.csv", 500
	ret.Documents[1].Truncated = "kept the first 100,000 of 200,000 rows"
	skipped := map[string]*protocol.SkippedFiles{"h": {Count: 3, Reasons: map[string]int{"binary": 2, "unreadable": 1}, Examples: []string{"a.png"}}}
	var out, errOut bytes.Buffer
	printCatalog(&out, &errOut, lsAnswer{ret: ret, skipped: skipped}, 0, time.UTC, false)
	if !strings.Contains(out.String(), " 500✂ ") || !strings.Contains(out.String(), "\n✂ big.csv: cut short, kept the first 100,000 of 200,000 rows\n") {
		t.Errorf("the cut is not shown:\n%s", out.String())
	}
	if want := "dpe://h: 3 files not served: 2 binary, 1 unreadable (e.g. a.png)\n"; !strings.HasSuffix(errOut.String(), want) {
		t.Errorf("stderr %q, want it to end with %q", errOut.String(), want)
	}
}
