package extract

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	_ "unsafe" // go:linkname

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/smcp-browse/smcp-browse/docserver/extract/internal/wasmstop"
)

// The PDF engine: PDFium compiled to WebAssembly (go-pdfium's
// "webassembly" runtime, run by wazero in pure Go). Why this engine:
//
//   - PDFium is what Chrome's viewer uses: it decodes pdfTeX's Type 1 and
//     CID fonts, ToUnicode maps and ligatures, so text comes out as a
//     viewer shows it (ledongthuc/pdf garbled pdfTeX manuals and looped
//     for ever on a page tree that contains itself; pdfcpu processes PDFs
//     but has no text layout extraction; MuPDF bindings need cgo, poppler
//     is a separate GPL program, UniPDF a commercial licence).
//   - wazero needs no cgo, and running WebAssembly can be stopped: a
//     document that makes the engine loop is stopped at its deadline
//     instead of pinning a core.
//   - Each document runs on its own instance whose linear memory is
//     bounded (pdfMemoryPages) and freed when it closes.
//
// How running code is stopped: go-pdfium's module is rewritten before it
// is compiled (wasmstop) so that every loop reads a flag and traps when it
// is set; the engine raises an instance's flag when the context of the
// work it does ends (pdfEngine.watch). wazero's own mechanism
// (WithCloseOnContextDone) does the same with an indirect call at every
// loop header and a goroutine per call, which made the valgrind manual's
// extraction take 2.4 s of CPU instead of 0.85 s. Should the rewrite ever
// fail (another go-pdfium module), the engine falls back to wazero's
// mechanism: slower, as safe.
//
// Compiling the 5 MB module takes seconds, so the pool is built once per
// process, on first use, and the compiled code is cached on disk under
// the user's cache directory ($XDG_CACHE_HOME/smcp-browse/wazero): later
// starts load it in about 0.1 s.

// PDF engine bounds.
const (
	// pdfMemoryPages bounds an instance's linear memory (64 KiB pages):
	// 256 MiB (PDFMemoryLimit).
	pdfMemoryPages = 4096
	// pdfMaxInstances bounds the documents read at once.
	pdfMaxInstances = 4
)

// PDFMemoryLimit is the most memory one PDF read can take inside the
// engine, whatever the file's size: memory admission reserves it.
const PDFMemoryLimit = pdfMemoryPages << 16

// pdfiumModule is go-pdfium's embedded PDFium module. go-pdfium does not
// export it; the engine needs its bytes to add the stop flag (a go-pdfium
// that renames it leaves this empty, and the engine falls back to
// wazero's interruption).
//
//go:linkname pdfiumModule github.com/klippa-app/go-pdfium/webassembly.pdfiumWasm
var pdfiumModule []byte

// pdfRuntime is the process's PDFium pool and how its running code is
// stopped.
type pdfRuntime struct {
	pool pdfium.Pool
	// flagged: the module has the stop flag (wasmstop); otherwise wazero
	// closes a module whose call's context ends.
	flagged bool
}

// pdfPool returns the process's PDFium pool, building it on first use.
var pdfPool = sync.OnceValues(func() (*pdfRuntime, error) {
	rc := wazero.NewRuntimeConfig().
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithMemoryLimitPages(pdfMemoryPages)
	if dir := PDFCacheDir(); dir != "" {
		if cache, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
			rc = rc.WithCompilationCache(cache)
		}
	}
	cfg := webassembly.Config{
		Context:       context.Background(),
		MinIdle:       0,
		MaxIdle:       1,
		MaxTotal:      max(1, min(pdfMaxInstances, runtime.GOMAXPROCS(0))),
		FSConfig:      wazero.NewFSConfig(), // documents are passed as bytes: no file system
		RuntimeConfig: rc,
		Stdout:        io.Discard,
		Stderr:        io.Discard,
	}
	rt := &pdfRuntime{}
	var err error
	if mod, rerr := wasmstop.Rewrite(pdfiumModule); rerr == nil {
		cfg.WASM, rt.flagged = mod, true
		rt.pool, err = webassembly.InitWithWASM(cfg)
	} else {
		cfg.RuntimeConfig = rc.WithCloseOnContextDone(true)
		rt.pool, err = webassembly.Init(cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("pdf engine: %w", err)
	}
	return rt, nil
})

// PDFCacheDir is where the compiled PDF engine is cached:
// $XDG_CACHE_HOME/smcp-browse/wazero (os.UserCacheDir), or "" when there
// is no cache directory (the engine is then compiled on every start).
func PDFCacheDir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "smcp-browse", "wazero")
}

// WarmPDFEngine builds the PDF engine now (compiling or loading its
// cached code), so that the first PDF read does not pay for it.
func WarmPDFEngine() error {
	_, err := pdfPool()
	return err
}
