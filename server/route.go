package server

import (
	"math"
	"sync"
	"time"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// pendingReq is a client:* request forwarded to a computer and not yet
// answered. Exactly one of the computer's ack, the timer and the
// computer's disconnect takes it out of the computer's table and answers
// the agent.
type pendingReq struct {
	id       uint64
	event    string
	computer string
	reqID    string
	from     *session
	ack      ackFunc
	start    time.Time
	timer    *time.Timer
	once     sync.Once
}

// finish answers the agent with args (passed through unchanged).
func (p *pendingReq) finish(args []any) {
	p.once.Do(func() {
		if p.timer != nil {
			p.timer.Stop()
		}
		p.from.ack(p.ack, args)
	})
}

// routedFields are the routing-relevant fields of any client:* payload;
// the per-event types check the rest of the shape.
type routedFields struct {
	Computer string `json:"computer"`
	ReqID    string `json:"req_id"`
}

// shapeOf returns a value of the payload type of a client:* event, used
// to check a request's field types.
func shapeOf(event string) any {
	switch event {
	case protocol.EventToolCall:
		return &protocol.ToolCallReq{}
	case protocol.EventGetDesktop:
		return &protocol.GetDeskTopReq{}
	case protocol.EventGetFinder, protocol.EventListFinder:
		return &protocol.GetFinderReq{}
	case protocol.EventReadResource:
		return &protocol.ReadResourceReq{}
	}
	return &protocol.ComputerCall{}
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
// one becomes notSupported). Checks, in
// order: malformed (400), caller in no office (4103), caller not an agent
// (403), computer in another office (4104), unknown computer (404).
func (s *Server) route(sess *session, req *request) {
	if req.ack == nil {
		req.log.Warn("request without ack callback dropped")
		return
	}
	shape := shapeOf(req.event)
	if e := s.decode(req, shape); e != nil {
		s.answer(sess, req, nil, e)
		return
	}
	var f routedFields
	timeout := s.opts.RequestTimeout
	switch v := shape.(type) {
	case *protocol.ToolCallReq:
		f = routedFields{Computer: v.Computer, ReqID: v.ReqID}
		if e := missing(req.event, [2]string{"computer", v.Computer}, [2]string{"tool_name", v.ToolName}); e != nil {
			s.answer(sess, req, nil, e)
			return
		}
		if v.Timeout < 0 || math.IsNaN(v.Timeout) {
			s.answer(sess, req, nil, protocol.Errorf(protocol.CodeBadRequest, "%s: timeout must not be negative", req.event))
			return
		}
		if v.Timeout > 0 {
			timeout = min(time.Duration(v.Timeout*float64(time.Second)), maxToolTimeout) + s.opts.ToolCallGrace
		}
	case *protocol.GetDeskTopReq:
		f = routedFields{Computer: v.Computer, ReqID: v.ReqID}
	case *protocol.GetFinderReq:
		f = routedFields{Computer: v.Computer, ReqID: v.ReqID}
	case *protocol.ReadResourceReq:
		f = routedFields{Computer: v.Computer, ReqID: v.ReqID}
	case *protocol.ComputerCall:
		f = routedFields{Computer: v.Computer, ReqID: v.ReqID}
	}
	if e := missing(req.event, [2]string{"computer", f.Computer}); e != nil {
		s.answer(sess, req, nil, e)
		return
	}
	log := req.log.With("req_id", f.ReqID, "computer", f.Computer)
	target, officeID, e := s.reg.target(sess, f.Computer)
	if e != nil {
		req.log = log
		s.answer(sess, req, nil, e)
		return
	}
	log = log.With("office", officeID)
	p := &pendingReq{
		id: s.ids.Add(1), event: req.event, computer: f.Computer, reqID: f.ReqID,
		from: sess, ack: req.ack, start: time.Now(),
	}
	p.timer = time.AfterFunc(timeout, func() {
		if _, ok := target.takePending(p.id); ok {
			log.Warn("computer did not answer in time", "timeout", timeout)
			p.finish([]any{protocol.Errorf(protocol.CodeTimeout,
				"computer '%s' did not answer %s within %s", f.Computer, req.event, timeout)})
		}
	})
	if !target.addPending(p) {
		p.finish([]any{protocol.Errorf(protocol.CodeNotFound, "computer '%s' disconnected", f.Computer)})
		return
	}
	target.emit(req.event, req.payload, ackFunc(func(args []any, _ error) {
		if _, ok := target.takePending(p.id); ok {
			log.Debug("routed", "took", time.Since(p.start))
			if len(args) == 0 {
				log.Info("computer answered with an empty ack: the event is not supported there")
				args = []any{notSupported(req.event, f.Computer)}
			}
			p.finish(args)
		}
	}))
}
