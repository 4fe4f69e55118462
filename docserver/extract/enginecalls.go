package extract

import (
	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/responses"
)

// pdfCalls are the PDFium calls a PDF read makes. They are made on the
// instance's implementation rather than on the pool's wrapper: the
// wrapper's Kill, the only way to interrupt running WebAssembly, writes
// fields that every wrapper method reads without a lock, so killing a
// read from another goroutine while it calls PDFium is a data race (seen
// by -race in TestReadsDuringChurn). The implementation has no Kill; the
// wrapper is only killed or closed, after the calls are over.
type pdfCalls interface {
	OpenDocument(*requests.OpenDocument) (*responses.OpenDocument, error)
	FPDF_CloseDocument(*requests.FPDF_CloseDocument) (*responses.FPDF_CloseDocument, error)
	FPDF_GetMetaText(*requests.FPDF_GetMetaText) (*responses.FPDF_GetMetaText, error)
	FPDF_GetPageCount(*requests.FPDF_GetPageCount) (*responses.FPDF_GetPageCount, error)
	GetPageTextStructured(*requests.GetPageTextStructured) (*responses.GetPageTextStructured, error)
	FPDFText_LoadPage(*requests.FPDFText_LoadPage) (*responses.FPDFText_LoadPage, error)
	FPDFText_ClosePage(*requests.FPDFText_ClosePage) (*responses.FPDFText_ClosePage, error)
	FPDFText_GetUnicode(*requests.FPDFText_GetUnicode) (*responses.FPDFText_GetUnicode, error)
	FPDFText_GetCharOrigin(*requests.FPDFText_GetCharOrigin) (*responses.FPDFText_GetCharOrigin, error)
	FPDFText_GetCharIndexAtPos(*requests.FPDFText_GetCharIndexAtPos) (*responses.FPDFText_GetCharIndexAtPos, error)
	FPDFText_GetFontSize(*requests.FPDFText_GetFontSize) (*responses.FPDFText_GetFontSize, error)
	FPDFText_GetFontInfo(*requests.FPDFText_GetFontInfo) (*responses.FPDFText_GetFontInfo, error)
	FPDFText_GetMatrix(*requests.FPDFText_GetMatrix) (*responses.FPDFText_GetMatrix, error)
}

// directCalls returns the calls of inst that go straight to its
// implementation, or inst itself if its implementation does not have
// them all (another go-pdfium version).
func directCalls(inst pdfium.Pdfium) pdfCalls {
	if impl, ok := inst.GetImplementation().(pdfCalls); ok {
		return impl
	}
	return inst
}
