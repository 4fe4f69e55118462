package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/sio/sioserver"
	"github.com/smcp-browse/smcp-browse/internal/sio/wire"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// pendingReq is a client:* request forwarded to a computer and not yet
// answered. Exactly one of the computer's ack, the deadline and the
// computer's disconnect takes it out of the computer's table (or, sent to
// another node, the table of remote requests) and answers the agent.
type pendingReq struct {
	id       uint64
	event    string
	computer string
	reqID    string
	from     *session // the agent on this node, answered with ack
	ack      sioserver.Ack
	// Else the request came from another node: its node and routing id
	// there, where the answer goes.
	replyTo string
	replyID uint64
	srv     *Server
	node    string // the computer's node, for a request sent to another node
	office  string // the office it was routed in
	remote  remoteReq
	start   time.Time
	once    sync.Once

	// Its deadline (deadlines): where it waits, and what runs out.
	target   *session      // the computer on this node (nil: on another node)
	timeout  time.Duration // the computer's time to answer
	log      logged
	deadline deadline
}

// startDeadline has p expire after d.
func (p *pendingReq) startDeadline(d time.Duration) {
	p.deadline.of = p
	p.srv.deadlines.start(&p.deadline, d)
}

// expired answers p with a 408 once its time ran out, unless something
// else took it first.
func (p *pendingReq) expired() {
	if p.target == nil {
		if p.srv.cluster.takeRemote(p.id) {
			p.finish(protocol.Errorf(protocol.CodeTimeout,
				"computer '%s' did not answer %s within %s", p.computer, p.event, p.timeout))
		}
		return
	}
	if _, ok := p.target.takePending(p.id); ok {
		p.log.logger().Warn("computer did not answer in time", "timeout", p.timeout)
		p.finish(protocol.Errorf(protocol.CodeTimeout,
			"computer '%s' did not answer %s within %s", p.computer, p.event, p.timeout))
	}
}

// logger is the logger of a request from another node.
func (p *pendingReq) logger() *slog.Logger {
	return p.srv.log.With("event", clip(p.event), "computer", clip(p.computer), "from_node", p.replyTo)
}

// finish answers the agent with args (json.RawMessage values passed
// through unchanged): an error, or what finishRaw did not take.
func (p *pendingReq) finish(args ...any) {
	p.once.Do(func() {
		p.srv.deadlines.stop(&p.deadline)
		if p.from == nil {
			raw := make([]json.RawMessage, len(args))
			for i, a := range args {
				raw[i] = wire.AppendJSON(nil, a)
			}
			p.srv.cluster.answerRemote(p.replyTo, p.replyID, false, raw)
			return
		}
		p.srv.release(p.from, p.event, p.reqID)
		p.from.ack(p.ack, args...)
	})
}

// finishRaw answers the agent with the computer's answer, raw JSON values.
func (p *pendingReq) finishRaw(args []json.RawMessage) {
	p.once.Do(func() {
		p.srv.deadlines.stop(&p.deadline)
		if p.from == nil {
			p.srv.cluster.answerRemote(p.replyTo, p.replyID, false, args)
			return
		}
		p.srv.release(p.from, p.event, p.reqID)
		p.from.ackRaw(p.ack, args)
	})
}

// Acked takes the answer of the computer on this node (forward): an empty
// one becomes notSupported.
func (p *pendingReq) Acked(args []json.RawMessage, _ error) {
	if _, ok := p.target.takePending(p.id); !ok {
		return // answered already: timed out, or the computer left
	}
	if p.srv.debug {
		p.log.logger().Debug("routed", "took", time.Since(p.start))
	}
	if len(args) == 0 {
		p.log.logger().Info("computer answered with an empty ack: the event is not supported there")
		p.finish(notSupported(p.event, p.computer))
		return
	}
	p.finishRaw(args)
}

// admit takes an in-flight slot for a request from sess, or refuses it:
// over the Server's or the connection's limit (429), or a client:tool_call
// whose req_id is already in flight from the same agent (400: the older
// call could no longer be told apart, nor cancelled).
func (s *Server) admit(sess *session, event, reqID string) *protocol.Error {
	if n := s.inFlight.Add(1); n > int64(s.opts.MaxInFlight) {
		s.inFlight.Add(-1)
		return protocol.Errorf(protocol.CodeTooManyRequests,
			"%s: the Server has %d requests waiting for computers (limit %d); try again later", event, n-1, s.opts.MaxInFlight)
	}
	if e := sess.admit(event, reqID, s.opts.MaxInFlightConn); e != nil {
		s.inFlight.Add(-1)
		return e
	}
	return nil
}

// release gives back the slot admit took.
func (s *Server) release(sess *session, event, reqID string) {
	sess.release(event, reqID)
	s.inFlight.Add(-1)
}

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
	if !s.store.blocking() {
		to, officeID, sender, e := s.store.target(sess, req.event, rt.computer)
		s.routeTo(sess, req, rt, to, officeID, sender, e, false)
		return
	}
	// In a cluster the computer is looked up in Redis, which may take up
	// to a command's timeout (Redis hung): the socket's events are handled
	// one at a time, so that lookup runs on a goroutine of its own,
	// admitted first, lest a session's requests wait for one another's
	// timeouts (TestRedisHung). A computer the node remembers needs no
	// lookup: the request goes at once.
	if to, officeID, sender, e, ok := s.store.known(sess, req.event, rt.computer); ok {
		s.routeTo(sess, req, rt, to, officeID, sender, e, false)
		return
	}
	if e := s.admit(sess, req.event, rt.reqID); e != nil {
		s.answer(sess, req, nil, e)
		return
	}
	// The payload is the socket reader's until this returns (OnEvent).
	req.payload = json.RawMessage(bytes.Clone(req.payload.(json.RawMessage)))
	go func() {
		defer s.recoverRequest(sess, req)
		to, officeID, sender, e := s.store.target(sess, req.event, rt.computer)
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
	p := &pendingReq{
		id: s.ids.Add(1), event: req.event, computer: rt.computer, reqID: rt.reqID, start: time.Now(),
		from: sess, ack: req.ack, srv: s, office: officeID,
	}
	to.send(s, p, payload, rt.timeout, req)
}

// send forwards a request to the computer target on this node.
func (target *session) send(s *Server, p *pendingReq, payload json.RawMessage, timeout time.Duration, req logged) {
	s.forward(p, target, payload, timeout, req)
}

// forward sends p's request to the computer target on this node and
// answers p with the computer's ack (an empty one becomes notSupported),
// with a 408 when timeout passes first, or with a 404 when the computer
// disconnects first. req's logger says what happened.
func (s *Server) forward(p *pendingReq, target *session, payload json.RawMessage, timeout time.Duration, req logged) {
	p.target, p.timeout, p.log = target, timeout, req
	p.startDeadline(timeout)
	if !target.addPending(p) {
		p.finish(protocol.Errorf(protocol.CodeNotFound, "computer '%s' disconnected", p.computer))
		return
	}
	target.request(p.event, payload, p)
}
