package docserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// Why this file exists: mcp-go v1.2.1 answers every error a resource
// handler returns with JSON-RPC code -32603 (internal error) and no data;
// its requestError type, which carries code and data, is unexported. The
// Finder protocol needs the MCP error of a failed read to carry the
// protocol code (4201-4204) and its details. So the server records each
// handler error that carries a code (a *protocol.Error or an *RPCError) in
// an OnError hook, keyed by session and request id, and the transport
// layers this package owns (ServeStdio's writer, InProcessTransport) put
// the code, message and data back into the outgoing JSON-RPC error.

// RPCError is an error a handler returns to choose the JSON-RPC error code,
// message and data of its response.
type RPCError struct {
	Code    int
	Message string
	Data    any
}

func (e *RPCError) Error() string { return fmt.Sprintf("%d: %s", e.Code, e.Message) }

// rpcErrorOf finds the JSON-RPC error a handler error should become.
func rpcErrorOf(err error) (*RPCError, bool) {
	var re *RPCError
	if errors.As(err, &re) {
		return re, true
	}
	var pe *protocol.Error
	if errors.As(err, &pe) {
		var data any
		if len(pe.Details) > 0 {
			data = pe.Details
		}
		return &RPCError{Code: pe.Code, Message: pe.Message, Data: data}, true
	}
	return nil, false
}

// ledgerMax bounds the errors waiting for their response, should a
// transport this package does not own ever leave some behind.
const ledgerMax = 4096

// errorLedger holds the coded errors of requests whose responses have not
// been written yet.
type errorLedger struct {
	mu    sync.Mutex
	m     map[string]*RPCError
	order []string
}

func newErrorLedger() *errorLedger { return &errorLedger{m: map[string]*RPCError{}} }

func ledgerKey(sessionID string, id mcp.RequestId) string {
	return sessionID + "\x00" + id.String()
}

// hook is the server's OnError hook.
func (l *errorLedger) hook(ctx context.Context, id any, _ mcp.MCPMethod, _ any, err error) {
	if id == nil {
		return
	}
	re, ok := rpcErrorOf(err)
	if !ok {
		return
	}
	sid, _ := ctx.Value(ledgerTokenKey{}).(string)
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
func (l *errorLedger) take(sessionID string, id mcp.RequestId) (*RPCError, bool) {
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

// stdioSessionID is the session id mcp-go's stdio transport uses.
const stdioSessionID = "stdio"

// rewriteWriter is the stdout of ServeStdio: it passes every line through,
// replacing the code, message and data of error responses that have a
// recorded error. mcp-go writes one message per Write call, but the writer
// also copes with split and joined lines.
type rewriteWriter struct {
	mu     sync.Mutex
	out    io.Writer
	ledger *errorLedger
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
		line := w.fix(w.buf[:i])
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

// fix rewrites one JSON-RPC message when it is an error with a record.
func (w *rewriteWriter) fix(line []byte) []byte {
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
	re, ok := w.ledger.take(stdioSessionID, mcp.NewRequestId(id))
	if !ok {
		return bytes.Clone(line)
	}
	out, err := json.Marshal(struct {
		JSONRPC string                  `json:"jsonrpc"`
		ID      json.RawMessage         `json:"id"`
		Error   mcp.JSONRPCErrorDetails `json:"error"`
	}{msg.JSONRPC, msg.ID, mcp.NewJSONRPCErrorDetails(re.Code, re.Message, re.Data)})
	if err != nil {
		return bytes.Clone(line)
	}
	return out
}

// ledgerTokenKey marks the context of a request sent through a
// codedTransport, so its errors are recorded under the transport's token
// (mcp-go keeps the in-process session id private).
type ledgerTokenKey struct{}

// codedTransport is mcp-go's in-process transport with the recorded error
// codes put back into error responses.
type codedTransport struct {
	*transport.InProcessTransport
	ledger *errorLedger
	token  string
}

// SendRequest sends a request in process and restores a coded error.
func (t *codedTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := t.InProcessTransport.SendRequest(context.WithValue(ctx, ledgerTokenKey{}, t.token), req)
	if err != nil || resp == nil || resp.Error == nil {
		return resp, err
	}
	if re, ok := t.ledger.take(t.token, resp.ID); ok {
		d := mcp.NewJSONRPCErrorDetails(re.Code, re.Message, re.Data)
		resp.Error = &d
	}
	return resp, nil
}
