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
