package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// operation names what a failed request was doing, to choose the sentence.
type operation int

const (
	opListRoom operation = iota
	opFinder
	opDocument
	opPage
	opElement
	opDesktop
	opSearch
)

// describeError turns a failed request into the line the user sees: the
// protocol code (when there is one) and a sentence saying what it means here.
func describeError(err error, op operation) string {
	if err == nil {
		return ""
	}
	code := protocol.CodeOf(err)
	detail := oneLine(err.Error())
	var pe *protocol.Error
	if errors.As(err, &pe) {
		detail = oneLine(pe.Message)
	}
	if code == 0 {
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			code = protocol.CodeTimeout
		case unsupported(detail):
			return "not supported by this computer (" + detail + ")"
		default:
			return detail
		}
	}
	var sentence string
	switch code {
	case protocol.CodeDocumentNotFound:
		sentence = "this document no longer exists"
	case protocol.CodePageOutOfRange:
		sentence = "this page is out of range"
	case protocol.CodeElementNotFound:
		sentence = "this element no longer exists"
	case protocol.CodeInvalidDPEURI:
		sentence = "the dpe:// URI is invalid"
	case protocol.CodeNotFound:
		switch {
		case unsupported(detail):
			sentence = "not supported by this computer"
		case op == opFinder || op == opDesktop || op == opSearch:
			sentence = "the computer is not in the office, or does not support this request"
		default:
			sentence = "the computer is not in the office (it left or never joined)"
		}
	case protocol.CodeTimeout:
		sentence = "timed out waiting for the computer"
	case protocol.CodeNotInRoom:
		sentence = "this session is not in the office"
	case protocol.CodeCrossRoomAccess:
		sentence = "the computer belongs to another office"
	case protocol.CodeForbidden:
		sentence = "only an agent may ask this"
	case protocol.CodeMCPCapabilityNotSupported:
		sentence = "not supported by this computer"
	case protocol.CodeMCPServerNotFound:
		sentence = "the document server is gone"
	default:
		sentence = protocol.CodeName(code)
		if sentence == "" {
			sentence = "request failed"
		}
	}
	if detail != "" && !strings.Contains(strings.ToLower(detail), strings.ToLower(sentence)) && code != protocol.CodeTimeout {
		return fmt.Sprintf("%d · %s — %s", code, sentence, detail)
	}
	return fmt.Sprintf("%d · %s", code, sentence)
}

// unsupported recognises the replies of a peer that does not know an event.
func unsupported(detail string) bool {
	d := strings.ToLower(detail)
	for _, s := range []string{"unknown event", "not supported", "unsupported", "no handler", "not implemented"} {
		if strings.Contains(d, s) {
			return true
		}
	}
	return false
}
