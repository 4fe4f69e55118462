package extract

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/klippa-app/go-pdfium"
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

// Every call of a PDF read goes to the engine's implementation, never to
// the pool's wrapper that Kill writes (see pdfCalls).
func TestPDFCallsBypassTheKillableWrapper(t *testing.T) {
	pool, err := pdfPool()
	if err != nil {
		t.Fatal(err)
	}
	inst, err := pool.GetInstance(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	if _, wrapper := directCalls(inst).(pdfium.Pdfium); wrapper {
		t.Fatalf("the implementation (%T) lacks some of the PDFium calls in pdfCalls", inst.GetImplementation())
	}
}
