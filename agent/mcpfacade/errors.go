package mcpfacade

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// The office is not there to ask: not attached yet, reconnecting (the
// agent rejoins when the Server is back) or closed. They carry 503 so that
// a resource read answers with a code too.
var (
	errOfficeNotReady = protocol.NewError(503, "the office is not joined yet: smcp-browse mcp is still connecting to its Server; try again in a few seconds")
	errOfficeAway     = protocol.NewError(503, "the office's Server is unreachable: smcp-browse mcp reconnects and rejoins it by itself; try again shortly")
	errOfficeClosed   = protocol.NewError(503, "the connection to the office's Server is closed: restart smcp-browse mcp")
)

// advice is what a model can do about an error of code.
func advice(code int) string {
	switch code {
	case protocol.CodeDocumentNotFound:
		return "The document is not in the catalog (it may have been moved or deleted): find it again with finder_list or finder_search."
	case protocol.CodePageOutOfRange:
		return "Pages are numbered from 0: finder_document gives the page count and index."
	case protocol.CodeElementNotFound:
		return "Read the page with finder_page (format json) to see its element ids."
	case protocol.CodeInvalidDPEURI:
		return "A dpe:// URI is dpe://HOST/DOC_REF, …/pages/N or …/elements/ID: take it from finder_list, finder_document or finder_search."
	case protocol.CodeNotFound:
		return "That computer is not in the office (it may have left): finder_computers lists those present."
	case protocol.CodeVersionMismatch:
		return "The Server speaks another A2C-SMCP version: restart smcp-browse mcp with --a2c-version set to it."
	case protocol.CodeTimeout:
		return "The computer did not answer in time: try again, or narrow the request (a page rather than the whole document, fewer results)."
	case protocol.CodeMCPServerNotFound:
		return "The computer's document server is not available right now; it may still be starting: try again shortly."
	case protocol.CodeUnauthorized, protocol.CodeForbidden:
		return "The Server refused this agent: check the token smcp-browse mcp was started with (--token)."
	}
	return ""
}

// explain returns err as a protocol error with its code (408 for a
// timeout, 500 for anything uncoded), and its message followed by what to
// do about it.
func explain(err error) *protocol.Error {
	var pe *protocol.Error
	switch {
	case errors.As(err, &pe):
	case errors.Is(err, context.DeadlineExceeded):
		pe = protocol.NewError(protocol.CodeTimeout, err.Error())
	default:
		pe = protocol.NewError(protocol.CodeInternalError, err.Error())
	}
	msg := pe.Message
	if a := advice(pe.Code); a != "" && !strings.Contains(msg, a) {
		msg = strings.TrimSuffix(msg, ".") + ". " + a
	}
	out := protocol.NewError(pe.Code, msg).WithDetails(pe.Details)
	out.Extra = pe.Extra
	return out
}

// toolError is the result of a tool call that failed: an error result (the
// model reads it and may act on it), not a protocol error.
func toolError(err error) *mcp.CallToolResult {
	pe := explain(err)
	return mcp.NewToolResultError(fmt.Sprintf("error %d: %s", pe.Code, pe.Message))
}

// badArgument is the result of a tool called with an argument it cannot
// use.
func badArgument(format string, args ...any) *mcp.CallToolResult {
	return mcp.NewToolResultError("invalid arguments: " + fmt.Sprintf(format, args...))
}
