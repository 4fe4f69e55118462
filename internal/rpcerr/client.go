package rpcerr

import (
	"context"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
)

// captureKey marks a context whose request records its error answer.
type captureKey struct{}

type captured struct {
	mu  sync.Mutex
	err *Error
}

// Capture returns a context for one mcp-go client call. When the call's
// request goes through a transport wrapped by WrapTransport and the server
// answers with a JSON-RPC error, the returned function gives that error
// with its code, message and data; otherwise it gives nil.
func Capture(ctx context.Context) (context.Context, func() *Error) {
	c := &captured{}
	return context.WithValue(ctx, captureKey{}, c), func() *Error {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.err
	}
}

// WrapTransport returns t with error answers recorded for the contexts
// made by Capture. The optional interfaces mcp-go's client looks for
// (bidirectional requests, connection loss, legacy protocol, HTTP protocol
// version) are forwarded.
func WrapTransport(t transport.Interface) transport.Interface {
	if _, ok := t.(transport.HTTPConnection); ok {
		return &captureHTTPTransport{captureTransport{t}}
	}
	return &captureTransport{t}
}

type captureTransport struct {
	transport.Interface
}

func (t *captureTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := t.Interface.SendRequest(ctx, req)
	if err == nil && resp != nil && resp.Error != nil {
		if c, ok := ctx.Value(captureKey{}).(*captured); ok {
			e := resp.Error
			c.mu.Lock()
			c.err = &Error{Code: e.Code, Message: e.Message, Data: e.Data}
			c.mu.Unlock()
		}
	}
	return resp, err
}

func (t *captureTransport) SetRequestHandler(h transport.RequestHandler) {
	if b, ok := t.Interface.(transport.BidirectionalInterface); ok {
		b.SetRequestHandler(h)
	}
}

func (t *captureTransport) SetConnectionLostHandler(h func(error)) {
	if s, ok := t.Interface.(interface{ SetConnectionLostHandler(func(error)) }); ok {
		s.SetConnectionLostHandler(h)
	}
}

func (t *captureTransport) RequiresLegacyProtocol() bool {
	l, ok := t.Interface.(interface{ RequiresLegacyProtocol() bool })
	return ok && l.RequiresLegacyProtocol()
}

type captureHTTPTransport struct {
	captureTransport
}

func (t *captureHTTPTransport) SetProtocolVersion(v string) {
	t.Interface.(transport.HTTPConnection).SetProtocolVersion(v)
}
