package server

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/sio/wire"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// logged is what has a logger built on demand: a request.
type logged interface{ logger() *slog.Logger }

// routed holds the only fields of a client:* request the Server decodes;
// the rest of the payload is forwarded as it came.
type routed struct {
	Agent    string   `json:"agent"`
	Computer string   `json:"computer"`
	ReqID    string   `json:"req_id"`
	ToolName string   `json:"tool_name"` // client:tool_call
	Timeout  *float64 `json:"timeout"`   // client:tool_call
}

// The indexes of fields().
const fieldAgent = 0

// fields lists where DecodeFields puts each routing field.
func (f *routed) fields() []wire.Field {
	return []wire.Field{
		{Name: "agent", Dst: &f.Agent}, {Name: "computer", Dst: &f.Computer}, {Name: "req_id", Dst: &f.ReqID},
		{Name: "tool_name", Dst: &f.ToolName}, {Name: "timeout", Dst: &f.Timeout},
	}
}

// notSupported is the answer to a client:* request that the computer
// acked with no value. No client:* event has an empty answer, and a
// Socket.IO client with no handler for an event (python-socketio, which the
// official SDK's Computer uses) acks it at once with nothing, so an empty
// ack means the computer does not know the event (e.g. client:get_finder on
// a Computer without Finder).
func notSupported(event, computer string) *protocol.Error {
	return protocol.Errorf(protocol.CodeNotFound,
		"%s is not supported by computer '%s' (it answered with an empty acknowledgement)", event, computer).
		WithDetails(map[string]any{"event": event, "computer": computer, "reason": "empty_ack"})
}

// route forwards a client:* request to the computer it names in the
// caller's office and relays the computer's ack back unchanged (an empty
// one becomes notSupported). Any client:* event is routed; only the
// routing fields are decoded. Checks, in order: malformed (400), caller in
// no office (4103), caller not an agent (403), computer in another office
// (4104), unknown computer (404).
func (s *Server) route(sess *session, req *request) {
	if req.ack == nil {
		req.logger().Warn("request without ack callback dropped")
		return
	}
	var f routed
	fields := f.fields()
	if e := s.decodeFields(req, fields); e != nil {
		s.answer(sess, req, nil, e)
		return
	}
	rt := routing{computer: f.Computer, agent: f.Agent, reqID: f.ReqID, agentOnce: fields[fieldAgent].Seen == 1,
		timeout: s.opts.RequestTimeout}
	if req.event == protocol.EventToolCall {
		if e := missing(clip(req.event), [2]string{"computer", f.Computer}, [2]string{"tool_name", f.ToolName}); e != nil {
			s.answer(sess, req, nil, e)
			return
		}
		if f.Timeout != nil {
			t := *f.Timeout
			if t < 0 || math.IsNaN(t) {
				s.answer(sess, req, nil, protocol.Errorf(protocol.CodeBadRequest, "%s: timeout must not be negative", clip(req.event)))
				return
			}
			if t > 0 {
				rt.timeout = min(time.Duration(t*float64(time.Second)), maxToolTimeout) + s.opts.ToolCallGrace
			}
		}
	}
	if e := missing(clip(req.event), [2]string{"computer", f.Computer}); e != nil {
		s.answer(sess, req, nil, e)
		return
	}
	req.routed, req.reqID, req.computer, req.lg = true, f.ReqID, f.Computer, nil
	// A computer the store knows without the network (every one, in
	// memory; in a cluster, one whose seat the node remembers) gets the
	// request at once.
	if to, officeID, sender, e, ok := s.store.known(sess, req.event, rt.computer); ok {
		s.routeTo(sess, req, rt, to, officeID, sender, e, false)
		return
	}
	// Otherwise the computer is looked up in Redis, which may take up to
	// a command's timeout (Redis hung): the socket's events are handled
	// one at a time, so that lookup runs on a goroutine of its own,
	// admitted first, lest a session's requests wait for one another's
	// timeouts (TestRedisHung). The lookup is bounded by the request's
	// own timeout.
	if e := s.admit(sess, req.event, rt.reqID); e != nil {
		s.answer(sess, req, nil, e)
		return
	}
	// The payload is the socket reader's until this returns (OnEvent).
	req.payload = json.RawMessage(bytes.Clone(req.payload.(json.RawMessage)))
	go func() {
		defer s.recoverRequest(sess, req)
		ctx, cancel := context.WithTimeout(context.Background(), rt.timeout)
		defer cancel()
		to, officeID, sender, e := s.store.target(ctx, sess, req.event, rt.computer)
		s.routeTo(sess, req, rt, to, officeID, sender, e, true)
	}()
}

// routing is what route found in a request: the computer, the agent it
// names (agentOnce: exactly once), its req_id and its timeout.
type routing struct {
	computer, agent, reqID string
	agentOnce              bool
	timeout                time.Duration
}

// routeTo forwards the request rt describes to its computer, found by the
// office store (to, or the refusal e). admitted: the request already holds
// its slot (admit).
func (s *Server) routeTo(sess *session, req *request, rt routing, to destination, officeID, sender string, e *protocol.Error, admitted bool) {
	fail := func(e *protocol.Error) {
		if admitted {
			s.release(sess, req.event, rt.reqID)
		}
		s.answer(sess, req, nil, e)
	}
	if e != nil {
		fail(e)
		return
	}
	req.office, req.lg = officeID, nil
	payload := req.payload.(json.RawMessage)
	if rt.agent != sender || !rt.agentOnce {
		// The sender is who joined, whatever the request claims.
		stamped, err := wire.SetField(payload, "agent", sender)
		if err != nil {
			fail(protocol.Errorf(protocol.CodeBadRequest, "%s: malformed payload: %v", clip(req.event), err))
			return
		}
		if rt.agent != "" && rt.agent != sender {
			req.logger().Warn("request names another agent; stamped with the sender's name", "claimed", clip(rt.agent), "agent", sender)
		}
		payload = stamped
	}
	if !admitted {
		if e := s.admit(sess, req.event, rt.reqID); e != nil {
			s.answer(sess, req, nil, e)
			return
		}
	}
	p := newLocalReq(s, sess, req.ack, req.event, rt.computer, rt.reqID)
	to.send(p, payload, rt.timeout, req)
}

// send forwards a request to the computer target on this node.
func (target *session) send(p *localReq, payload json.RawMessage, timeout time.Duration, req logged) {
	p.forwardTo(target, payload, timeout, req)
}
