package mcpclient

import (
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"

	"github.com/smcp-browse/smcp-browse/internal/ratelog"
)

// boundedClient is the HTTP client of an SSE or Streamable HTTP server.
// mcp-go reads a JSON answer whole and an SSE stream line by line, each of
// any length; the bodies this client returns keep the bounds of a stdio
// line instead (guard.go): an SSE stream goes through the guard (an answer
// over MaxMessageBytes or MaxDepth becomes an error answer to its request
// at once, other lines and events are bounded too), and a JSON body over
// MaxMessageBytes fails its read with ErrTooLarge.
func boundedClient(log *slog.Logger, server string) *http.Client {
	return &http.Client{Transport: &boundedTransport{base: http.DefaultTransport, log: log, server: server}}
}

type boundedTransport struct {
	base   http.RoundTripper
	log    *slog.Logger
	server string
}

func (t *boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	noteAuth(req, resp)
	if media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); media == "text/event-stream" {
		g := newGuard(resp.Body, t.log, t.server)
		g.sse = true
		resp.Body = guardedBody{Reader: g, Closer: resp.Body}
	} else {
		resp.Body = &limitedBody{ReadCloser: resp.Body, max: MaxMessageBytes, log: &ratelog.Logger{Log: t.log.With("server", t.server)}}
	}
	return resp, nil
}

// guardedBody is an SSE body read through the guard.
type guardedBody struct {
	io.Reader
	io.Closer
}

// limitedBody fails a read that takes the body over max bytes.
type limitedBody struct {
	io.ReadCloser
	n, max int64
	log    *ratelog.Logger
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.n > b.max {
		return 0, b.tooLarge()
	}
	n, err := b.ReadCloser.Read(p)
	if b.n += int64(n); b.n > b.max {
		b.log.Warn("mcp server HTTP answer refused", "bytes", b.n, "max_bytes", b.max)
		return 0, b.tooLarge()
	}
	return n, err
}

func (b *limitedBody) tooLarge() error {
	return fmt.Errorf("%w: an HTTP answer over %d bytes, the most the computer accepts in one message", ErrTooLarge, b.max)
}
