package docserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// pdfFixture copies a PDF of testdata/pdf into a fresh folder and returns
// the folder and the file's bytes.
func pdfFixture(t *testing.T, name string) (string, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "pdf", name))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, name), string(data))
	return dir, data
}

// pagesRead counts the pages a served PDF has read from the engine.
func pagesRead(t *testing.T, s *Server, rel string) int {
	t.Helper()
	e, ok := s.index.lookup(DocRef(rel))
	if !ok {
		t.Fatalf("%s not indexed", rel)
	}
	h, ok := s.docs.peek(keyOf(e.fileInfo))
	if !ok || h.pdf == nil {
		t.Fatalf("%s is not open for page reads", rel)
	}
	h.pdf.eng.Lock()
	defer h.pdf.eng.Unlock()
	return h.pdf.f.PagesRead()
}

// asJSON is v as the wire carries it, for comparing a served page with a
// parsed one.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// A PDF's Level 1 read opens it without reading every page, and page N
// reads page N (and prefetches its neighbours): the 36-page libtasn1
// manual read page 30 after parsing all 36. The page served is the one a
// full parse gives, element for element.
func TestPDFPagesAreReadOnDemand(t *testing.T) {
	dir, data := pdfFixture(t, "libtasn1.pdf")
	s, c, _ := startInProcess(t, dir, Options{})
	ref := DocRef("libtasn1.pdf")
	var d protocol.DPEDocument
	readJSON(t, c, "dpe://"+testHost+"/"+ref, &d)
	if d.PageCount != 36 || d.Title == "" || d.Unreadable != "" {
		t.Fatalf("Level 1 = %+v", d)
	}
	if n := pagesRead(t, s, "libtasn1.pdf"); n > 12 {
		t.Errorf("Level 1 read %d pages; a profile needs 12", n)
	}
	var p protocol.DPEPage
	readJSON(t, c, "dpe://"+testHost+"/"+ref+"/pages/30", &p)
	if n := pagesRead(t, s, "libtasn1.pdf"); n > 12+4 {
		t.Errorf("page 30 took the document to %d pages read; want the page and at most its 3 neighbours beyond the 12 sampled", n)
	}
	full, err := extract.Parse(context.Background(), extract.Source{Name: "libtasn1.pdf", Data: data}, extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := full.Pages[30]
	if p.Title != want.Title || len(p.Elements) != len(want.Elements) {
		t.Fatalf("page 30 = %q with %d elements; a full parse gives %q with %d", p.Title, len(p.Elements), want.Title, len(want.Elements))
	}
	for i, el := range want.Elements {
		got := asJSON(t, p.Elements[i])
		exp := asJSON(t, protocol.DPEElementDetail{ElementID: el.ID, Category: string(el.Category), Summary: el.Summary, Content: el.Content})
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("element %d of page 30:\n got %v\nwant %v", i, got, exp)
		}
	}
	// The whole document, when something needs it, is every page as a
	// full parse reads it.
	whole, err := s.WholeDocument(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Pages) != len(full.Pages) {
		t.Fatalf("whole document has %d pages, want %d", len(whole.Pages), len(full.Pages))
	}
	for i := range full.Pages {
		if !reflect.DeepEqual(asJSON(t, whole.Pages[i]), asJSON(t, full.Pages[i])) {
			t.Errorf("page %d of the whole document differs from a full parse's", i)
		}
	}
	if whole.Title != full.Title || !reflect.DeepEqual(whole.Keywords, full.Keywords) || whole.Summary != full.Summary {
		t.Errorf("whole document %q %q %v; full parse %q %q %v", whole.Title, whole.Summary, whole.Keywords, full.Title, full.Summary, full.Keywords)
	}
}
