package extract

import (
	"errors"

	"github.com/klippa-app/go-pdfium"
)

//go:generate go run ./internal/genpdfcalls

// engineCalls is a PDFium instance seen through its implementation rather
// than through the pool's wrapper. The wrapper's Kill, the only way to
// interrupt running WebAssembly, writes fields that every wrapper method
// reads without a lock, so killing a read from another goroutine while it
// calls PDFium is a data race (seen by -race in TestReadsDuringChurn).
// Calls made through engineCalls never read those fields; the wrapper is
// only killed or closed, after the calls are over.
type engineCalls struct{ pdfiumCalls }

// Kill refuses: only the wrapper can be killed.
func (engineCalls) Kill() error { return errors.New("pdf engine: kill the pool's instance") }

// GetImplementation returns the implementation the calls go to.
func (e engineCalls) GetImplementation() any { return e.pdfiumCalls }

// directCalls returns the calls of inst that go straight to its
// implementation, or inst itself if its implementation does not have
// them all (another go-pdfium version).
func directCalls(inst pdfium.Pdfium) pdfium.Pdfium {
	if impl, ok := inst.GetImplementation().(pdfiumCalls); ok {
		return engineCalls{impl}
	}
	return inst
}
