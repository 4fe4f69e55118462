package docserver

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// buildPDF assembles a PDF file from object bodies (object i+1 is objs[i])
// with a correct cross-reference table; objects may be streams.
func buildPDF(objs []string) []byte {
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj %s endobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer << /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return []byte(b.String())
}

// pdfStream is the body of a stream object.
func pdfStream(data string) string {
	return fmt.Sprintf("<< /Length %d >> stream\n%s\nendstream", len(data), data)
}

// loopTreePDF is a small PDF whose page tree loops: the root Pages node
// lists itself among its /Kids. Readers that follow /Kids without
// remembering where they have been never come back.
func loopTreePDF() []byte {
	return buildPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		pdfStream("BT /F1 24 Tf 72 720 Td (Loop) Tj ET"),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	})
}

// resourceByPath finds a listed resource by its _meta.path.
func resourceByPath(all []mcp.Resource, rel string) (mcp.Resource, bool) {
	for _, r := range all {
		if r.Meta != nil && r.Meta.AdditionalFields["path"] == rel {
			return r, true
		}
	}
	return mcp.Resource{}, false
}

// listedUnreadable is the _meta.unreadable of a listed resource.
func listedUnreadable(r mcp.Resource) string {
	if r.Meta == nil {
		return ""
	}
	s, _ := r.Meta.AdditionalFields["unreadable"].(string)
	return s
}

// A PDF whose page tree loops must not stop the folder from being listed:
// the good documents beside it are listed at once, the bad one is listed
// as unreadable with its reason, and listing again does not start another
// endless peek.
func TestLoopingPDFDoesNotStallTheListing(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "guide.md"), "# Guide\n\nHow to use the folder.\n")
	writeFile(t, filepath.Join(dir, "notes.txt"), "Notes\n\nSome notes.\n")
	writeFile(t, filepath.Join(dir, "table.csv"), "a,b\n1,2\n")
	loop := loopTreePDF()
	writeFile(t, filepath.Join(dir, "loop.pdf"), string(loop))
	t.Logf("crafted PDF: %d bytes", len(loop))

	_, c, _ := startInProcess(t, dir, Options{PeekTimeout: 2 * time.Second})
	list := func() []mcp.Resource {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		return res.Resources
	}
	start := time.Now()
	all := list()
	t.Logf("first resources/list answered in %s", time.Since(start))
	for rel, title := range map[string]string{"guide.md": "Guide", "notes.txt": "Notes", "table.csv": "table"} {
		r, ok := resourceByPath(all, rel)
		if !ok {
			t.Fatalf("%s not listed beside the looping PDF: %v", rel, all)
		}
		if r.Name != title || listedUnreadable(r) != "" {
			t.Errorf("%s listed as %q (unreadable %q)", rel, r.Name, listedUnreadable(r))
		}
	}
	// The looping PDF is listed too; once its peek has given up it is
	// marked unreadable with the reason.
	var bad mcp.Resource
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, ok := resourceByPath(all, "loop.pdf")
		if !ok {
			t.Fatalf("loop.pdf is not listed: %v", all)
		}
		if listedUnreadable(r) != "" {
			bad = r
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("loop.pdf never marked unreadable: %+v", r)
		}
		time.Sleep(100 * time.Millisecond)
		all = list()
	}
	if !strings.Contains(bad.Description, listedUnreadable(bad)) || !strings.HasPrefix(bad.Description, "Unreadable") {
		t.Errorf("unreadable description = %q", bad.Description)
	}
	// Listing again answers from what is known: no new endless peek.
	for range 3 {
		all = list()
		if r, _ := resourceByPath(all, "loop.pdf"); listedUnreadable(r) == "" {
			t.Errorf("loop.pdf lost its unreadable mark: %+v", r)
		}
	}
	// Its Level 1 read says it is unreadable, and its pages are an error
	// naming the reason.
	var doc protocol.DPEDocument
	readJSON(t, c, bad.URI, &doc)
	if doc.Unreadable == "" || doc.PageCount != 0 || !strings.HasPrefix(doc.Summary, "Unreadable") {
		t.Errorf("Level 1 of the looping PDF = %+v", doc)
	}
	e := rpcError(t, c.GetTransport(), 91, bad.URI+"/pages/0")
	if !strings.Contains(e.Message, "cannot be read") {
		t.Errorf("page read of the looping PDF: %d %s", e.Code, e.Message)
	}
	// The Level 0 catalog lists every document, the bad one marked.
	var cat protocol.DPECatalog
	readJSON(t, c, "dpe://"+testHost, &cat)
	marked := 0
	for _, d := range cat.Documents {
		if d.Unreadable != "" {
			marked++
		}
	}
	if cat.TotalCount != 4 || len(cat.Documents) != 4 || marked != 1 {
		t.Errorf("catalog: %d of %d documents, %d unreadable", len(cat.Documents), cat.TotalCount, marked)
	}
}
