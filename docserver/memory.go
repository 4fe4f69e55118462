package docserver

import (
	"archive/zip"
	"context"
	"io"
	"strings"
	"sync/atomic"

	"golang.org/x/sync/semaphore"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
)

// Reads (parses and peeks) are admitted by a memory budget rather than a
// count: each reserves an estimate of the memory it may take, and waits
// while the reservations of the reads in progress would pass the budget
// (Options.MemoryBudget). A read keeps its reservation until its work has
// really ended, even when its caller gave up at a deadline. Four
// concurrent reads of heavy office files used to take serve-docs past its
// memory (an OOM kill, and the catalog flipping between 3 documents and
// none); now the fourth waits for the first ones.

// Defaults of the memory admission.
const (
	DefaultMemoryBudget = 512 << 20
	// minReadCost is the reservation of the smallest read.
	minReadCost = 1 << 20
)

// xmlCostPerByte is the memory an office part's XML costs once read as a
// tree, per byte of XML (a paragraph bomb of one-word paragraphs is about
// 24 times; real documents less).
const xmlCostPerByte = 24

// memoryGate admits reads within a budget of bytes.
type memoryGate struct {
	sem    *semaphore.Weighted
	budget int64
	// reclaim, when set, gives back reservations held by idle work (a PDF
	// keeping its engine for the next page) and reports whether it did;
	// a read that would wait calls it first.
	reclaim func() bool
	// waiting counts the reads waiting for their reservation: work that
	// goes idle then gives its reservation back at once (see
	// lazyPDF.idleLocked).
	waiting atomic.Int64
}

func newMemoryGate(budget int64) *memoryGate {
	return &memoryGate{sem: semaphore.NewWeighted(budget), budget: budget}
}

// acquire reserves cost bytes (at most the whole budget), waiting until
// they are free or ctx ends. The returned function releases them.
func (g *memoryGate) acquire(ctx context.Context, cost int64) (func(), error) {
	cost = min(max(cost, minReadCost), g.budget)
	release := func() { g.sem.Release(cost) }
	if g.sem.TryAcquire(cost) || g.reclaim != nil && g.reclaim() && g.sem.TryAcquire(cost) {
		return release, nil
	}
	g.waiting.Add(1)
	defer g.waiting.Add(-1)
	if err := g.sem.Acquire(ctx, cost); err != nil {
		return nil, err
	}
	return release, nil
}

// readCost estimates the memory of reading a file fully: its bytes plus
// what its format's reader builds from them. For an office package that
// is decided by the declared sizes of its XML parts (from the zip's
// central directory, which is cheap to read), not by the file's size: a
// 50 KB docx can hold 16 MB of XML.
func readCost(kind extract.Kind, r io.ReaderAt, size int64, opts extract.Options) int64 {
	switch kind {
	case extract.KindDOCX, extract.KindPPTX, extract.KindXLSX:
		return size + packageXMLCost(r, size, opts)
	case extract.KindPDF:
		// The engine's memory is not the file's: a 600-byte PDF can make
		// it take all it may.
		return size + extract.PDFMemoryLimit
	default:
		return size * 16
	}
}

// peekCost estimates the memory of a peek: text formats read a bounded
// prefix; office packages may read their body; a PDF its first page.
func peekCost(kind extract.Kind, r io.ReaderAt, size int64, opts extract.Options) int64 {
	switch kind {
	case extract.KindDOCX, extract.KindPPTX, extract.KindXLSX, extract.KindPDF:
		return readCost(kind, r, size, opts)
	default:
		return minReadCost
	}
}

// packageXMLCost sums the declared sizes of a package's XML parts, each
// capped by the per-part bound and all by the package's budget, times the
// cost of a tree per XML byte.
func packageXMLCost(r io.ReaderAt, size int64, opts extract.Options) int64 {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return 0 // not a package: its reader fails at once
	}
	maxPart, maxAll := opts.MaxZipEntry, opts.MaxUnpacked
	if maxPart <= 0 {
		maxPart = 64 << 20
	}
	if maxAll <= 0 {
		maxAll = 256 << 20
	}
	var n int64
	for _, f := range zr.File {
		if name := strings.ToLower(f.Name); strings.HasSuffix(name, ".xml") || strings.HasSuffix(name, ".rels") {
			n += min(int64(f.UncompressedSize64), maxPart)
		}
		if n >= maxAll {
			return maxAll * xmlCostPerByte
		}
	}
	return n * xmlCostPerByte
}

// warmEngine builds the engine a kind of file needs before its read's
// deadline starts: compiling the PDF engine takes seconds (much more under
// the race detector) and is no fault of the first PDF read.
func (s *Server) warmEngine(kind extract.Kind) {
	if kind == extract.KindPDF {
		if err := extract.WarmPDFEngine(); err != nil {
			s.log.Warn("pdf engine unavailable", "err", err)
		}
	}
}
