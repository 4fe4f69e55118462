package rpcerr

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
)

// sessionHeader is the Streamable HTTP transport's session header.
const sessionHeader = "Mcp-Session-Id"

// HTTP wraps mcp-go's Streamable HTTP handler so that error responses with
// a recorded error carry its code, message and data, as StdioWriter does
// for stdio: a JSON answer is rewritten whole, an event stream line by
// line (its data lines).
func (l *Ledger) HTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		rw := &httpRewriter{ResponseWriter: w, ledger: l, session: r.Header.Get(sessionHeader)}
		next.ServeHTTP(rw, r)
		rw.finish()
	})
}

// httpRewriter is the response writer HTTP gives mcp-go's handler.
type httpRewriter struct {
	http.ResponseWriter
	ledger  *Ledger
	session string

	kind   int // 0 until the header is written, then one of the kinds below
	status int
	body   bytes.Buffer // a JSON answer, or an event stream's partial line
}

const (
	kindPass = iota + 1
	kindJSON
	kindStream
)

func (w *httpRewriter) WriteHeader(status int) {
	if w.kind != 0 {
		return
	}
	if w.session == "" {
		w.session = w.Header().Get(sessionHeader)
	}
	ct := w.Header().Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "application/json"):
		w.kind, w.status = kindJSON, status
		return // written by finish, with the rewritten length
	case strings.HasPrefix(ct, "text/event-stream"):
		w.kind = kindStream
	default:
		w.kind = kindPass
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *httpRewriter) Write(p []byte) (int, error) {
	if w.kind == 0 {
		w.WriteHeader(http.StatusOK)
	}
	switch w.kind {
	case kindJSON:
		return w.body.Write(p)
	case kindStream:
		w.body.Write(p)
		for {
			line, rest, ok := bytes.Cut(w.body.Bytes(), []byte("\n"))
			if !ok {
				break
			}
			out := line
			if data, isData := bytes.CutPrefix(line, []byte("data: ")); isData {
				out = append([]byte("data: "), w.ledger.fix(w.session, data)...)
			}
			if _, err := w.ResponseWriter.Write(append(out, '\n')); err != nil {
				return len(p), err
			}
			w.body = *bytes.NewBuffer(bytes.Clone(rest))
		}
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Flush passes an event stream's lines on at once.
func (w *httpRewriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && w.kind != kindJSON {
		f.Flush()
	}
}

// finish writes a buffered JSON answer, rewritten, and what is left of a
// stream.
func (w *httpRewriter) finish() {
	switch w.kind {
	case kindJSON:
		body := w.ledger.fix(w.session, bytes.TrimRight(w.body.Bytes(), "\n"))
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.ResponseWriter.WriteHeader(w.status)
		_, _ = w.ResponseWriter.Write(body) // deliberate: the client is gone if this fails
	case kindStream:
		if w.body.Len() > 0 {
			_, _ = w.ResponseWriter.Write(w.body.Bytes())
		}
	}
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *httpRewriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
