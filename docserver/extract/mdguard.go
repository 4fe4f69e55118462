package extract

import (
	"context"

	"github.com/yuin/goldmark/ast"
	gmparser "github.com/yuin/goldmark/parser"
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

	// The inline phase (see inlineGuard).
	inlineBudget int64    // work left
	inlineBlock  ast.Node // the block being parsed
	inlineMarks  int64    // markup characters met in it so far
	inlineCut    bool     // some inline text was left unparsed
}

func newGuardedReader(ctx context.Context, src []byte) *guardedReader {
	budget := max(int64(len(src))*mdWorkPerByte, mdWorkMin)
	return &guardedReader{
		Reader:       text.NewReader(src),
		ctx:          ctx,
		budget:       budget,
		inlineBudget: budget,
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

// Goldmark's inline phase reads each block's text through its own reader,
// out of guardedReader's sight, and its link and emphasis parsers are
// quadratic in the markup characters of one paragraph: each "]" looks back
// over every delimiter still open ("[*a](b) " 50,000 times in one
// paragraph took minutes). inlineGuard runs first at every markup
// character and counts them per block: once a block has had
// mdInlineMarksPerBlock of them, or the document's inline work (the sum,
// over every markup character, of the marks its block had before it: the
// length of the look-backs) passes the budget, or the context ends, it
// takes the rest of the line as plain text, so goldmark's parsers no
// longer see it. The document is then marked truncated (its text is all
// there, but part of its markup was not interpreted).

// mdInlineMarksPerBlock bounds the markup characters of one block that
// are parsed as markup. Over 747 real Markdown files on this machine (Go's
// doc/ and src/, /usr/share/doc, the module cache) the densest block had
// 75, and the inline work per input byte never passed 0.3 (the budget is
// mdWorkPerByte, as for the block phase).
const mdInlineMarksPerBlock = 4096

// inlineGuardKey holds the parse's guardedReader in goldmark's parser
// context.
var inlineGuardKey = gmparser.NewContextKey()

// inlineGuard is the goldmark inline parser described above.
type inlineGuard struct{}

// Trigger returns every markup character of goldmark's inline parsers and
// of the extensions in use (not the space: linkify's scan at a space is
// linear).
func (inlineGuard) Trigger() []byte { return []byte("*_[]!<`~(") }

func (inlineGuard) Parse(parent ast.Node, block text.Reader, pc gmparser.Context) ast.Node {
	r, _ := pc.Get(inlineGuardKey).(*guardedReader)
	if r == nil || !r.inlineStop(parent) {
		return nil
	}
	line, seg := block.PeekLine()
	n := len(line)
	for n > 0 && (line[n-1] == '\n' || line[n-1] == '\r') {
		n-- // the line break stays goldmark's
	}
	if n == 0 {
		return nil
	}
	block.Advance(n)
	return ast.NewTextSegment(seg.WithStop(seg.Start + n))
}

// inlineStop counts one markup character of block and reports whether
// the rest of its line must be left unparsed.
func (r *guardedReader) inlineStop(block ast.Node) bool {
	if r.calls++; r.calls%1024 == 0 && r.ctx.Err() != nil {
		r.inlineBudget = 0
	}
	if block != r.inlineBlock {
		r.inlineBlock, r.inlineMarks = block, 0
	}
	r.inlineMarks++
	if r.inlineBudget -= r.inlineMarks; r.inlineBudget < 0 || r.inlineMarks > mdInlineMarksPerBlock {
		r.inlineCut = true
		return true
	}
	return false
}
