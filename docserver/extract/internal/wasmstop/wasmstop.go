// Package wasmstop rewrites a WebAssembly module so that code running in
// it can be stopped from outside, cheaply, under wazero.
//
// wazero can interrupt running WebAssembly itself (WithCloseOnContextDone):
// every loop iteration leaves the compiled code for Go, which checks
// whether the module was closed, and every call into the module starts a
// goroutine that watches the call's context. PDFium ran 2.5-3 times slower
// with it. Without it, running WebAssembly can neither be stopped nor
// preempted: a goroutine in a long call holds up the garbage collector's
// stop-the-world, and so the whole process, until the call returns.
//
// The rewrite makes every loop count its iterations down in a global; once
// every yieldEvery iterations it leaves the compiled code for Go (memory.grow
// by 0 pages: a no-op that wazero serves in Go, where the goroutine can be
// preempted) and traps (unreachable) if the stop flag, an exported mutable
// i32 global (StopGlobal), is set. The host raises the flag from another
// goroutine when it wants the code stopped (Stop). As with wazero's check,
// only loops are checked: straight-line code and recursion end on their own
// (recursion at the stack limit).
package wasmstop

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/tetratelabs/wazero/api"
)

// StopGlobal is the name the rewritten module exports its stop flag by.
const StopGlobal = "wasmstop_flag"

// yieldEvery is how many loop iterations run between two visits to Go (a
// visit costs about as much as a few hundred iterations of a short loop).
const yieldEvery = 1 << 14

// Section IDs.
const (
	secCustom = 0
	secImport = 2
	secMemory = 5
	secGlobal = 6
	secExport = 7
	secCode   = 10
)

// sectionRank orders the known sections as the binary format requires
// (the tag section, 13, sits between memory and global).
var sectionRank = map[byte]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 13: 6, 6: 7, 7: 8, 8: 9, 9: 10, 12: 11, 10: 12, 11: 13}

// Rewrite returns a copy of the module whose loops check the stop flag,
// with the flag (initially 0) added and exported as StopGlobal.
func Rewrite(mod []byte) ([]byte, error) {
	if len(mod) < 8 || string(mod[:4]) != "\x00asm" || binary.LittleEndian.Uint32(mod[4:8]) != 1 {
		return nil, errors.New("wasmstop: not a WebAssembly 1.0 binary module")
	}
	rw := &rewriter{out: make([]byte, 0, len(mod)+len(mod)/16)}
	rw.out = append(rw.out, mod[:8]...)
	r := &reader{b: mod, p: 8}
	for r.p < len(r.b) {
		id, body, err := r.section()
		if err != nil {
			return nil, err
		}
		if id != secCustom {
			if err := rw.addMissingBefore(id); err != nil {
				return nil, err
			}
		}
		if body, err = rw.rewriteSection(id, body); err != nil {
			return nil, err
		}
		rw.out = appendSection(rw.out, id, body)
	}
	if !rw.haveGlobals {
		rw.addGlobalSection()
	}
	if !rw.haveExports {
		rw.addExportSection()
	}
	return rw.out, nil
}

// rewriter holds the rewritten module as it is written and what the
// sections read so far tell about the original.
type rewriter struct {
	out                                       []byte
	importedGlobals, definedGlobals, memories uint32
	haveGlobals, haveExports                  bool
}

// flag is the index of the stop flag: it and the loop counter are the
// last two globals.
func (rw *rewriter) flag() uint32 { return rw.importedGlobals + rw.definedGlobals }

// section reads the next section's id and size and returns its id and
// body.
func (r *reader) section() (byte, []byte, error) {
	id, err := r.byte()
	if err != nil {
		return 0, nil, err
	}
	size, err := r.u32()
	if err != nil {
		return 0, nil, err
	}
	if uint64(r.p)+uint64(size) > uint64(len(r.b)) {
		return 0, nil, fmt.Errorf("wasmstop: section %d runs past the end", id)
	}
	body := r.b[r.p : r.p+int(size)]
	r.p += int(size)
	return id, body, nil
}

// addMissingBefore writes the global and export sections a module without
// them gets, once the known section id, which must come after them, is
// reached.
func (rw *rewriter) addMissingBefore(id byte) error {
	rank, ok := sectionRank[id]
	if !ok {
		return fmt.Errorf("wasmstop: unknown section %d", id)
	}
	if !rw.haveGlobals && rank > sectionRank[secGlobal] {
		rw.addGlobalSection()
	}
	if !rw.haveExports && rank > sectionRank[secExport] {
		rw.addExportSection()
	}
	return nil
}

// addGlobalSection writes a global section of the stop flag and the loop
// counter only.
func (rw *rewriter) addGlobalSection() {
	rw.out = appendSection(rw.out, secGlobal, appendGlobals(nil, 0, nil))
	rw.haveGlobals = true
}

// addExportSection writes an export section of the stop flag only.
func (rw *rewriter) addExportSection() {
	rw.out = appendSection(rw.out, secExport, appendExport(nil, 0, nil, rw.flag()))
	rw.haveExports = true
}

// rewriteSection notes what section id of the original tells and returns
// its body as the rewritten module has it: the global and export sections
// gain the stop flag's entries, the code section the loops' checks.
func (rw *rewriter) rewriteSection(id byte, body []byte) ([]byte, error) {
	switch id {
	case secImport:
		globals, memories, err := countImports(body)
		if err != nil {
			return nil, err
		}
		rw.importedGlobals, rw.memories = globals, memories
	case secMemory:
		n, _, err := splitVector(body)
		if err != nil {
			return nil, err
		}
		rw.memories += n
	case secGlobal:
		n, rest, err := splitVector(body)
		if err != nil {
			return nil, err
		}
		rw.definedGlobals, rw.haveGlobals = n, true
		return appendGlobals(nil, n, rest), nil
	case secExport:
		n, rest, err := splitVector(body)
		if err != nil {
			return nil, err
		}
		rw.haveExports = true
		return appendExport(nil, n, rest, rw.flag()), nil
	case secCode:
		if rw.memories == 0 {
			return nil, errors.New("wasmstop: the module has no memory (the loops' visits to Go grow it by 0 pages)")
		}
		return rewriteCode(body, rw.flag())
	}
	return body, nil
}

// splitVector reads the count a vector section starts with and returns it
// with the encoding of the entries after it.
func splitVector(body []byte) (uint32, []byte, error) {
	r := &reader{b: body}
	n, err := r.u32()
	if err != nil {
		return 0, nil, err
	}
	return n, body[r.p:], nil
}

// Stop raises the stop flag of an instance of a rewritten module: its
// running code traps at its next loop iteration, and so does every later
// call that loops. It reports whether the module has the flag.
func Stop(m api.Module) bool {
	g, ok := m.ExportedGlobal(StopGlobal).(api.MutableGlobal)
	if ok {
		g.Set(1)
	}
	return ok
}

func appendSection(out []byte, id byte, body []byte) []byte {
	out = append(out, id)
	out = binary.AppendUvarint(out, uint64(len(body)))
	return append(out, body...)
}

// appendGlobals writes a global section of n globals (their encoding in
// rest) followed by the stop flag and the loop counter: mutable i32s
// initialised to 0 and yieldEvery.
func appendGlobals(out []byte, n uint32, rest []byte) []byte {
	out = binary.AppendUvarint(out, uint64(n)+2)
	out = append(out, rest...)
	out = append(out, 0x7f, 0x01, 0x41, 0x00, 0x0b) // i32 mut, i32.const 0 end
	out = append(out, 0x7f, 0x01, 0x41)
	out = appendSLEB(out, yieldEvery)
	return append(out, 0x0b)
}

// appendExport writes an export section of n exports (their encoding in
// rest) followed by the export of global flag as StopGlobal.
func appendExport(out []byte, n uint32, rest []byte, flag uint32) []byte {
	out = binary.AppendUvarint(out, uint64(n)+1)
	out = append(out, rest...)
	out = binary.AppendUvarint(out, uint64(len(StopGlobal)))
	out = append(out, StopGlobal...)
	out = append(out, 0x03) // global
	return binary.AppendUvarint(out, uint64(flag))
}

// loopCheck is the code a loop starts with (flag and counter are the
// globals' indexes):
//
//	global.get counter
//	i32.eqz
//	if
//	  i32.const 0
//	  memory.grow 0     ;; a visit to Go
//	  drop
//	  global.get flag
//	  if
//	    unreachable
//	  end
//	  i32.const yieldEvery
//	  global.set counter
//	else
//	  global.get counter
//	  i32.const 1
//	  i32.sub
//	  global.set counter
//	end
func loopCheck(flag, counter uint32) []byte {
	get := func(b []byte, g uint32) []byte { return binary.AppendUvarint(append(b, 0x23), uint64(g)) }
	set := func(b []byte, g uint32) []byte { return binary.AppendUvarint(append(b, 0x24), uint64(g)) }
	c := get(nil, counter)
	c = append(c, 0x45, 0x04, 0x40, 0x41, 0x00, 0x40, 0x00, 0x1a)
	c = get(c, flag)
	c = append(c, 0x04, 0x40, 0x00, 0x0b, 0x41)
	c = appendSLEB(c, yieldEvery)
	c = set(c, counter)
	c = get(append(c, 0x05), counter)
	c = set(append(c, 0x41, 0x01, 0x6b), counter)
	return append(c, 0x0b)
}

// countImports counts the globals and memories an import section imports.
func countImports(body []byte) (globals, memories uint32, err error) {
	r := &reader{b: body}
	n, err := r.u32()
	if err != nil {
		return 0, 0, err
	}
	for range n {
		for range 2 { // module and field names
			l, err := r.u32()
			if err != nil {
				return 0, 0, err
			}
			if err := r.skip(int(l)); err != nil {
				return 0, 0, err
			}
		}
		kind, err := r.byte()
		if err != nil {
			return 0, 0, err
		}
		switch kind {
		case 0x00: // function: type index
			_, err = r.u32()
		case 0x01: // table: reference type, limits
			if err = r.valType(); err == nil {
				err = r.limits()
			}
		case 0x02: // memory: limits
			memories++
			err = r.limits()
		case 0x03: // global: value type, mutability
			globals++
			if err = r.valType(); err == nil {
				_, err = r.byte()
			}
		case 0x04: // tag: attribute, type index
			if _, err = r.byte(); err == nil {
				_, err = r.u32()
			}
		default:
			err = fmt.Errorf("wasmstop: unknown import kind %d", kind)
		}
		if err != nil {
			return 0, 0, err
		}
	}
	return globals, memories, nil
}

// rewriteCode rewrites a code section: each function body gets the check
// after every loop instruction.
func rewriteCode(body []byte, flag uint32) ([]byte, error) {
	check := loopCheck(flag, flag+1)
	r := &reader{b: body}
	n, err := r.u32()
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(body)+len(body)/8)
	out = binary.AppendUvarint(out, uint64(n))
	var fn []byte
	var loops []int
	for i := range n {
		size, err := r.u32()
		if err != nil {
			return nil, err
		}
		if r.p+int(size) > len(r.b) {
			return nil, fmt.Errorf("wasmstop: function %d runs past the code section", i)
		}
		f := &reader{b: r.b[r.p : r.p+int(size)]}
		r.p += int(size)
		if loops, err = f.loops(loops[:0]); err != nil {
			return nil, fmt.Errorf("wasmstop: function %d: %w", i, err)
		}
		fn = fn[:0]
		last := 0
		for _, at := range loops {
			fn = append(fn, f.b[last:at]...)
			fn = append(fn, check...)
			last = at
		}
		fn = append(fn, f.b[last:]...)
		out = binary.AppendUvarint(out, uint64(len(fn)))
		out = append(out, fn...)
	}
	if r.p != len(r.b) {
		return nil, errors.New("wasmstop: bytes after the last function body")
	}
	return out, nil
}

// appendSLEB appends v as a signed LEB128.
func appendSLEB(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
