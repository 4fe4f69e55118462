package extract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// goSpec reads Go's language specification, $(go env GOROOT)/doc/go_spec.html
// (280 KB, 15 sections of one page-sized budget or more each).
func goSpec(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testutil.GOROOT(t), "doc", "go_spec.html"))
	if err != nil {
		// Debian's golang-go leaves doc/ to golang-doc.
		testutil.Missing(t, "no go_spec.html in this Go installation: "+err.Error())
	}
	return data
}

// A long section is continued where a reader would turn the page: the
// Go spec's "Declarations and scope" ended on a page holding one code
// example cut off from the paragraph introducing it, "Expressions" on a
// page of 4 stray elements; 9 continued pages began with a code block or
// list whose introduction was on the page before, 3 pages ended on a
// heading whose text was on the next.
func TestPaginationBreaksWhereAReaderWould(t *testing.T) {
	doc, err := Parse(t.Context(), Source{Name: "go_spec.html", Data: goSpec(t)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Pages) < 20 {
		t.Fatalf("%d pages", len(doc.Pages))
	}
	atHeading, continued := 0, 0
	for i, p := range doc.Pages {
		if len(p.Elements) == 0 {
			t.Fatalf("page %d %q is empty", i, p.Title)
		}
		if !strings.HasSuffix(p.Title, "(continued)") {
			continue
		}
		continued++
		prev := doc.Pages[i-1].Elements
		j := len(prev) - 1
		for j > 0 && shownWithin(prev[j]) {
			j--
		}
		last, first := prev[j], p.Elements[0]
		if len(p.Elements) < 3 {
			t.Errorf("page %d %q holds only %d elements", i, p.Title, len(p.Elements))
		}
		if last.Category == dpe.Heading {
			t.Errorf("page %d ends on the heading %q; its text is on page %d", i-1, last.Content["text"], i)
		}
		if last.Category == dpe.Text && (first.Category == dpe.Code || first.Category == dpe.Table || first.Category == dpe.List) {
			t.Errorf("page %d begins with a %s introduced by the last paragraph of page %d: %.80q", i, first.Category, i-1, last.Content["text"])
		}
		if first.Category == dpe.Heading {
			atHeading++
		}
	}
	// Most continued pages begin with a sub-section's heading.
	if continued == 0 || atHeading*3 < continued*2 {
		t.Errorf("%d of %d continued pages begin at a heading", atHeading, continued)
	}
	t.Logf("%d pages, %d continued, %d of them at a heading", len(doc.Pages), continued, atHeading)
}

// Superscripts and subscripts keep their meaning in text: the spec's
// "scales the mantissa by 10<sup>exp</sup>" read "by 10exp", "modulo
// 2<sup><i>n</i></sup>" read "modulo 2n".
func TestHTMLSuperscripts(t *testing.T) {
	doc, err := Parse(t.Context(), Source{Name: "go_spec.html", Data: goSpec(t)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range doc.Pages {
		for _, e := range p.Elements {
			s, _ := e.Content["text"].(string)
			b.WriteString(s + "\n")
		}
	}
	for _, want := range []string{"by 10^exp", "by 2^exp", "modulo 2^n,"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the spec's text lacks %q", want)
		}
	}
	doc, err = Parse(t.Context(), Source{Name: "x.html", Data: []byte("<p>H<sub>2</sub>O and x<sup>2</sup></p>")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	el := doc.Pages[0].Elements[0]
	if got := el.Content["text"]; got != "H_2O and x^2" {
		t.Errorf("text %q", got)
	}
	if got := el.Content["markdown"]; got != nil && got != `H\_2O and x^2` {
		t.Errorf("markdown %q", got)
	}
}
