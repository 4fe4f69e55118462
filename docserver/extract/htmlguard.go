package extract

import (
	"context"
	"io"
	"strings"
)

// golang.org/x/net/html has no context: html.Parse runs until the whole
// input is tokenized and built into a tree. Its own bounds keep the work
// per token small (at most 512 open elements, an input nested deeper is
// an error; at most three copies of a formatting element reopened), so
// parsing is about linear in the input, but a large file still takes
// seconds. ctxReader is the reader it parses from: it hands out the input
// in small chunks and fails with the context's error once the context has
// ended, which ends the parse.

// htmlChunk is the most a Read hands out: the context is checked at least
// every htmlChunk bytes of input.
const htmlChunk = 4 << 10

type ctxReader struct {
	ctx context.Context
	r   *strings.Reader
}

func newCtxReader(ctx context.Context, s string) io.Reader {
	return &ctxReader{ctx: ctx, r: strings.NewReader(s)}
}

func (c *ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(b[:min(len(b), htmlChunk)])
}

// stopped reports, now and then (every 1024th call), whether the walk of
// a parsed page must stop because its context ended.
func (hw *htmlWalker) stopped() bool {
	if hw.halted {
		return true
	}
	if hw.visits++; hw.visits%1024 == 0 && hw.p.cancelled() != nil {
		hw.halted = true
	}
	return hw.halted
}
