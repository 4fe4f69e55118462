package wasmstop

import (
	"errors"
	"fmt"
)

// reader walks a WebAssembly binary.
type reader struct {
	b []byte
	p int
}

var errShort = errors.New("wasmstop: unexpected end of module")

// errUnknownOpcode is the error of an opcode the reader does not know.
var errUnknownOpcode = errors.New("unknown opcode")

func (r *reader) byte() (byte, error) {
	if r.p >= len(r.b) {
		return 0, errShort
	}
	c := r.b[r.p]
	r.p++
	return c, nil
}

func (r *reader) skip(n int) error {
	if n < 0 || r.p+n > len(r.b) {
		return errShort
	}
	r.p += n
	return nil
}

// u32 reads an unsigned LEB128 of at most 32 bits.
func (r *reader) u32() (uint32, error) {
	var v uint32
	for shift := 0; shift < 35; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint32(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, errors.New("wasmstop: LEB128 too long")
}

// leb skips a LEB128 (signed or not) of at most bits bits.
func (r *reader) leb(bits int) error {
	for n := 0; n < (bits+6)/7; n++ {
		c, err := r.byte()
		if err != nil {
			return err
		}
		if c < 0x80 {
			return nil
		}
	}
	return errors.New("wasmstop: LEB128 too long")
}

// valType skips a value type: one byte, or a typed reference (0x63/0x64)
// with its heap type.
func (r *reader) valType() error {
	c, err := r.byte()
	if err != nil {
		return err
	}
	if c == 0x63 || c == 0x64 {
		return r.leb(33)
	}
	return nil
}

// blockType skips a block type: empty (0x40), a value type or a type
// index (a signed 33-bit LEB128: every form ends where the LEB does,
// except a typed reference).
func (r *reader) blockType() error {
	if r.p < len(r.b) && (r.b[r.p] == 0x63 || r.b[r.p] == 0x64) {
		return r.valType()
	}
	return r.leb(33)
}

// limits skips a table's or memory's limits.
func (r *reader) limits() error {
	flags, err := r.byte()
	if err != nil {
		return err
	}
	bits := 32
	if flags&0x04 != 0 { // memory64
		bits = 64
	}
	if err := r.leb(bits); err != nil {
		return err
	}
	if flags&0x01 != 0 {
		return r.leb(bits)
	}
	return nil
}

// memarg skips a memory access's alignment (with its memory index when
// bit 6 says so) and offset.
func (r *reader) memarg() error {
	align, err := r.u32()
	if err != nil {
		return err
	}
	if align&0x40 != 0 {
		if _, err := r.u32(); err != nil {
			return err
		}
	}
	return r.leb(64)
}

// loops walks a function body (its locals, then its instructions) and
// appends the offset just after each loop instruction (opcode and block
// type) to at.
func (r *reader) loops(at []int) ([]int, error) {
	groups, err := r.u32()
	if err != nil {
		return nil, err
	}
	for range groups {
		if _, err := r.u32(); err != nil {
			return nil, err
		}
		if err := r.valType(); err != nil {
			return nil, err
		}
	}
	for r.p < len(r.b) {
		op, err := r.byte()
		if err != nil {
			return nil, err
		}
		if err := r.immediates(op); err != nil {
			return nil, fmt.Errorf("opcode 0x%02x at %d: %w", op, r.p-1, err)
		}
		if op == 0x03 { // loop
			at = append(at, r.p)
		}
	}
	return at, nil
}

// immediates skips the immediates of an instruction whose opcode was read.
func (r *reader) immediates(op byte) error {
	switch {
	case op < 0x20:
		return r.controlImmediates(op)
	case op < 0x45:
		return r.variableMemoryImmediates(op)
	case op <= 0xc4: // numeric operators
		return nil
	case op >= 0xd0 && op <= 0xd6:
		return r.referenceImmediates(op)
	case op == 0xfc:
		return r.prefixFC()
	case op == 0xfd:
		return r.prefixSIMD()
	case op == 0xfe:
		return r.prefixAtomic()
	}
	return errUnknownOpcode
}

// controlImmediates skips the immediates of a control instruction
// (opcodes 0x00 to 0x1f, with the exception handling ones).
func (r *reader) controlImmediates(op byte) error {
	switch op {
	case 0x00, 0x01, 0x05, 0x0a, 0x0b, 0x0f, 0x19, 0x1a, 0x1b:
		// unreachable, nop, else, throw_ref, end, return, catch_all, drop,
		// select
		return nil
	case 0x02, 0x03, 0x04, 0x06: // block, loop, if, try
		return r.blockType()
	case 0x07, 0x08, 0x09, 0x0c, 0x0d, 0x10, 0x12, 0x14, 0x15, 0x18:
		// one index: catch, throw, rethrow, br, br_if, call, return_call,
		// call_ref, return_call_ref, delegate
		return r.index()
	case 0x0e: // br_table
		return r.brTable()
	case 0x11, 0x13: // call_indirect, return_call_indirect
		if err := r.index(); err != nil {
			return err
		}
		return r.index()
	case 0x1c: // select with types
		return r.selectTypes()
	case 0x1f: // try_table
		return r.tryTable()
	}
	return errUnknownOpcode
}

// variableMemoryImmediates skips the immediates of a variable, memory or
// constant instruction (opcodes 0x20 to 0x44).
func (r *reader) variableMemoryImmediates(op byte) error {
	switch {
	case op >= 0x20 && op <= 0x26: // local/global/table get and set
		return r.index()
	case op >= 0x28 && op <= 0x3e: // loads and stores
		return r.memarg()
	case op == 0x3f, op == 0x40: // memory.size, memory.grow
		return r.index()
	case op == 0x41: // i32.const
		return r.leb(32)
	case op == 0x42: // i64.const
		return r.leb(64)
	case op == 0x43: // f32.const
		return r.skip(4)
	case op == 0x44: // f64.const
		return r.skip(8)
	}
	return errUnknownOpcode
}

// referenceImmediates skips the immediates of a reference instruction
// (opcodes 0xd0 to 0xd6).
func (r *reader) referenceImmediates(op byte) error {
	switch op {
	case 0xd0: // ref.null
		return r.leb(33)
	case 0xd1, 0xd3, 0xd5: // ref.is_null, ref.as_non_null, ref.eq
		return nil
	case 0xd2, 0xd4, 0xd6: // ref.func, br_on_null, br_on_non_null
		return r.index()
	}
	return errUnknownOpcode
}

// index skips one index (an unsigned 32-bit LEB128).
func (r *reader) index() error {
	_, err := r.u32()
	return err
}

// brTable skips br_table's label vector and its default label.
func (r *reader) brTable() error {
	n, err := r.u32()
	if err != nil {
		return err
	}
	for range n + 1 {
		if err := r.index(); err != nil {
			return err
		}
	}
	return nil
}

// selectTypes skips the value type vector of a typed select.
func (r *reader) selectTypes() error {
	n, err := r.u32()
	if err != nil {
		return err
	}
	for range n {
		if err := r.valType(); err != nil {
			return err
		}
	}
	return nil
}

// tryTable skips try_table's block type and catch clauses (a kind, a tag
// for catch and catch_ref, and a label).
func (r *reader) tryTable() error {
	if err := r.blockType(); err != nil {
		return err
	}
	n, err := r.u32()
	if err != nil {
		return err
	}
	for range n {
		kind, err := r.byte()
		if err != nil {
			return err
		}
		if kind <= 0x01 { // catch, catch_ref: a tag
			if err := r.index(); err != nil {
				return err
			}
		}
		if err := r.index(); err != nil { // the label
			return err
		}
	}
	return nil
}

// prefixFC skips a 0xFC instruction (saturating truncation, bulk memory,
// tables).
func (r *reader) prefixFC() error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	n := 0
	switch {
	case sub <= 7: // trunc_sat
	case sub == 9, sub == 11, sub == 13, sub >= 15 && sub <= 17: // data.drop, memory.fill, elem.drop, table.grow/size/fill
		n = 1
	case sub == 8, sub == 10, sub == 12, sub == 14: // memory.init, memory.copy, table.init, table.copy
		n = 2
	default:
		return fmt.Errorf("unknown 0xfc instruction %d", sub)
	}
	for range n {
		if _, err := r.u32(); err != nil {
			return err
		}
	}
	return nil
}

// prefixSIMD skips a 0xFD (vector) instruction.
func (r *reader) prefixSIMD() error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub <= 11, sub == 92, sub == 93: // loads and stores
		return r.memarg()
	case sub == 12, sub == 13: // v128.const, i8x16.shuffle
		return r.skip(16)
	case sub >= 21 && sub <= 34: // extract and replace lane
		return r.skip(1)
	case sub >= 84 && sub <= 91: // load and store lane
		if err := r.memarg(); err != nil {
			return err
		}
		return r.skip(1)
	case sub <= 0x113:
		return nil
	}
	return fmt.Errorf("unknown 0xfd instruction %d", sub)
}

// prefixAtomic skips a 0xFE (threads) instruction.
func (r *reader) prefixAtomic() error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub == 0x03: // atomic.fence
		return r.skip(1)
	case sub <= 0x4e:
		return r.memarg()
	}
	return fmt.Errorf("unknown 0xfe instruction %d", sub)
}
