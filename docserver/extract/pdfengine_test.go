package extract

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
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
