package extract

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/docserver/extract/internal/wasmstop"
	"github.com/smcp-browse/smcp-browse/docserver/internal/hostile"
)

// A PDF read whose context ends while PDFium runs is interrupted (the
// engine instance is killed) and says so; under -race the kill must not
// race with the read's calls (go-pdfium's instance wrapper writes fields
// on Kill that its methods read unlocked: TestReadsDuringChurn caught it).
// The deadlines are fractions of a full read, so that some reads end
// mid-way whatever the machine's speed.
func TestPDFReadInterruptedMidway(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "pdf", "libtasn1.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	src := Source{Name: "libtasn1.pdf", Data: data}
	start := time.Now()
	if _, err := Parse(context.Background(), src, Options{}); err != nil {
		t.Fatal(err)
	}
	full := time.Since(start)
	interrupted := 0
	for i := 1; i <= 20 && interrupted < 3; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), full*time.Duration(i)/20)
		_, err := Parse(ctx, src, Options{})
		cancel()
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			interrupted++
		case err != nil:
			t.Fatalf("read with a deadline of %d/20 of a full read: %v", i, err)
		}
	}
	if interrupted == 0 {
		t.Fatal("no read was interrupted: nothing was tested")
	}
	// The engine still reads after its instances were killed.
	if _, err := Parse(context.Background(), src, Options{}); err != nil {
		t.Fatalf("after the interrupted reads: %v", err)
	}
}

// The engine binding finds the WebAssembly module of go-pdfium's
// instances (see pdfium.go): a go-pdfium upgrade that hides it fails here,
// not as unreadable PDFs.
func TestPDFEngineBinding(t *testing.T) {
	e, err := attachEngine(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer e.release()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "pdf", "libtasn1.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := openDoc(context.Background(), e, data)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close(context.Background())
	if n, err := d.pageCount(context.Background()); err != nil || n != 36 {
		t.Fatalf("page count = %d, %v; want 36", n, err)
	}
}

// PDFium is stopped in the middle of a page when the read's context ends:
// one page of a 13 KB file keeps it busy for minutes (hostile.BusyPagePDF),
// and a read with a deadline of 200 ms returns soon after it, saying so,
// with the engine's code stopped by its flag (wasmstop) rather than by
// wazero's slower interruption; the garbage collector runs meanwhile.
func TestPDFStoppedInTheMiddleOfAPage(t *testing.T) {
	start := time.Now()
	rt, err := pdfPool()
	t.Logf("engine ready in %s", time.Since(start))
	if err != nil {
		t.Fatal(err)
	}
	if !rt.flagged {
		t.Error("the engine runs without its stop flag (wasmstop could not rewrite go-pdfium's module)")
	}
	src := Source{Name: "busy.pdf", Data: hostile.BusyPagePDF(1_000_000)}
	for range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		start := time.Now()
		var err error
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, err = Parse(ctx, src, Options{})
		}()
		// The process goes on collecting garbage meanwhile (running
		// WebAssembly cannot be preempted: it must visit Go now and then).
		time.Sleep(50 * time.Millisecond)
		runtime.GC()
		<-done
		took := time.Since(start)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v after %s, want the deadline", err, took)
		}
		// Generous for a loaded machine: the read runs for minutes when it
		// is not stopped.
		if took > 10*time.Second {
			t.Fatalf("the read returned %s after its 200 ms deadline", took)
		}
		t.Logf("stopped after %s", took)
	}
	// The engine still reads after its instances were stopped.
	if _, err := Parse(context.Background(), Source{Name: "ok.pdf", Data: hostile.SimplePDF("still here")}, Options{}); err != nil {
		t.Fatalf("after the stopped reads: %v", err)
	}
}

// A PDF read page by page keeps its engine between pages: the end of the
// context it was opened with (or of a page's) must not stop the engine
// for the next page.
func TestPDFPageAfterEarlierContextsEnded(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "pdf", "libtasn1.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f, err := (&Parser{opts: Options{}.withDefaults()}).OpenPDF(ctx, Source{Name: "libtasn1.pdf", Data: data})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, i := range []int{30, 29, 28} { // not among the pages sampled at opening
		ctx, cancel := context.WithCancel(context.Background())
		pg, err := f.Page(ctx, i)
		cancel()
		if err != nil || len(pg.Elements) == 0 || strings.Contains(pg.Title, "could not be read") {
			t.Fatalf("page %d after the earlier contexts ended: %q, %d elements, %v", i+1, pg.Title, len(pg.Elements), err)
		}
	}
}

// BenchmarkRewritePDFium is the cost the stop flag adds to every process
// start: rewriting go-pdfium's 5.7 MB module before wazero compiles it (or
// finds its compiled code in the disk cache by the rewritten module's
// hash).
func BenchmarkRewritePDFium(b *testing.B) {
	for b.Loop() {
		if _, err := wasmstop.Rewrite(pdfiumModule); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(pdfiumModule)), "bytes")
}
