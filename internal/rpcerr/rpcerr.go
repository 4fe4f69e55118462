// Package rpcerr keeps the code, message and data of JSON-RPC errors across
// mcp-go, which drops them on both sides of an MCP connection (v1.2.1):
//
//   - a server's resource or tool handler cannot choose the error it
//     answers: every handler error becomes -32603 (internal error) with no
//     data, and the type that would carry a code (requestError) is
//     unexported;
//   - a client turns an error answer with an application code (such as the
//     Finder's 4201-4204) into a plain error holding only the message.
//
// The server side records each handler error that carries a code (an
// *Error or a *protocol.Error) in a Ledger through mcp-go's OnError hook,
// and the transports this package wraps (stdio's writer, the in-process
// transport) put the code, message and data back into the response. The
// client side wraps a transport so that the error object of a response
// reaches the caller that asked for it (Capture).
package rpcerr

import (
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// Error is a JSON-RPC error with its code, message and data: what a server
// handler returns to choose its answer, and what a client receives.
type Error struct {
	Code    int
	Message string
	Data    any
}

func (e *Error) Error() string { return fmt.Sprintf("error %d: %s", e.Code, e.Message) }

// From finds the JSON-RPC error that err should become: an *Error in its
// chain, or a *protocol.Error (its details become the data).
func From(err error) (*Error, bool) {
	var re *Error
	if errors.As(err, &re) {
		return re, true
	}
	var pe *protocol.Error
	if errors.As(err, &pe) {
		var data any
		if len(pe.Details) > 0 {
			data = pe.Details
		}
		return &Error{Code: pe.Code, Message: pe.Message, Data: data}, true
	}
	return nil, false
}

// details is the wire form of e.
func (e *Error) details() mcp.JSONRPCErrorDetails {
	return mcp.NewJSONRPCErrorDetails(e.Code, e.Message, e.Data)
}
