package mcpclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/internal/ratelog"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Bounds of what the Computer takes from an MCP server in one message.
const (
	// MaxMessageBytes bounds one JSON-RPC message (a stdio line): the most
	// a Server carries in one Socket.IO message, so anything bigger could
	// not be passed on anyway.
	MaxMessageBytes = protocol.MaxPayloadBytes
	// MaxDepth bounds the nesting of one message's JSON. encoding/json
	// gives up at 10,000 levels, and mcp-go then drops the line without a
	// word: the request waited for its timeout.
	MaxDepth = 1000
)

// ErrTooLarge and ErrTooDeep report an answer the Computer refused
// without decoding it: bigger than MaxMessageBytes, or nested deeper than
// MaxDepth.
var (
	ErrTooLarge = errors.New("answer too large")
	ErrTooDeep  = errors.New("answer nested too deep")
)

// refusedKey marks, in the data of a JSON-RPC error, an answer the guard
// refused (and replaced by that error) rather than one the server sent.
const refusedKey = "smcp_computer_refused"

// Reasons of a refusal, the value of refusedKey.
const (
	reasonTooLarge = "too_large"
	reasonTooDeep  = "too_deep"
)

// refused turns the error answer e back into the refusal the guard made,
// or nil when e is the server's own.
func refused(code int, data any) error {
	d, ok := data.(map[string]any)
	if !ok || code != mcp.INTERNAL_ERROR {
		return nil
	}
	n, _ := d["bytes"].(float64)
	switch d[refusedKey] {
	case reasonTooLarge:
		return fmt.Errorf("%w: more than %d bytes (%d or more), the most the computer accepts in one message", ErrTooLarge, MaxMessageBytes, int64(n))
	case reasonTooDeep:
		return fmt.Errorf("%w: nested deeper than %d levels", ErrTooDeep, MaxDepth)
	}
	return nil
}

// guard sits between an MCP server's stdout and mcp-go's stdio
// transport, which reads whole lines of any length and drops those it
// cannot decode. It passes each JSON-RPC line on unless it is longer than
// MaxMessageBytes or nested deeper than MaxDepth; such a line is never
// held in memory whole: it is scanned as it streams by for its top-level
// "id" and "method", and an answer to a request is replaced by an error
// answer to the same id, so that the request fails at once with the
// reason. A refused notification or request is dropped. Refusals are
// logged, at most one line every few seconds.
type guard struct {
	src      io.Reader
	log      *ratelog.Logger
	maxBytes int64 // MaxMessageBytes
	maxDepth int   // MaxDepth

	buf  []byte // bytes read from src not yet scanned
	line []byte // the current line, while it is within bounds
	sc   scanState
	n    int64  // bytes in the current line
	out  []byte // what Read hands out next
	err  error  // src's error, once it is reached

	// An SSE stream (sse.go): its JSON-RPC messages are its "data:"
	// lines; other lines carry none and are only bounded, and so is an
	// event (its lines up to a blank one) as a whole.
	sse     bool
	kind    int // of the current SSE line: lineUndecided, lineData, lineOther
	head    [len(ssePrefix)]byte
	headLen int   // the current SSE line's first bytes, while undecided
	event   int64 // bytes of the current SSE event's lines before this one
}

// Kinds of SSE lines.
const (
	lineUndecided = iota
	lineData
	lineOther
)

// ssePrefix starts an SSE line that carries data.
const ssePrefix = "data:"

func newGuard(src io.Reader, log *slog.Logger, server string) *guard {
	return &guard{src: src, log: &ratelog.Logger{Log: log.With("server", server)}, maxBytes: MaxMessageBytes, maxDepth: MaxDepth}
}

// Read hands out the next accepted (or replaced) lines.
func (g *guard) Read(p []byte) (int, error) {
	for len(g.out) == 0 {
		if len(g.buf) == 0 {
			if g.err != nil {
				if g.n > 0 { // a last line without newline
					g.finish(false)
					continue
				}
				return 0, g.err
			}
			g.fill()
			continue
		}
		g.scan()
	}
	n := copy(p, g.out)
	g.out = g.out[n:]
	return n, nil
}

// readChunk is how much Read takes from the server at a time.
const readChunk = 64 << 10

func (g *guard) fill() {
	if cap(g.buf) < readChunk {
		g.buf = make([]byte, 0, readChunk)
	}
	n, err := g.src.Read(g.buf[:readChunk])
	g.buf = g.buf[:n]
	if err != nil {
		g.err = err
	}
}

// scan consumes g.buf up to and including the next newline.
func (g *guard) scan() {
	chunk := g.buf
	end := bytes.IndexByte(chunk, '\n')
	if end >= 0 {
		chunk = chunk[:end]
	}
	g.n += int64(len(chunk))
	if g.n <= g.maxBytes {
		g.line = append(g.line, chunk...)
	} else {
		g.line = nil
	}
	g.feed(chunk, end >= 0)
	if end < 0 {
		g.buf = g.buf[:0]
		return
	}
	g.buf = g.buf[end+1:]
	g.finish(true)
}

// feed passes the current line's JSON, chunk by chunk, to the scanner:
// all of a stdio line; of an SSE line, what follows "data:" once its first
// bytes (kept in head) tell that it starts so.
func (g *guard) feed(chunk []byte, ends bool) {
	if !g.sse {
		g.sc.feed(chunk, g.maxDepth)
		return
	}
	switch g.kind {
	case lineUndecided:
		k := copy(g.head[g.headLen:], chunk)
		g.headLen += k
		if g.headLen < len(ssePrefix) && !ends {
			return
		}
		if string(g.head[:g.headLen]) != ssePrefix {
			g.kind = lineOther
			return
		}
		g.kind = lineData
		g.sc.feed(chunk[k:], g.maxDepth)
	case lineData:
		g.sc.feed(chunk, g.maxDepth)
	}
}

// finish ends the current line: it is handed out, replaced or dropped.
func (g *guard) finish(newline bool) {
	if g.sse {
		g.finishSSE(newline)
		return
	}
	switch {
	case g.n > g.maxBytes:
		g.refuse(reasonTooLarge)
	case g.sc.tooDeep:
		g.refuse(reasonTooDeep)
	default:
		g.out = g.line
		if newline {
			g.out = append(g.out, '\n')
		}
	}
	g.line = nil
	g.n = 0
	g.sc = scanState{}
}

// refuse replaces an answer to a request by an error answer; anything else
// is dropped.
func (g *guard) refuse(reason string) {
	id, ok := g.sc.id()
	answer := ok && !g.sc.method
	g.log.Warn("mcp server message refused", "reason", reason, "bytes", g.n, "max_bytes", g.maxBytes,
		"max_depth", g.maxDepth, "answer", answer, "id", string(id))
	if !answer {
		return
	}
	msg := fmt.Sprintf("answer refused by the computer: larger than %d bytes", g.maxBytes)
	if reason == reasonTooDeep {
		msg = fmt.Sprintf("answer refused by the computer: nested deeper than %d levels", g.maxDepth)
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
		"code": mcp.INTERNAL_ERROR, "message": msg, "data": map[string]any{refusedKey: reason, "bytes": g.n},
	}})
	if err != nil {
		return
	}
	if g.sse {
		b = append([]byte(ssePrefix+" "), b...)
	}
	g.out = append(b, '\n')
}

// finishSSE ends an SSE line: a data line is handed out, replaced or
// dropped as a stdio line is; another line is dropped when over the bound;
// a line that would take what its event passed on over the bound is
// dropped (the event's data is then incomplete, and mcp-go drops it).
func (g *guard) finishSSE(newline bool) {
	blank := g.n == 0 || (g.n == 1 && len(g.line) == 1 && g.line[0] == '\r')
	switch {
	case blank:
		g.out = append(g.line, '\n')
		g.event = 0
	case g.kind == lineData && (g.n > g.maxBytes || g.sc.tooDeep):
		reason := reasonTooLarge
		if g.n <= g.maxBytes {
			reason = reasonTooDeep
		}
		g.refuse(reason)
	case g.n > g.maxBytes || g.event+g.n > g.maxBytes:
		g.log.Warn("mcp server SSE line refused", "bytes", g.n, "event_bytes", g.event+g.n, "max_bytes", g.maxBytes)
	default:
		g.out = g.line
		if newline {
			g.out = append(g.out, '\n')
		}
	}
	if !blank {
		g.event += int64(len(g.out))
	}
	g.line = nil
	g.n = 0
	g.kind, g.headLen = lineUndecided, 0
	g.sc = scanState{}
}

// scanState follows one line of JSON as it streams by, without keeping
// it: the nesting depth, and the top-level "id" (its raw value, when
// short) and "method" keys of a JSON-RPC message.
type scanState struct {
	depth   int
	tooDeep bool
	inStr   bool
	esc     bool
	// At depth 1: expecting a key, reading one (key holds its first
	// bytes, keyLen its length), or reading the value of keyID.
	wantKey bool
	inKey   bool
	key     [8]byte
	keyLen  int
	value   int // which key's value is being read: 0 none, 1 id, 2 method
	idBuf   [64]byte
	idLen   int
	idLong  bool // the id's value is longer than idBuf
	idDone  bool
	method  bool
}

const (
	valNone = iota
	valID
	valMethod
	valOther
)

// id returns the raw top-level id, when the line had a usable one.
func (s *scanState) id() (json.RawMessage, bool) {
	if !s.idDone || s.idLong || s.idLen == 0 {
		return nil, false
	}
	raw := bytes.TrimSpace(s.idBuf[:s.idLen])
	if !json.Valid(raw) || (raw[0] != '"' && raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return nil, false // ids are strings or numbers
	}
	return json.RawMessage(bytes.Clone(raw)), true
}

func (s *scanState) feed(b []byte, maxDepth int) {
	for i := 0; i < len(b); i++ {
		if s.inStr && !s.esc && !s.inKey && s.value != valID {
			// Inside a string nobody needs: skip to its next quote or
			// backslash.
			rest := b[i:]
			q := bytes.IndexByte(rest, '"')
			if q < 0 {
				q = len(rest)
			}
			if e := bytes.IndexByte(rest[:q], '\\'); e >= 0 {
				q = e
			}
			if i += q; i >= len(b) {
				return
			}
		}
		s.step(b[i], maxDepth)
	}
}

func (s *scanState) step(c byte, maxDepth int) {
	if s.value == valID && s.depth >= 1 && !s.idDone {
		// Inside the id's value: keep its bytes until it ends (a comma or
		// the closing brace at depth 1, outside a string).
		if !s.inStr && s.depth == 1 && (c == ',' || c == '}') {
			s.idDone = true
			s.value = valNone
		} else if s.idLen < len(s.idBuf) {
			s.idBuf[s.idLen] = c
			s.idLen++
		} else {
			s.idLong = true
		}
	}
	if s.inStr {
		switch {
		case s.esc:
			s.esc = false
		case c == '\\':
			s.esc = true
		case c == '"':
			s.inStr = false
			if s.inKey {
				s.inKey = false
			}
		default:
			if s.inKey {
				if s.keyLen < len(s.key) {
					s.key[s.keyLen] = c
				}
				s.keyLen++
			}
		}
		return
	}
	switch c {
	case '"':
		s.inStr = true
		if s.depth == 1 && s.wantKey {
			s.inKey, s.wantKey, s.keyLen = true, false, 0
		}
	case '{', '[':
		s.depth++
		if s.depth > maxDepth {
			s.tooDeep = true
		}
		if s.depth == 1 && c == '{' {
			s.wantKey = true
		}
	case '}', ']':
		s.depth--
	case ':':
		if s.depth == 1 {
			s.value = valOther
			switch string(s.key[:min(s.keyLen, len(s.key))]) {
			case "id":
				if s.keyLen == 2 && !s.idDone {
					s.value, s.idLen, s.idLong = valID, 0, false
				}
			case "method":
				if s.keyLen == 6 {
					s.method = true
				}
			}
		}
	case ',':
		if s.depth == 1 {
			s.wantKey, s.value = true, valNone
		}
	}
}
