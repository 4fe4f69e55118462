package docserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/docserver/internal/hostile"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

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

// A PDF whose page tree loops must not stop the folder from being listed
// (with ledongthuc/pdf it spun for ever, and every listing waited on it):
// the good documents beside it are listed at once, listing again does not
// start another peek, and the PDF itself is either read (PDFium sees the
// loop) or listed as unreadable; its reads answer.
func TestLoopingPDFDoesNotStallTheListing(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "guide.md"), "# Guide\n\nHow to use the folder.\n")
	writeFile(t, filepath.Join(dir, "notes.txt"), "Notes\n\nSome notes.\n")
	writeFile(t, filepath.Join(dir, "table.csv"), "a,b\n1,2\n")
	loop := hostile.LoopTreePDF()
	writeFile(t, filepath.Join(dir, "loop.pdf"), string(loop))
	t.Logf("crafted PDF: %d bytes", len(loop))

	_, c, _ := startInProcess(t, dir, Options{PeekTimeout: 5 * time.Second})
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
	titles := map[string]string{"guide.md": "Guide", "notes.txt": "Notes", "table.csv": "table"}
	for rel := range titles {
		if _, ok := resourceByPath(all, rel); !ok {
			t.Fatalf("%s not listed beside the looping PDF: %v", rel, all)
		}
	}
	// Their peeks are not held back by the PDF's: they settle (a loaded
	// machine may answer the first listing before they are done).
	good := all
	testutil.WaitUntil(30*time.Second, func() bool {
		for rel := range titles {
			if r, _ := resourceByPath(good, rel); r.Meta.AdditionalFields["pending"] == true {
				good = list()
				return false
			}
		}
		return true
	})
	for rel, title := range titles {
		r, _ := resourceByPath(good, rel)
		if r.Name != title || listedUnreadable(r) != "" {
			t.Errorf("%s listed as %q (unreadable %q)", rel, r.Name, listedUnreadable(r))
		}
	}
	// The looping PDF is listed too, and settles (no longer pending).
	var pdf mcp.Resource
	settled := testutil.WaitUntil(30*time.Second, func() bool {
		r, ok := resourceByPath(all, "loop.pdf")
		if !ok {
			t.Fatalf("loop.pdf is not listed: %v", all)
		}
		if pdf = r; r.Meta.AdditionalFields["pending"] != true {
			return true
		}
		all = list()
		return false
	})
	if !settled {
		t.Fatalf("loop.pdf still pending: %+v", pdf)
	}
	t.Logf("loop.pdf listed as %q %q (unreadable %q)", pdf.Name, pdf.Description, listedUnreadable(pdf))
	// Listing again answers from what is known.
	for range 3 {
		r, _ := resourceByPath(list(), "loop.pdf")
		if r.Name != pdf.Name || listedUnreadable(r) != listedUnreadable(pdf) {
			t.Errorf("loop.pdf changed between listings: %+v", r)
		}
	}
	var doc protocol.DPEDocument
	readJSON(t, c, pdf.URI, &doc)
	if (doc.Unreadable == "") != (listedUnreadable(pdf) == "") {
		t.Errorf("Level 1 of the looping PDF = %+v, listed %+v", doc, pdf)
	}
	var cat protocol.DPECatalog
	readJSON(t, c, "dpe://"+testHost, &cat)
	if cat.TotalCount != 4 || len(cat.Documents) != 4 {
		t.Errorf("catalog: %d of %d documents", len(cat.Documents), cat.TotalCount)
	}
}

// A peek that does not finish by its deadline gives up, and the document
// is listed as unreadable with the reason, once: listing again does not
// peek again. (A docx without core properties is peeked by reading its
// body: 16 MB of XML take far longer than the 20 ms allowed here.)
func TestPeekDeadlineListsTheFileUnreadable(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "good.md"), "# Good\n\ntext\n")
	writeFile(t, filepath.Join(dir, "slow.docx"), string(hostile.ParagraphBombDOCX(400_000, 100)))
	s, c, _ := startInProcess(t, dir, Options{PeekTimeout: 20 * time.Millisecond})
	bad := waitUnreadable(t, c, "slow.docx")
	if !strings.Contains(listedUnreadable(bad), "took longer than 20ms") || bad.Description != "Unreadable: "+listedUnreadable(bad) {
		t.Errorf("slow.docx listed as %q, unreadable %q", bad.Description, listedUnreadable(bad))
	}
	// The verdict is kept: no peek runs for the next listings.
	listAll(t, c)
	s.peeks.mu.Lock()
	running := len(s.peeks.calls)
	s.peeks.mu.Unlock()
	if running != 0 {
		t.Errorf("%d peeks running after the verdict", running)
	}
	var doc protocol.DPEDocument
	readJSON(t, c, bad.URI, &doc)
	if doc.Unreadable != listedUnreadable(bad) {
		t.Errorf("Level 1 = %+v", doc)
	}
}

// waitUnreadable lists until the resource at rel is marked unreadable and
// returns it.
func waitUnreadable(t *testing.T, c interface {
	ListResources(context.Context, mcp.ListResourcesRequest) (*mcp.ListResourcesResult, error)
}, rel string) mcp.Resource {
	t.Helper()
	var r mcp.Resource
	var listed []mcp.Resource
	marked := testutil.WaitUntil(30*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		res, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
		cancel()
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		listed = res.Resources
		var ok bool
		r, ok = resourceByPath(res.Resources, rel)
		return ok && listedUnreadable(r) != ""
	})
	if !marked {
		t.Fatalf("%s never marked unreadable: %+v", rel, listed)
	}
	return r
}

// A file swapped for a FIFO before the watcher has seen it (inside its
// debounce window) must not block listing or reading: opening a FIFO for
// reading waits for a writer. It is listed as unreadable instead.
func TestFIFODoesNotBlockListing(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "good.md"), "# Good\n\ntext\n")
	writeFile(t, filepath.Join(dir, "swap.md"), "# Swap\n")
	// Not started, the server has no watcher to notice the swap: as for a
	// swap inside the debounce window, only the listing's peek meets the
	// FIFO. (A started server's first rescan, in the background, could run
	// after the swap and rightly leave the FIFO out: it is no document.)
	s, err := New(dir, Options{Host: testHost, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c, _ := connect(t, s.InProcessTransport())
	// The FIFO replaces the file in one rename: a remove then a mkfifo
	// left a moment without the file, and a peek in that moment dropped
	// it from the list for good (the watcher is off), failing the test.
	fifo := filepath.Join(t.TempDir(), "swap.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Rename(fifo, filepath.Join(dir, "swap.md")); err != nil {
		t.Fatal(err)
	}
	bad := waitUnreadable(t, c, "swap.md")
	if !strings.Contains(listedUnreadable(bad), "not a regular file") {
		t.Errorf("FIFO listed with reason %q", listedUnreadable(bad))
	}
	// Reading it answers (the file is no longer served: 4201).
	if e := rpcError(t, c.GetTransport(), 5, bad.URI); e.Code != protocol.CodeDocumentNotFound {
		t.Errorf("read of the FIFO: %d %s", e.Code, e.Message)
	}
	all, _ := listAll(t, c)
	if r, ok := resourceByPath(all, "good.md"); !ok || r.Name != "Good" {
		t.Errorf("good.md not listed beside the FIFO: %v", all)
	}
}

// Four concurrent reads of heavy office files used to run at once and
// crash serve-docs out of memory. Reads are admitted by a memory budget:
// with a budget that fits one of these reads, they run one after another
// and the heap stays near one read's peak (69 MiB measured), where four
// at once reached 225 MiB.
func TestConcurrentHeavyReadsShareAMemoryBudget(t *testing.T) {
	dir := t.TempDir()
	body := strings.Repeat(`<w:p><w:r><w:t>word</w:t></w:r></w:p>`, 60_000)
	core := `<dc:title>Heavy</dc:title><dc:description>Many paragraphs.</dc:description>`
	for i := range 4 {
		// About 2.3 MB of XML each, a tree of some 50 MB.
		writeFile(t, filepath.Join(dir, "heavy"+string(rune('a'+i))+".docx"), string(hostile.DOCX(body, core)))
	}
	_, c, _ := startInProcess(t, dir, Options{ListWait: time.Millisecond, MemoryBudget: 64 << 20})
	all, _ := listAll(t, c) // starts the peeks
	var wg sync.WaitGroup
	peak := hostile.PeakHeap(func() {
		for _, r := range all {
			wg.Go(func() {
				var doc protocol.DPEDocument
				readJSON(t, c, r.URI, &doc)
				if doc.Unreadable != "" || doc.PageCount == 0 {
					t.Errorf("%s: %+v", r.URI, doc)
				}
			})
		}
		wg.Wait()
	})
	t.Logf("peak heap of 4 concurrent reads: %d MiB", peak>>20)
	if peak > 150<<20 {
		t.Errorf("4 concurrent heavy reads peaked at %d MiB of heap", peak>>20)
	}
}
