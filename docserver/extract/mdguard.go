package extract

import (
	"context"

	"github.com/yuin/goldmark/text"
)

// Goldmark has no context and some inputs make its block parser do work
// quadratic (or worse) in the input: 5,000 list items each indented one
// level deeper (every line is re-examined by every open list), or one
// line of 100,000 "- " markers (every nested list re-scans the rest of
// the line for a thematic break). guardedReader is the text.Reader it
// parses from: it charges every line it hands out by its length, a fair
// measure of the work done on it, and once the work passes a budget
// proportional to the input, or the context ends, it reports the end of
// the input. Goldmark then closes its open blocks and returns what it has
// parsed, and the caller marks the document truncated (or, when the
// context ended, fails with the context's error).

// mdWorkPerByte is the budget of line bytes handed out per input byte.
// Real documents stay far below it (each line is seen a few times per
// open container): over 696 Markdown files on this machine (Go's doc/
// and src/, npm packages, /usr/share/doc, the module cache) the largest
// ratio was 13.9.
const (
	mdWorkPerByte = 64
	mdWorkMin     = 4 << 20
)

type guardedReader struct {
	text.Reader
	ctx       context.Context
	budget    int64
	calls     int
	exhausted bool // the work budget ran out
	stopped   bool // exhausted or the context ended
}

func newGuardedReader(ctx context.Context, src []byte) *guardedReader {
	return &guardedReader{
		Reader: text.NewReader(src),
		ctx:    ctx,
		budget: max(int64(len(src))*mdWorkPerByte, mdWorkMin),
	}
}

// stop reports whether parsing must end, checking the context now and
// then.
func (r *guardedReader) stop() bool {
	if r.stopped {
		return true
	}
	if r.calls++; r.calls%1024 == 0 && r.ctx.Err() != nil {
		r.stopped = true
	}
	return r.stopped
}

func (r *guardedReader) PeekLine() ([]byte, text.Segment) {
	if r.stop() {
		_, seg := r.Reader.PeekLine()
		return nil, seg
	}
	line, seg := r.Reader.PeekLine()
	if r.budget -= int64(len(line)) + 1; r.budget < 0 {
		r.exhausted, r.stopped = true, true
	}
	return line, seg
}

func (r *guardedReader) Peek() byte {
	if r.stop() {
		return text.EOF
	}
	return r.Reader.Peek()
}

func (r *guardedReader) SkipBlankLines() (text.Segment, int, bool) {
	if r.stop() {
		_, seg := r.Reader.PeekLine()
		return seg, 0, false
	}
	return r.Reader.SkipBlankLines()
}
