package rpcerr

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ledgerMax bounds the errors waiting for their response, should a
// transport this package does not own ever leave some behind.
const ledgerMax = 4096

// stdioSessionID is the session id mcp-go's stdio transport uses.
const stdioSessionID = "stdio"

// Ledger holds the coded errors of requests whose responses have not been
// written yet. Install Hook as the server's OnError hook and serve through
// StdioWriter or InProcess. It is safe for concurrent use.
type Ledger struct {
	tokens atomic.Uint64 // numbers in-process transports

	mu    sync.Mutex
	m     map[string]*Error
	order []string
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger { return &Ledger{m: map[string]*Error{}} }

func ledgerKey(sessionID string, id mcp.RequestId) string {
	return sessionID + "\x00" + id.String()
}

// tokenKey marks the context of a request sent through an in-process
// transport of this package, so its errors are recorded under the
// transport's token (mcp-go keeps the in-process session id private).
type tokenKey struct{}

// Hook is an mcp-go OnError hook (server.Hooks.AddOnError): it records the
// errors that carry a code (see From) under their session and request id.
func (l *Ledger) Hook(ctx context.Context, id any, _ mcp.MCPMethod, _ any, err error) {
	if id == nil {
		return
	}
	re, ok := From(err)
	if !ok {
		return
	}
	sid, _ := ctx.Value(tokenKey{}).(string)
	if sid == "" {
		if s := server.ClientSessionFromContext(ctx); s != nil {
			sid = s.SessionID()
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	k := ledgerKey(sid, mcp.NewRequestId(id))
	if _, dup := l.m[k]; !dup {
		l.order = append(l.order, k)
	}
	l.m[k] = re
	for len(l.order) > ledgerMax {
		delete(l.m, l.order[0])
		l.order = l.order[1:]
	}
}

// take removes and returns the error recorded for a request.
func (l *Ledger) take(sessionID string, id mcp.RequestId) (*Error, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := ledgerKey(sessionID, id)
	re, ok := l.m[k]
	if ok {
		delete(l.m, k)
		for i, o := range l.order {
			if o == k {
				l.order = append(l.order[:i], l.order[i+1:]...)
				break
			}
		}
	}
	return re, ok
}

// Pending returns how many recorded errors still wait for their response.
func (l *Ledger) Pending() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.m)
}

// StdioWriter returns the writer to give mcp-go's stdio server as its
// output: it passes every line to out, replacing the code, message and
// data of error responses that have a recorded error. mcp-go writes one
// message per Write call, but split and joined lines are handled too.
func (l *Ledger) StdioWriter(out io.Writer) io.Writer {
	return &rewriteWriter{out: out, ledger: l}
}

type rewriteWriter struct {
	mu     sync.Mutex
	out    io.Writer
	ledger *Ledger
	buf    []byte
}

func (w *rewriteWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		line := w.ledger.fix(stdioSessionID, w.buf[:i])
		if _, err := w.out.Write(append(line, '\n')); err != nil {
			w.buf = w.buf[i+1:]
			return len(p), err
		}
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) == 0 {
		w.buf = nil
	}
	return len(p), nil
}

// fix rewrites one JSON-RPC message of a session when it is an error with
// a record.
func (l *Ledger) fix(sessionID string, line []byte) []byte {
	if !bytes.Contains(line, []byte(`"error"`)) {
		return bytes.Clone(line)
	}
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &msg) != nil || msg.Error == nil || msg.ID == nil {
		return bytes.Clone(line)
	}
	var id any
	if json.Unmarshal(msg.ID, &id) != nil {
		return bytes.Clone(line)
	}
	re, ok := l.take(sessionID, mcp.NewRequestId(id))
	if !ok {
		return bytes.Clone(line)
	}
	out, err := json.Marshal(struct {
		JSONRPC string                  `json:"jsonrpc"`
		ID      json.RawMessage         `json:"id"`
		Error   mcp.JSONRPCErrorDetails `json:"error"`
	}{msg.JSONRPC, msg.ID, re.details()})
	if err != nil {
		return bytes.Clone(line)
	}
	return out
}

// InProcess returns mcp-go's in-process transport to srv (for
// client.NewClient) with the recorded codes put back into error responses.
// srv must have been built with l.Hook as an OnError hook.
func (l *Ledger) InProcess(srv *server.MCPServer) transport.Interface {
	return &inProcess{
		InProcessTransport: transport.NewInProcessTransport(srv),
		ledger:             l,
		token:              "inproc-" + strconv.FormatUint(l.tokens.Add(1), 10),
	}
}

type inProcess struct {
	*transport.InProcessTransport
	ledger *Ledger
	token  string
}

// SendRequest sends a request in process and restores a coded error.
func (t *inProcess) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := t.InProcessTransport.SendRequest(context.WithValue(ctx, tokenKey{}, t.token), req)
	if err != nil || resp == nil || resp.Error == nil {
		return resp, err
	}
	if re, ok := t.ledger.take(t.token, resp.ID); ok {
		d := re.details()
		resp.Error = &d
	}
	return resp, nil
}
