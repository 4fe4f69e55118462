package extract

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/docserver/internal/hostile"
	"github.com/smcp-browse/smcp-browse/dpe"
)

// allocated runs f and returns the bytes it allocated (all goroutines;
// tests here do not run in parallel).
func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// parseBytes parses data as a file called name.
func parseBytes(ctx context.Context, t *testing.T, name string, data []byte) (*Document, error) {
	t.Helper()
	return Parse(ctx, Source{Name: name, Data: data}, Options{})
}

// Character data split by comments into n pieces was appended piece by
// piece to a string: n²/2 bytes copied (a 6.6 KB .docx held a listing for
// 58 s). Both the body and the core properties (read when listing) must
// be read in linear time, with the text intact.
func TestXMLCharacterDataIsLinear(t *testing.T) {
	const n = 200_000
	for _, inCore := range []bool{false, true} {
		data := hostile.CommentSplitDOCX(n, inCore)
		var doc *Document
		var m Meta
		var err, perr error
		alloc := allocated(func() {
			doc, err = parseBytes(context.Background(), t, "split.docx", data)
			m, perr = Peek(context.Background(), "split.docx", bytes.NewReader(data), int64(len(data)), Options{})
		})
		t.Logf("core=%v: %d-byte docx, %d MiB allocated", inCore, len(data), alloc>>20)
		if err != nil || perr != nil {
			t.Fatalf("core=%v: %v / %v", inCore, err, perr)
		}
		want := strings.Repeat("a", n)
		got := doc.Title
		if !inCore {
			got, _ = doc.Pages[0].Elements[0].Content["text"].(string)
		}
		if got != want && !(inCore && len(got) > 250 && strings.HasPrefix(want, strings.TrimSuffix(got, "…"))) {
			t.Errorf("core=%v: text of %d bytes, want the %d a's", inCore, len(got), n)
		}
		if inCore && m.Title != doc.Title {
			t.Errorf("peeked title differs from parsed one")
		}
		// Linear: a few copies of the 1.6 MB part. Quadratic was 39 GiB.
		if alloc > 256<<20 {
			t.Errorf("core=%v: reading allocated %d MiB", inCore, alloc>>20)
		}
	}
}

// Comments count toward the bound on tokens, so a part of nothing but
// comments is refused like one of too many elements.
func TestXMLCommentsCountTowardTheBound(t *testing.T) {
	sizeTests.Start(t)
	body := strings.Repeat("<!---->", maxXMLTokens+10)
	data := hostile.DOCX(`<w:p><w:r><w:t>x</w:t></w:r></w:p>`+body, "")
	_, err := parseBytes(context.Background(), t, "comments.docx", data)
	if err == nil || !strings.Contains(err.Error(), "tokens") {
		t.Fatalf("a part of %d comments: err = %v", maxXMLTokens+10, err)
	}
}

// Deeply nested Markdown lists made goldmark's block parser do cubic work
// (25 MB of 5,000 indented levels ran past the 60 s parse timeout and
// reached 969 MB) and one line of "- " markers quadratic work (200 KB took
// 28.8 s). The parse stops at a work budget and marks the document
// truncated, within a bounded allocation.
func TestMarkdownNestingIsBounded(t *testing.T) {
	sizeTests.Start(t)
	for name, src := range map[string][]byte{
		"nested.md":  hostile.NestedListMarkdown(2000),
		"markers.md": hostile.ListMarkerMarkdown(100_000),
	} {
		var doc *Document
		var err error
		alloc := allocated(func() { doc, err = parseBytes(context.Background(), t, name, src) })
		t.Logf("%s: %d bytes, %d MiB allocated", name, len(src), alloc>>20)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !doc.Truncated {
			t.Errorf("%s: not marked truncated", name)
		}
		if alloc > 512<<20 {
			t.Errorf("%s: allocated %d MiB", name, alloc>>20)
		}
	}
}

// A parse whose context ends stops: it returns the context's error
// instead of running on (a parse abandoned at its timeout kept a core busy
// for minutes). The watchdog only catches a parse that ignores its
// context.
func TestParseStopsWhenItsDeadlinePasses(t *testing.T) {
	cases := map[string][]byte{
		"nested.md":    hostile.NestedListMarkdown(5000),
		"bomb.docx":    hostile.ParagraphBombDOCX(400_000, 100),
		"inflate.pptx": hostile.InflatingPPTX(20, 60<<20),
	}
	for name, src := range cases {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		done := make(chan error, 1)
		go func() {
			_, err := parseBytes(ctx, t, name, src)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s: err = %v, want the deadline", name, err)
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("%s: parse still running two minutes after its 50 ms deadline", name)
		}
		cancel()
	}
}

// A package of many parts, each under the per-part bound, inflated without
// limit (a 29 MB pptx of 120 parts reached 7 GiB). Its parts now draw on
// one decompression budget: the reader stops when it runs out and marks
// the document truncated.
func TestPackageDecompressionBudget(t *testing.T) {
	sizeTests.Start(t)
	data := hostile.InflatingPPTX(40, 60<<20) // 40 slides of 60 MiB: 2.4 GiB
	var doc *Document
	var err error
	alloc := allocated(func() { doc, err = parseBytes(context.Background(), t, "inflate.pptx", data) })
	t.Logf("%d-byte pptx inflating to 2.4 GiB: %d MiB allocated", len(data), alloc>>20)
	if err != nil {
		t.Fatal(err)
	}
	if !doc.Truncated || len(doc.Pages) >= 40 {
		t.Errorf("truncated %v with %d pages", doc.Truncated, len(doc.Pages))
	}
	if alloc > 2<<30 {
		t.Errorf("allocated %d MiB", alloc>>20)
	}
}

// Memory is bounded by bytes, not counts: 2,000 pages of 100 one-word
// paragraphs (a 26 KB docx) made 200,000 elements. The output budget
// (MaxOutputBytes) cuts the document, marked truncated.
func TestParagraphBombIsBoundedByBytes(t *testing.T) {
	sizeTests.Start(t)
	data := hostile.ParagraphBombDOCX(200_000, 100)
	doc, err := parseBytes(context.Background(), t, "bomb.docx", data)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range doc.Pages {
		n += len(p.Elements)
	}
	t.Logf("%d-byte docx: %d elements, estimated %d MiB", len(data), n, doc.EstimatedBytes()>>20)
	if !doc.Truncated || n >= 200_000 {
		t.Errorf("truncated %v, %d elements", doc.Truncated, n)
	}
	if doc.EstimatedBytes() > 72<<20 {
		t.Errorf("document holds an estimated %d MiB", doc.EstimatedBytes()>>20)
	}
}

// A sheet's formulas were read with excelize's cell getters, which load
// the whole worksheet (a 1M-row sheet took 2.2 GB). Large sheets are now
// streamed, rows and formulas alike.
func TestLargeSheetIsStreamed(t *testing.T) {
	sizeTests.Start(t)
	data := hostile.ManyRowsXLSX(300_000)
	var doc *Document
	var err error
	peak := hostile.PeakHeap(func() { doc, err = parseBytes(context.Background(), t, "rows.xlsx", data) })
	t.Logf("%d-byte xlsx of 300,000 rows: heap peak %d MiB", len(data), peak>>20)
	if err != nil {
		t.Fatal(err)
	}
	formulas := 0
	for _, e := range doc.Pages[0].Elements {
		if e.Category == dpe.Formula {
			formulas++
			if e.Content["cell"] == "C1" && (e.Content["expression"] != "=A1*2" || e.Content["value"] != "2") {
				t.Errorf("formula C1 = %v", e.Content)
			}
		}
	}
	if formulas != maxFormulaElements {
		t.Errorf("%d formula elements, want %d", formulas, maxFormulaElements)
	}
	if !doc.Truncated {
		t.Error("300,000 rows not marked truncated (MaxRows is 100,000)")
	}
	if peak > 400<<20 {
		t.Errorf("heap peaked at %d MiB", peak>>20)
	}
}

// An HTML page of many tiny paragraphs is bounded by the output budget
// like Markdown: 300,000 "<p>a</p>" (2.7 MB) made 300,000 elements, an
// estimated 146 MiB, untruncated.
func TestHTMLParagraphBombIsBoundedByBytes(t *testing.T) {
	sizeTests.Start(t)
	data := []byte(strings.Repeat("<p>a</p>\n", 300_000))
	doc, err := parseBytes(context.Background(), t, "bomb.html", data)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range doc.Pages {
		n += len(p.Elements)
	}
	t.Logf("%d-byte html: %d elements, estimated %d MiB", len(data), n, doc.EstimatedBytes()>>20)
	if !doc.Truncated || n >= 300_000 {
		t.Errorf("truncated %v, %d elements", doc.Truncated, n)
	}
	if doc.EstimatedBytes() > 72<<20 {
		t.Errorf("document holds an estimated %d MiB", doc.EstimatedBytes()>>20)
	}
}

// A Markdown list of many tiny items is bounded by the output budget: its
// items bypassed it (an 8 MB file of "- a" lines held an estimated 64 MiB
// whatever MaxOutputBytes said).
func TestMarkdownListBombIsBoundedByBytes(t *testing.T) {
	sizeTests.Start(t)
	data := []byte(strings.Repeat("- a\n", 500_000))
	opts := Options{MaxOutputBytes: 4 << 20}
	doc, err := Parse(context.Background(), Source{Name: "bomb.md", Data: data}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d-byte markdown: estimated %d MiB", len(data), doc.EstimatedBytes()>>20)
	if !doc.Truncated {
		t.Error("not marked truncated")
	}
	if doc.EstimatedBytes() > 2*opts.MaxOutputBytes {
		t.Errorf("document holds an estimated %d MiB", doc.EstimatedBytes()>>20)
	}
}

// Issue 35.8: an empty, cut or foreign file named .pdf says what is wrong
// with it in words, not PDFium's error number or "not a valid PDF".
func TestBrokenPDFsSayWhatIsWrong(t *testing.T) {
	whole := hostile.SimplePDF("hello")
	damaged := []byte("%PDF-1.7\n1 0 obj << /Type /Cat\x00\x01 garbage\n%%EOF\n")
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "the file is empty (0 bytes)"},
		{"cut", whole[:60], "the PDF is cut short (60 B, no end-of-file marker)"},
		{"foreign", []byte("<html><body>not a pdf</body></html>"), "not a PDF file (no %PDF- header)"},
		{"damaged", damaged, "the PDF is damaged"},
	} {
		_, err := Peek(context.Background(), c.name+".pdf", bytes.NewReader(c.data), int64(len(c.data)), Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("peek %s: %v, want %q", c.name, err, c.want)
		}
		_, err = Parse(context.Background(), Source{Name: c.name + ".pdf", Data: c.data}, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parse %s: %v, want %q", c.name, err, c.want)
		}
	}
}
