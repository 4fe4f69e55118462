// Package finderclient is what every Finder client of this project does on
// top of an agent (the terminal browser, the ls/cat/search commands, an
// MCP façade): join an office as an Agent, settle a computer's catalog
// while it is still being read, and collect a paged content search, each
// error surfaced with its protocol code. It needs only a few requests of
// an agent (the Finder interface, which *agent.Client has).
package finderclient

import (
	"context"
	"errors"
	"maps"
	"net"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// CodeUnreachable is the code of a Server that cannot be reached at all
// (refused, no such host, no route): the Server did not fail, it was never
// asked. It never travels on the wire.
const CodeUnreachable = 503

// Session is an agent joined to an office, with the computer to talk to
// ("" when none was named) and what Close stops.
type Session struct {
	Agent    *agent.Client
	Office   string
	Computer string

	stop func() error
}

// Attach makes a Session of an agent the caller connected and joined
// itself (the embedded demo); Close runs stop, or closes the agent when
// stop is nil.
func Attach(ag *agent.Client, office, computer string, stop func() error) *Session {
	return &Session{Agent: ag, Office: office, Computer: computer, stop: stop}
}

// Close ends the session (see Attach).
func (s *Session) Close() error {
	if s.stop != nil {
		return s.stop()
	}
	if s.Agent != nil {
		return s.Agent.Close()
	}
	return nil
}

// DialOptions say where a remote session goes.
type DialOptions struct {
	// Server is the Server's URL; Office the office to join; Computer the
	// computer to talk to ("" for none yet).
	Server, Office, Computer string
	// Agent configures the connection (name, token, path, version,
	// timeout, handlers, logger). Agent.Timeout also bounds Dial.
	Agent agent.Options
}

// Dial connects to a remote Server and joins the office, within
// opts.Agent.Timeout (or ctx's deadline). A Server that cannot be reached
// is a CodeUnreachable error; a join refused because the office has its
// agent already is a 4101 that says what to do (ExplainJoin).
func Dial(ctx context.Context, opts DialOptions) (*Session, error) {
	if opts.Agent.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Agent.Timeout)
		defer cancel()
	}
	ag, err := agent.Connect(ctx, opts.Server, opts.Agent)
	if err != nil {
		return nil, Unreachable(opts.Server, err)
	}
	if err := ag.JoinOffice(ctx, opts.Office); err != nil {
		_ = ag.Close()
		return nil, ExplainJoin(err, opts.Office)
	}
	return Attach(ag, opts.Office, opts.Computer, nil), nil
}

// Unreachable says that the Server cannot be reached when connecting
// failed before any Server answered (CodeUnreachable, with the server and
// the reason in the details); other errors (a refused handshake, a
// timeout) are returned as they are.
func Unreachable(server string, err error) error {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return err
	}
	var dns *net.DNSError
	var op *net.OpError
	var cause string
	switch {
	case errors.As(err, &dns):
		cause = dns.Error()
	case errors.As(err, &op):
		cause = op.Err.Error()
	default:
		return err
	}
	return protocol.Errorf(CodeUnreachable, "cannot reach the Server at %s: %s", server, cause).
		WithDetails(map[string]any{"server": server, "reason": cause})
}

// ExplainJoin says what a refused join means for the user: an office
// holds one agent at a time (4101), so a browser open on it keeps ls and
// cat out. Other errors are returned as they are.
func ExplainJoin(err error, office string) error {
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeRoomFull {
		return err
	}
	details := map[string]any{"office": office, "reason": "one agent per office"}
	maps.Copy(details, pe.Details)
	return protocol.Errorf(protocol.CodeRoomFull,
		"%s: an office holds one agent at a time (an A2C-SMCP rule), so another agent (a smcp-browse browser open on this office?) keeps this command out; "+
			"quit it or run this command from it, or use another office", pe.Message).WithDetails(details)
}
