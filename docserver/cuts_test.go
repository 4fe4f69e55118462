package docserver

import (
	"bytes"
	"github.com/go-pdf/fpdf"
	"github.com/smcp-browse/smcp-browse/docserver/extract"
	"github.com/smcp-browse/smcp-browse/dpe"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// pngHead is the start of a real PNG file (signature and IHDR chunk).
var pngHead = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00\x1f\xf3\xffa")

// Files whose extension names no format (GOROOT/src's go.mod, asm_amd64.s,
// a test's .golden file) are served as plain text when their bytes are
// text; binary files are not, and the catalog says how many it left out
// and why. A PNG renamed notes.txt is listed as unreadable, with the
// reason, instead of as text with a garbage title, and a read of its page
// is the spec's 4202 (page_count 0) with the reason. Before, the three
// text files were left out without a word and the PNG was served as
// text.
func TestCatalogServesTextWhateverItsExtensionAndSaysWhatItSkips(t *testing.T) {
	dir := t.TempDir()
	texts := map[string]string{
		"go.mod":                   "module example.com/m\n\ngo 1.24\n",
		"runtime/asm_amd64.s":      "#include \"textflag.h\"\n\nTEXT ·Add(SB),NOSPLIT,$0-24\n\tMOVQ a+0(FP), AX\n\tRET\n",
		"testdata/format.golden":   "expected output of the formatter\nsecond line\n",
		"cmd/api/testdata/x.input": "package p\n\nfunc F() {}\n",
	}
	for rel, body := range texts {
		writeFile(t, filepath.Join(dir, rel), body)
	}
	bins := map[string][]byte{
		"image/testdata/video-001.png": pngHead,
		"debug/elf/testdata/gcc.obj":   append([]byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00"), make([]byte, 64)...),
		"notes.txt":                    pngHead,
	}
	for rel, body := range bins {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, c, _ := startInProcess(t, dir, Options{})

	var cat protocol.DPECatalog
	readJSON(t, c, "dpe://"+testHost+"?limit=100", &cat)
	for rel, body := range texts {
		d := docByPath(t, c, rel)
		if d.Unreadable != "" {
			t.Errorf("%s: unreadable: %s", rel, d.Unreadable)
			continue
		}
		got, _ := readText(t, c, d.URI+"/pages/0?format=text")
		for _, line := range strings.Split(strings.TrimSpace(body), "\n")[1:] {
			if !strings.Contains(got, strings.TrimSpace(line)) {
				t.Errorf("%s: page 0 lacks %q:\n%s", rel, line, got)
			}
		}
	}
	if cat.Skipped == nil {
		t.Fatalf("the catalog does not say it skipped two binary files: %+v", cat)
	}
	if cat.Skipped.Count != 2 || cat.Skipped.Reasons["binary"] != 2 {
		t.Errorf("skipped: %+v, want 2 binary", *cat.Skipped)
	}
	if want := []string{"debug/elf/testdata/gcc.obj", "image/testdata/video-001.png"}; strings.Join(cat.Skipped.Examples, ",") != strings.Join(want, ",") {
		t.Errorf("skipped examples %q, want %q", cat.Skipped.Examples, want)
	}
	md, _ := readText(t, c, "dpe://"+testHost+"?format=text")
	if !strings.Contains(md, "2 files not served: 2 binary") {
		t.Errorf("the text catalog does not say what it skipped:\n%s", md)
	}

	fake := docByPath(t, c, "notes.txt")
	if !strings.Contains(fake.Unreadable, "binary content") || !strings.Contains(fake.Unreadable, "image/png") {
		t.Errorf("notes.txt (a PNG): unreadable %q, title %q; want the binary content named", fake.Unreadable, fake.Title)
	}
	e := rpcError(t, c.GetTransport(), 7, fake.URI+"/pages/0")
	if e.Code != protocol.CodePageOutOfRange || !strings.Contains(e.Message, "binary content") {
		t.Errorf("read of notes.txt's page: %d %s", e.Code, e.Message)
	}
}

// A CSV over the row bound is served cut short, and says so: its Level 1
// read and its catalog entry carry "truncated" with how many rows were
// kept of how many, and the Markdown and text renderings show it. Before,
// the extractor's Truncated flag never left the server: the reader saw
// half the rows with no note anywhere.
func TestTruncatedDocumentSaysHowMuchWasKept(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("id,name\n")
	for i := range 2000 {
		b.WriteString(strconv.Itoa(i) + ",row " + strconv.Itoa(i) + "\n")
	}
	writeFile(t, filepath.Join(dir, "big.csv"), b.String())
	writeFile(t, filepath.Join(dir, "small.csv"), "id,name\n1,one\n")
	_, c, _ := startInProcess(t, dir, Options{Extract: extract.Options{MaxRows: 1000}})

	const want = "kept the first 1,000 of 2,000 rows"
	big := docByPath(t, c, "big.csv")
	if big.Truncated != want {
		t.Errorf("catalog entry of big.csv: truncated %q, want %q", big.Truncated, want)
	}
	var doc protocol.DPEDocument
	readJSON(t, c, big.URI, &doc)
	if doc.Truncated != want {
		t.Errorf("Level 1 of big.csv: truncated %q, want %q", doc.Truncated, want)
	}
	for _, f := range []string{"markdown", "text"} {
		if s, _ := readText(t, c, big.URI+"?format="+f); !strings.Contains(s, "Cut short: "+want) {
			t.Errorf("Level 1 of big.csv as %s does not say it is cut short:\n%s", f, s)
		}
	}
	if small := docByPath(t, c, "small.csv"); small.Truncated != "" {
		t.Errorf("small.csv: truncated %q", small.Truncated)
	}
}

// A PDF's internal link is served with the dpe:// URI of the page it
// points to, at Level 2 and Level 3, so that a client (the TUI's L)
// follows it like any page link; the page's Markdown does not repeat the
// link's text (it is shown within its paragraph).
func TestPDFInternalLinkIsADPEPageURI(t *testing.T) {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetFont("Helvetica", "", 12)
	pdf.AddPage()
	to := pdf.AddLink()
	pdf.CellFormat(0, 8, "Contents", "", 1, "L", false, 0, "")
	pdf.CellFormat(0, 8, "Getting started", "", 1, "L", false, to, "")
	pdf.AddPage()
	pdf.SetLink(to, 0, 2)
	pdf.CellFormat(0, 8, "Getting started", "", 1, "L", false, 0, "")
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "guide.pdf"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, c, _ := startInProcess(t, dir, Options{})
	d := docByPath(t, c, "guide.pdf")
	ref := d.URI[strings.LastIndex(d.URI, "/")+1:]
	want := dpe.Page(testHost, ref, 1).String()

	var pg protocol.DPEPage
	readJSON(t, c, d.URI+"/pages/0", &pg)
	var link *protocol.DPEElementDetail
	for i, e := range pg.Elements {
		if e.Category == string(dpe.Link) {
			link = &pg.Elements[i]
		}
	}
	if link == nil {
		t.Fatalf("page 0 has no link element: %+v", pg.Elements)
	}
	if link.Content["url"] != want || link.Content["text"] != "Getting started" {
		t.Errorf("link %+v, want url %s", link.Content, want)
	}
	var el protocol.DPEElementDetail
	readJSON(t, c, dpe.Element(testHost, ref, link.ElementID).String(), &el)
	if el.Content["url"] != want {
		t.Errorf("Level 3 of %s: url %v, want %s", link.ElementID, el.Content["url"], want)
	}
	if md, _ := readText(t, c, d.URI+"/pages/0?format=markdown"); strings.Count(md, "Getting started") != 1 {
		t.Errorf("the page's Markdown repeats the link:\n%s", md)
	}
}

// A rescan replaces what the ledger knew under its folder only when it is
// done: a catalog read during the catch-up walk of Start saw an empty
// account (the first version cleared it before walking).
func TestSkipLedgerReplaceUnder(t *testing.T) {
	l := newSkipLedger()
	l.set("a.png", skipBinary)
	l.set("dir/b.png", skipBinary)
	l.set("dirt/c.png", skipBinary)
	fresh := newSkipLedger()
	fresh.set("dir/d.zip", skipBinary)
	l.replaceUnder("dir", fresh)
	if got := l.summary(); got.Count != 3 || strings.Join(got.Examples, ",") != "a.png,dir/d.zip,dirt/c.png" {
		t.Errorf("after replacing dir: %+v", got)
	}
	l.replaceUnder(".", newSkipLedger())
	if got := l.summary(); got != nil {
		t.Errorf("after replacing everything with nothing: %+v", got)
	}
}
