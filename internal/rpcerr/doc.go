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
//
// # Lock order
//
// The stdio writer's mu (its partial line) comes before the Ledger's mu:
// rewriting a response line takes the error the Ledger recorded for it.
// The Ledger's mu and a Capture's mu are leaves.
package rpcerr
