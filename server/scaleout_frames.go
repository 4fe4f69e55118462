package server

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"slices"
	"time"
)

// frame is what nodes send each other: a routed request ("q") or its
// answer ("r").
type frame struct {
	Kind     string            `json:"k"`
	ID       uint64            `json:"id"`
	From     string            `json:"from,omitempty"`
	SID      string            `json:"sid,omitempty"`
	Office   string            `json:"office,omitempty"`
	Computer string            `json:"computer,omitempty"`
	Event    string            `json:"event,omitempty"`
	Timeout  time.Duration     `json:"timeout,omitempty"`
	Payload  json.RawMessage   `json:"payload,omitempty"`
	Args     []json.RawMessage `json:"args,omitempty"`
	// Stale (an answer): the seat the request was sent to is not that
	// computer's (any more); its sender answers or looks it up again.
	Stale bool `json:"stale,omitempty"`
}

// A frame on the wire is its kind ('Q' a request, 'R' an answer) and its
// fields as uvarints and length-prefixed strings, then the payload (a
// request's) or the arguments (an answer's, each length-prefixed) as the
// raw JSON they are: a body crossing nodes is copied, never encoded or
// decoded. Nodes before this format sent JSON objects ('{'), which are
// still read.
const (
	frameRequest = 'Q'
	frameAnswer  = 'R'
	frameStale   = 1 // an answer's flag
)

// errFrame is a frame that does not decode.
var errFrame = errors.New("malformed frame")

// appendRequest encodes a request frame.
func appendRequest(buf []byte, f *frame) []byte {
	size := 1 + 2*binary.MaxVarintLen64 + len(f.Payload)
	for _, s := range [...]string{f.From, f.SID, f.Office, f.Computer, f.Event} {
		size += binary.MaxVarintLen64 + len(s)
	}
	buf = slices.Grow(buf, size)
	buf = append(buf, frameRequest)
	buf = binary.AppendUvarint(buf, f.ID)
	for _, s := range [...]string{f.From, f.SID, f.Office, f.Computer, f.Event} {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	buf = binary.AppendVarint(buf, int64(f.Timeout))
	return append(buf, f.Payload...)
}

// appendAnswer encodes an answer frame: args are raw JSON.
func appendAnswer(buf []byte, id uint64, stale bool, args []json.RawMessage) []byte {
	size := 2 + 2*binary.MaxVarintLen64
	for _, a := range args {
		size += binary.MaxVarintLen64 + len(a)
	}
	buf = slices.Grow(buf, size)
	buf = append(buf, frameAnswer)
	buf = binary.AppendUvarint(buf, id)
	flags := byte(0)
	if stale {
		flags |= frameStale
	}
	buf = append(buf, flags)
	buf = binary.AppendUvarint(buf, uint64(len(args)))
	for _, a := range args {
		buf = binary.AppendUvarint(buf, uint64(len(a)))
		buf = append(buf, a...)
	}
	return buf
}

// parseFrame decodes a frame; its payload and arguments share raw's bytes.
func parseFrame(raw []byte) (frame, error) {
	var f frame
	if len(raw) > 0 && raw[0] == '{' {
		err := json.Unmarshal(raw, &f)
		return f, err
	}
	r := frameReader{b: raw}
	switch r.byte() {
	case frameRequest:
		f.Kind = "q"
		f.ID = r.uvarint()
		for _, s := range [...]*string{&f.From, &f.SID, &f.Office, &f.Computer, &f.Event} {
			*s = string(r.bytes())
		}
		f.Timeout = time.Duration(r.varint())
		f.Payload = r.rest()
	case frameAnswer:
		f.Kind = "r"
		f.ID = r.uvarint()
		f.Stale = r.byte()&frameStale != 0
		n := r.uvarint()
		if n > uint64(len(raw)) {
			return f, errFrame
		}
		f.Args = make([]json.RawMessage, 0, n)
		for range n {
			f.Args = append(f.Args, r.bytes())
		}
	default:
		return f, errFrame
	}
	if r.bad {
		return f, errFrame
	}
	return f, nil
}

// frameReader reads the fields of a frame; bad records a frame cut short.
type frameReader struct {
	b   []byte
	bad bool
}

func (r *frameReader) byte() byte {
	if len(r.b) == 0 {
		r.bad = true
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *frameReader) uvarint() uint64 { return number(r, binary.Uvarint) }
func (r *frameReader) varint() int64   { return number(r, binary.Varint) }

// number reads a number decode decodes (a varint).
func number[T uint64 | int64](r *frameReader, decode func([]byte) (T, int)) T {
	v, n := decode(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

// bytes reads a length-prefixed field.
func (r *frameReader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.bad = true
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *frameReader) rest() []byte {
	out := r.b
	r.b = nil
	return out
}
