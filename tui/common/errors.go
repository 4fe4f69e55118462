package common

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// Operation names what a failed request was doing, to choose the sentence.
type Operation int

const (
	OpListRoom Operation = iota
	OpFinder
	OpDocument
	OpPage
	OpElement
	OpDesktop
	OpSearch
	OpSkills
	OpTools
)

// DescribeError turns a failed request into the line the user sees: the
// protocol code (when there is one) and a sentence saying what it means here.
func DescribeError(err error, op Operation) string {
	if err == nil {
		return ""
	}
	code := protocol.CodeOf(err)
	detail := OneLine(err.Error())
	var pe *protocol.Error
	if errors.As(err, &pe) {
		detail = OneLine(pe.Message)
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
	sentence, ok := codeSentences[code]
	switch {
	case ok:
	case code == protocol.CodeNotFound:
		switch {
		case unsupported(detail):
			sentence = "not supported by this computer"
		case op == OpFinder || op == OpDesktop || op == OpSearch || op == OpSkills || op == OpTools:
			sentence = "the computer is not in the office, or does not support this request"
		default:
			sentence = "the computer is not in the office (it left or never joined)"
		}
	case code == protocol.CodeMCPServerNotFound && op == OpSkills:
		sentence = "no such skill on this computer"
	case code == protocol.CodeMCPServerNotFound:
		if pe != nil {
			if servers := unavailableServers(pe); len(servers) > 0 {
				return fmt.Sprintf("%d · %s", code, describeServers(servers))
			}
		}
		sentence = "the document server is not available"
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

// codeSentences say what the codes whose meaning does not depend on the
// request mean here.
var codeSentences = map[int]string{
	protocol.CodeDocumentNotFound:          "this document no longer exists",
	protocol.CodePageOutOfRange:            "this page is out of range",
	protocol.CodeElementNotFound:           "this element no longer exists",
	protocol.CodeInvalidDPEURI:             "the dpe:// URI is invalid",
	protocol.CodeTimeout:                   "timed out waiting for the computer",
	protocol.CodeNotInRoom:                 "this session is not in the office",
	protocol.CodeCrossRoomAccess:           "the computer belongs to another office",
	protocol.CodeForbidden:                 "only an agent may ask this",
	protocol.CodeMCPCapabilityNotSupported: "not supported by this computer",
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

// serverState is one MCP server a 4014 names (protocol.UnavailableServer),
// its text made safe for one line.
type serverState struct{ name, state, lastErr string }

// unavailableServers reads the servers a 4014 names (see
// protocol.UnavailableServers).
func unavailableServers(pe *protocol.Error) []serverState {
	var out []serverState
	for _, s := range protocol.UnavailableServers(pe) {
		out = append(out, serverState{OneLine(s.Name), OneLine(s.State), OneLine(s.LastError)})
	}
	return out
}

// transient reports whether every server is on its way up (starting,
// listing, or down and being restarted by the computer): asking again
// later may succeed.
func transient(servers []serverState) bool {
	for _, s := range servers {
		switch s.state {
		case protocol.ServerStarting, protocol.ServerListing, protocol.ServerDown, protocol.ServerListFailed:
		default:
			return false
		}
	}
	return len(servers) > 0
}

// describeServers says what the servers are doing, naming each.
func describeServers(servers []serverState) string {
	parts := make([]string, len(servers))
	for i, s := range servers {
		parts[i] = fmt.Sprintf("%q %s", s.name, serverStateText(s))
	}
	if len(parts) == 1 {
		return "document server " + parts[0]
	}
	return fmt.Sprintf("%d document servers are unavailable: %s", len(parts), strings.Join(parts, "; "))
}

func serverStateText(s serverState) string {
	because := ""
	if s.lastErr != "" {
		because = " (" + s.lastErr + ")"
	}
	switch s.state {
	case protocol.ServerStarting:
		return "is still starting"
	case protocol.ServerListing:
		return "is still listing its documents"
	case protocol.ServerDown:
		return "is down" + because + ", the computer keeps restarting it"
	case protocol.ServerListFailed:
		return "failed to list its documents" + because
	case protocol.ServerDisabled:
		return "is disabled on this computer"
	case protocol.ServerUnknown:
		return "is not configured on this computer"
	}
	return "is not available" + because
}

// UnavailableTransient reports whether err is a 4014 naming servers that
// are all on their way up.
func UnavailableTransient(err error) bool {
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeMCPServerNotFound {
		return false
	}
	return transient(unavailableServers(pe))
}
