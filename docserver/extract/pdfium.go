package extract

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"unicode/utf16"

	"github.com/dustin/go-humanize"
	"github.com/klippa-app/go-pdfium"
	"github.com/tetratelabs/wazero/api"

	"github.com/smcp-browse/smcp-browse/docserver/extract/internal/wasmstop"
)

// The engine binding. go-pdfium's request/response API costs several
// WebAssembly calls per PDFium call (it allocates and frees guest memory
// for every out-parameter), and its page-text helper makes three calls
// per character: the valgrind manual's 1,038,366 characters took ~50 ms a
// page. So PDF reads call PDFium's exported C functions directly on the
// instance's module, with one scratch buffer for out-parameters, and make
// as few calls as PDFium's API allows: a page's text in one
// FPDFText_GetText, and boxes only for the characters layout needs (see
// pageText).
//
// Every call carries the context of the work it belongs to: when that
// context ends, the instance's stop flag is raised (watch), the running
// code traps at its next loop, the call fails, and the instance is killed
// instead of returned to the pool. go-pdfium's instance wrapper is never
// called while the engine works, so killing it cannot race with a call.

// pdfEngine is one PDFium instance of the pool, used by one goroutine at
// a time.
type pdfEngine struct {
	inst    pdfium.Pdfium
	mod     api.Module
	flagged bool // the module has the stop flag (see pdfRuntime)
	fns     map[string]api.Function
	stack   [8]uint64
	scratch uint32 // guest buffer for out-parameters and strings
	size    uint32 // its size
	broken  bool   // a call failed in a way that leaves the instance unusable
	cause   error  // what broke it (fail)
	// The context whose end raises the stop flag, its Done channel and
	// the function that stops watching it.
	watchedCtx context.Context
	watched    <-chan struct{}
	unwatch    func() bool
}

// scratchSize is the initial size of an engine's scratch buffer; it grows
// for a page's text.
const scratchSize = 64 << 10

// errEngineBinding is returned when the pool's instances do not expose
// their WebAssembly module (another go-pdfium version).
var errEngineBinding = errors.New("pdf engine: the instance does not expose its WebAssembly module")

// attachEngine takes an instance from the process's pool (waiting until
// one is free or ctx ends).
func attachEngine(ctx context.Context) (*pdfEngine, error) {
	rt, err := pdfPool()
	if err != nil {
		return nil, err
	}
	inst, err := rt.pool.GetInstanceWithContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("pdf engine: %w", err)
	}
	mod, ok := moduleOf(inst.GetImplementation())
	if !ok {
		inst.Close()
		return nil, errEngineBinding
	}
	e := &pdfEngine{inst: inst, mod: mod, flagged: rt.flagged, fns: map[string]api.Function{}}
	if e.scratch, err = e.malloc(ctx, scratchSize); err != nil {
		e.release()
		return nil, err
	}
	e.size = scratchSize
	return e, nil
}

// moduleOf returns the WebAssembly module of go-pdfium's webassembly
// implementation (its exported Module field).
func moduleOf(impl any) (api.Module, bool) {
	v := reflect.ValueOf(impl)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	f := v.Elem().FieldByName("Module")
	if !f.IsValid() || !f.CanInterface() {
		return nil, false
	}
	m, ok := f.Interface().(api.Module)
	return m, ok && m != nil
}

// release returns the instance to the pool, or kills it when a call
// failed or was interrupted (its state is unknown).
func (e *pdfEngine) release() {
	if e.inst == nil {
		return
	}
	e.watch(context.Background())
	if e.broken {
		e.inst.Kill()
	} else {
		if e.scratch != 0 {
			e.free(context.Background(), e.scratch)
		}
		e.inst.Close()
	}
	e.inst = nil
}

// fail marks the instance broken by err (the first cause is kept, for the
// calls after it) and returns err.
func (e *pdfEngine) fail(err error) error {
	if !e.broken {
		e.broken, e.cause = true, err
	}
	return err
}

// call calls an exported PDFium function with i32 arguments and returns
// its first result's bits (0 for none). A failed call breaks the engine;
// when ctx ended, its error is returned.
func (e *pdfEngine) call(ctx context.Context, name string, args ...uint64) (r uint64, err error) {
	if e.broken {
		// The cause stays visible: a read whose deadline stopped an
		// earlier call (whose caller ignored the error: a free) fails
		// with that deadline, not with a new error of its own.
		return 0, fmt.Errorf("pdf engine: the instance failed earlier: %w", e.cause)
	}
	fn := e.fns[name]
	if fn == nil {
		if fn = e.mod.ExportedFunction(name); fn == nil {
			return 0, fmt.Errorf("pdf engine: no function %s", name)
		}
		e.fns[name] = fn
	}
	if e.flagged {
		if err := ctx.Err(); err != nil {
			return 0, e.fail(err) // its work is over: as if stopped mid-call
		}
		if e.watch(ctx); e.broken {
			return 0, fmt.Errorf("pdf engine: the instance was stopped: %w", e.cause)
		}
	}
	defer func() {
		if p := recover(); p != nil {
			r, err = 0, e.fail(fmt.Errorf("pdf engine: %s: %v", name, p))
		}
	}()
	stack := e.stack[:max(len(args), 1)]
	copy(stack, args)
	if err := fn.CallWithStack(ctx, stack); err != nil {
		if ctx.Err() != nil {
			return 0, e.fail(ctx.Err())
		}
		return 0, e.fail(fmt.Errorf("pdf engine: %s: %w", name, err))
	}
	return stack[0], nil
}

// watch makes the end of ctx raise the instance's stop flag, instead of
// the end of the context watched so far. An instance whose flag was
// raised is broken.
func (e *pdfEngine) watch(ctx context.Context) {
	done := ctx.Done()
	if done == e.watched {
		return
	}
	if e.unwatch != nil && !e.unwatch() {
		e.fail(e.watchedCtx.Err()) // the flag is (being) raised: that context ended
	}
	e.watchedCtx, e.watched, e.unwatch = ctx, done, nil
	if done != nil && !e.broken {
		mod := e.mod
		e.unwatch = context.AfterFunc(ctx, func() { wasmstop.Stop(mod) })
	}
}

// callInt is call for a function returning a C int.
func (e *pdfEngine) callInt(ctx context.Context, name string, args ...uint64) (int, error) {
	r, err := e.call(ctx, name, args...)
	return int(int32(uint32(r))), err
}

// callF64 is call for a function returning a double.
func (e *pdfEngine) callF64(ctx context.Context, name string, args ...uint64) (float64, error) {
	r, err := e.call(ctx, name, args...)
	return math.Float64frombits(r), err
}

func (e *pdfEngine) malloc(ctx context.Context, n uint32) (uint32, error) {
	p, err := e.call(ctx, "malloc", uint64(n))
	if err == nil && p == 0 {
		err = errors.New("pdf engine: out of memory")
	}
	return uint32(p), err
}

func (e *pdfEngine) free(ctx context.Context, p uint32) {
	e.call(ctx, "free", uint64(p))
}

// grow makes the scratch buffer at least n bytes.
func (e *pdfEngine) grow(ctx context.Context, n uint32) error {
	if n <= e.size {
		return nil
	}
	size := max(n, 2*e.size)
	p, err := e.malloc(ctx, size)
	if err != nil {
		return err
	}
	e.free(ctx, e.scratch)
	e.scratch, e.size = p, size
	return nil
}

// read returns n bytes of guest memory at p (a view: valid until the next
// call).
func (e *pdfEngine) read(p, n uint32) ([]byte, error) {
	b, ok := e.mod.Memory().Read(p, n)
	if !ok {
		return nil, e.fail(errors.New("pdf engine: read outside its memory"))
	}
	return b, nil
}

// f32 reads the float at scratch offset off.
func (e *pdfEngine) f32(off uint32) float64 {
	v, _ := e.mod.Memory().ReadUint32Le(e.scratch + off)
	return float64(math.Float32frombits(v))
}

// f64 reads the double at scratch offset off.
func (e *pdfEngine) f64(off uint32) float64 {
	v, _ := e.mod.Memory().ReadUint64Le(e.scratch + off)
	return math.Float64frombits(v)
}

// utf16String calls a PDFium getter that writes UTF-16LE text with a
// terminating NUL into a buffer and returns the bytes it needs (the
// buffer and its length being the last two arguments), at most max
// bytes.
func (e *pdfEngine) utf16String(ctx context.Context, name string, maxBytes uint32, args ...uint64) (string, error) {
	n, err := e.call(ctx, name, append(args, uint64(e.scratch), uint64(e.size))...)
	if err != nil || n <= 2 {
		return "", err
	}
	if uint32(n) > e.size {
		if uint32(n) > maxBytes {
			return "", nil
		}
		if err := e.grow(ctx, uint32(n)); err != nil {
			return "", err
		}
		if n, err = e.call(ctx, name, append(args, uint64(e.scratch), uint64(e.size))...); err != nil || n <= 2 || uint32(n) > e.size {
			return "", err
		}
	}
	b, err := e.read(e.scratch, uint32(n)-2)
	if err != nil {
		return "", err
	}
	return decodeUTF16(b), nil
}

// decodeUTF16 decodes UTF-16LE bytes.
func decodeUTF16(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}

// cString writes s with a terminating NUL at scratch offset off and
// returns its address.
func (e *pdfEngine) cString(off uint32, s string) (uint32, error) {
	if off+uint32(len(s))+1 > e.size {
		return 0, errors.New("pdf engine: string too long")
	}
	if !e.mod.Memory().Write(e.scratch+off, append([]byte(s), 0)) {
		return 0, e.fail(errors.New("pdf engine: write outside its memory"))
	}
	return e.scratch + off, nil
}

// PDFium's FPDF_GetLastError codes.
const (
	pdfErrFile     = 2
	pdfErrFormat   = 3
	pdfErrPassword = 4
	pdfErrSecurity = 5
)

// pdfDoc is a PDF document open on an engine.
type pdfDoc struct {
	e     *pdfEngine
	buf   uint32 // the file's bytes in guest memory (PDFium reads them in place)
	doc   uint64 // FPDF_DOCUMENT
	fonts map[uint64]pdfFont
}

// pdfFont is what layout needs of a text object's font.
type pdfFont struct {
	size float64 // rendered size in points
	mono bool
}

// openDoc loads src into the engine.
func openDoc(ctx context.Context, e *pdfEngine, src []byte) (*pdfDoc, error) {
	if len(src) > math.MaxInt32 {
		return nil, errors.New("pdf too large")
	}
	buf, err := e.malloc(ctx, uint32(max(len(src), 1)))
	if err != nil {
		return nil, err
	}
	if !e.mod.Memory().Write(buf, src) {
		e.free(ctx, buf)
		return nil, errors.New("pdf engine: the file does not fit in its memory")
	}
	doc, err := e.call(ctx, "FPDF_LoadMemDocument64", uint64(buf), uint64(len(src)), 0)
	if err != nil {
		return nil, err
	}
	if doc == 0 {
		code, _ := e.callInt(ctx, "FPDF_GetLastError")
		e.free(ctx, buf)
		return nil, openError(code, src)
	}
	return &pdfDoc{e: e, buf: buf, doc: doc, fonts: map[uint64]pdfFont{}}, nil
}

// openError says why PDFium could not open src, in words a reader of
// the catalog understands.
func openError(code int, src []byte) error {
	switch code {
	case pdfErrPassword:
		return errors.New("the PDF is encrypted (a password is required)")
	case pdfErrSecurity:
		return errors.New("the PDF uses an unsupported encryption")
	case pdfErrFormat, pdfErrFile:
		switch {
		case len(src) == 0:
			return errors.New("the file is empty (0 bytes)")
		case !bytes.Contains(src[:min(len(src), 1024)], []byte("%PDF-")):
			return errors.New("not a PDF file (no %PDF- header)")
		case !bytes.Contains(src[max(0, len(src)-1024):], []byte("%%EOF")):
			return fmt.Errorf("the PDF is cut short (%s, no end-of-file marker)", humanize.IBytes(uint64(len(src))))
		}
		return errors.New("the PDF is damaged (its structure cannot be read)")
	}
	return fmt.Errorf("open pdf: PDFium error %d", code)
}

// close closes the document and frees its bytes.
func (d *pdfDoc) close(ctx context.Context) {
	if d.e.broken {
		return // the instance is killed with everything in it
	}
	d.e.call(ctx, "FPDF_CloseDocument", d.doc)
	d.e.free(ctx, d.buf)
}

// pageCount is the number of pages.
func (d *pdfDoc) pageCount(ctx context.Context) (int, error) {
	n, err := d.e.callInt(ctx, "FPDF_GetPageCount", d.doc)
	if err != nil {
		return 0, fmt.Errorf("page count: %w", err)
	}
	return max(n, 0), nil
}

// meta returns an entry of the document information dictionary ("" when
// absent or on error).
func (d *pdfDoc) meta(ctx context.Context, tag string) string {
	// The tag sits at the end of the scratch buffer, the value at its start.
	at, err := d.e.cString(d.e.size-64, tag)
	if err != nil {
		return ""
	}
	n, err := d.e.call(ctx, "FPDF_GetMetaText", d.doc, uint64(at), uint64(d.e.scratch), uint64(d.e.size-64))
	if err != nil || n <= 2 || uint32(n) > d.e.size-64 {
		return ""
	}
	b, err := d.e.read(d.e.scratch, uint32(n)-2)
	if err != nil {
		return ""
	}
	return decodeUTF16(b)
}

// OutlineEntry is one bookmark of a PDF's outline (its table of contents
// for viewers): its title, depth (0 for the top level) and the page it
// points to (-1 for none).
type OutlineEntry struct {
	Title string `json:"title"`
	Depth int    `json:"depth,omitempty"`
	Page  int    `json:"page"`
}

// Bounds of an outline read: a hostile file can hold a bookmark tree of
// any size, or one whose siblings loop.
const (
	maxOutlineEntries = 5000
	maxOutlineDepth   = 16
	maxOutlineTitle   = 1024 // bytes of UTF-16
)

// outline reads the document's bookmarks, depth first.
func (d *pdfDoc) outline(ctx context.Context) ([]OutlineEntry, error) {
	var out []OutlineEntry
	seen := map[uint64]bool{}
	var walk func(parent uint64, depth int) error
	walk = func(parent uint64, depth int) error {
		bm, err := d.e.call(ctx, "FPDFBookmark_GetFirstChild", d.doc, parent)
		for ; err == nil && bm != 0 && !seen[bm] && len(out) < maxOutlineEntries; bm, err = d.e.call(ctx, "FPDFBookmark_GetNextSibling", d.doc, bm) {
			seen[bm] = true
			title, err := d.e.utf16String(ctx, "FPDFBookmark_GetTitle", maxOutlineTitle, bm)
			if err != nil {
				return err
			}
			page, err := d.bookmarkPage(ctx, bm)
			if err != nil {
				return err
			}
			out = append(out, OutlineEntry{Title: clean(collapse(title)), Depth: depth, Page: page})
			if depth+1 < maxOutlineDepth {
				if err := walk(bm, depth+1); err != nil {
					return err
				}
			}
		}
		return err
	}
	if err := walk(0, 0); err != nil {
		return nil, fmt.Errorf("outline: %w", err)
	}
	return out, nil
}

// bookmarkPage is the page a bookmark points to (its destination, or its
// action's), -1 for none.
func (d *pdfDoc) bookmarkPage(ctx context.Context, bm uint64) (int, error) {
	dest, err := d.e.call(ctx, "FPDFBookmark_GetDest", d.doc, bm)
	if err != nil {
		return -1, err
	}
	if dest == 0 {
		action, err := d.e.call(ctx, "FPDFBookmark_GetAction", bm)
		if err != nil || action == 0 {
			return -1, err
		}
		if dest, err = d.e.call(ctx, "FPDFAction_GetDest", d.doc, action); err != nil || dest == 0 {
			return -1, err
		}
	}
	return d.e.callInt(ctx, "FPDFDest_GetDestPageIndex", d.doc, dest)
}
