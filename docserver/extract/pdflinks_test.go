package extract

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-pdf/fpdf"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// wrappedURL is printed over two lines of linkedPDF, with one URI
// annotation over each line (as LaTeX's hyperref makes them).
const wrappedURL = "https://example.com/a/rather/long/path/to/the/reference/manual.html"

// linkedPDF makes a three-page PDF with fpdf: a contents page whose
// entries are internal (GoTo) links to pages 2 and 3, a URI link whose
// text is not its URL, and wrappedURL cut over two lines.
func linkedPDF(t *testing.T) []byte {
	t.Helper()
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetFont("Helvetica", "", 12)
	pdf.AddPage()
	toIntro, toUsage := pdf.AddLink(), pdf.AddLink()
	pdf.CellFormat(0, 8, "Contents", "", 1, "L", false, 0, "")
	pdf.CellFormat(0, 8, "Introduction to the tool", "", 1, "L", false, toIntro, "")
	pdf.CellFormat(0, 8, "Usage and options", "", 1, "L", false, toUsage, "")
	pdf.Ln(4)
	pdf.Write(8, "Read ")
	pdf.WriteLinkString(8, "the project site", "https://example.org/project")
	pdf.Write(8, " for news.")
	pdf.Ln(10)
	pdf.CellFormat(0, 8, "The manual is at", "", 1, "L", false, 0, "")
	half := strings.Index(wrappedURL, "/to/") + 1
	pdf.CellFormat(0, 8, wrappedURL[:half], "", 1, "L", false, 0, wrappedURL)
	pdf.CellFormat(0, 8, wrappedURL[half:]+" online.", "", 1, "L", false, 0, "")
	y := pdf.GetY()
	pdf.LinkString(10, y-8, pdf.GetStringWidth(wrappedURL[half:]), 8, wrappedURL)
	pdf.AddPage()
	pdf.SetLink(toIntro, 0, 2)
	pdf.CellFormat(0, 8, "Introduction to the tool", "", 1, "L", false, 0, "")
	pdf.MultiCell(0, 6, "The tool reads files and writes reports.", "", "L", false)
	pdf.AddPage()
	pdf.SetLink(toUsage, 0, 3)
	pdf.CellFormat(0, 8, "Usage and options", "", 1, "L", false, 0, "")
	pdf.MultiCell(0, 6, "Run it with the name of a file.", "", "L", false)
	var b bytes.Buffer
	if err := pdf.Output(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A PDF's link annotations are read (issue 35.5): the contents page's
// internal links are link elements to the pages they point to
// ("#page=N", target_page N-1), shown within the text that holds their
// words; a URI link gives the annotation's URL, not its text; a URL the
// page wraps over two lines is one URL again, in the text and in its one
// link element. Before, a PDF page had no link elements (the TUI's L
// said "no links") and the wrapped URL had a space inside.
func TestPDFLinkAnnotations(t *testing.T) {
	doc, err := Parse(t.Context(), Source{Name: "linked.pdf", Data: linkedPDF(t)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Pages) != 3 {
		t.Fatalf("%d pages", len(doc.Pages))
	}
	type link struct {
		text, url string
		page      any
		within    bool
	}
	var got []link
	var text strings.Builder
	for _, e := range doc.Pages[0].Elements {
		if e.Category != dpe.Link {
			text.WriteString(shownText(e) + "\n")
			continue
		}
		w, _ := e.Content["within"].(string)
		got = append(got, link{e.Content["text"].(string), e.Content["url"].(string), e.Content["target_page"], w != ""})
	}
	want := []link{
		{"Introduction to the tool", "#page=2", 1, true},
		{"Usage and options", "#page=3", 2, true},
		{"the project site", "https://example.org/project", nil, true},
		{wrappedURL, wrappedURL, nil, true},
	}
	if len(got) != len(want) {
		t.Fatalf("links of page 1:\n%+v\nwant\n%+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("link %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if !strings.Contains(text.String(), wrappedURL+" online") {
		t.Errorf("the wrapped URL is not whole in the text:\n%s", text.String())
	}
}

// The link annotations of real PDFs of three producers (texinfo with
// pdfTeX, DocBook with Apache FOP, PassiveTeX) are read: each contents
// page's entries are internal links to pages of the document, almost
// every link is shown within the element that holds its text, and an
// entry that links only its page number is named after its line.
func TestPDFLinksOfRealManuals(t *testing.T) {
	for _, c := range []struct {
		name     string
		contents int // 0-based index of a contents page
		atLeast  int // its internal links
		entry    string
	}{
		{"libtasn1.pdf", 2, 20, "2 ASN.1 structure handling 2"},
		{"valgrind_manual.pdf", 1, 10, "Valgrind User Manual"},
		{"bzip2-manual.pdf", 2, 20, "2. How to use bzip2"},
	} {
		r := refPDFNamed(t, c.name)
		if r == nil {
			continue
		}
		doc, err := parseOnce(r.name, r.data)
		if err != nil {
			t.Fatal(err)
		}
		links, within := 0, 0
		for _, p := range doc.Pages {
			for _, e := range p.Elements {
				if e.Category != dpe.Link {
					continue
				}
				links++
				if _, ok := e.Content["within"]; ok {
					within++
				}
				if tp, ok := e.Content["target_page"].(int); ok && (tp < 0 || tp >= len(doc.Pages)) {
					t.Errorf("%s %s: target page %d of %d", c.name, e.ID, tp, len(doc.Pages))
				}
			}
		}
		internal, found := 0, false
		for _, e := range doc.Pages[c.contents].Elements {
			if _, ok := e.Content["target_page"].(int); ok && e.Category == dpe.Link {
				internal++
				found = found || e.Content["text"] == c.entry
			}
		}
		if internal < c.atLeast || !found {
			t.Errorf("%s page %d: %d internal links (want at least %d), entry %q found: %v", c.name, c.contents+1, internal, c.atLeast, c.entry, found)
		}
		if within < links*95/100 {
			t.Errorf("%s: %d of %d links shown within an element", c.name, within, links)
		}
		t.Logf("%s: %d links, %d within; contents page %d has %d internal links", c.name, links, within, c.contents+1, internal)
	}
}
