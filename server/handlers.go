package server

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/smcp-browse/smcp-browse/internal/sanitize"
	"github.com/smcp-browse/smcp-browse/internal/sio/sioserver"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// request is one incoming event: its payload (raw JSON, []byte for a
// binary one, nil for none) and the ack callback, nil when the sender
// asked for none.
type request struct {
	event   string
	payload any
	ack     sioserver.Ack
	base    *slog.Logger // the session's logger
	lg      *slog.Logger // base with the attributes, built on first use

	// What a routed request's log lines say beside the event, once known
	// (kept as fields: building log attributes allocates).
	routed          bool
	reqID, computer string
	office          string
}

// logger returns the request's logger. It is built only when something
// is logged: a logger with attributes costs an allocation and, for a text
// or JSON handler, formatting, on every request otherwise.
func (r *request) logger() *slog.Logger {
	if r.lg == nil {
		attrs := []any{"event", clip(r.event)}
		if r.routed {
			attrs = append(attrs, "req_id", clip(r.reqID), "computer", clip(r.computer))
		}
		if r.office != "" {
			attrs = append(attrs, "office", r.office)
		}
		r.lg = r.base.With(attrs...)
	}
	return r.lg
}

// onConnection registers the session and its event handler.
func (s *Server) onConnection(sock *sioserver.Socket) {
	version := sock.Query("a2c_version")
	sess := newSession(sock.ID(), version, sock)
	s.sessions.add(sess)
	log := s.log.With("sid", sess.sid)
	log.Info("connected", "a2c_version", version, "remote", sock.Address())
	sock.OnEvent(func(event string, payload any, ack sioserver.Ack) {
		req := &request{event: event, payload: payload, ack: ack, base: log}
		defer s.recoverRequest(sess, req)
		s.handle(sess, req)
	})
	sock.OnDisconnect(func(reason string) { s.onDisconnect(sess, reason, log) })
}

// recoverRequest, deferred, turns a panic while handling req into a log
// line and a 500 answer instead of a crash.
func (s *Server) recoverRequest(sess *session, req *request) {
	if r := recover(); r != nil {
		req.logger().Error("handler panicked", "panic", r)
		s.answer(sess, req, nil, protocol.Errorf(protocol.CodeInternalError, "%s: internal error", req.event))
	}
}

// handle dispatches one event: the server:* events the Server serves,
// every client:* event routed to a computer, anything else answered at
// once as unknown.
func (s *Server) handle(sess *session, req *request) {
	switch req.event {
	case protocol.EventJoinOffice:
		s.onJoin(sess, req)
	case protocol.EventLeaveOffice:
		s.onLeave(sess, req)
	case protocol.EventListRoom:
		s.onListRoom(sess, req)
	case protocol.EventToolCallCancel:
		s.onCancel(sess, req)
	default:
		if _, ok := protocol.NotificationFor(req.event); ok {
			s.onUpdate(sess, req)
			return
		}
		if protocol.IsClientEvent(req.event) {
			s.route(sess, req)
			return
		}
		s.answer(sess, req, nil, protocol.Errorf(protocol.CodeNotFound,
			"unknown event %q: this Server serves server:* events and routes client:* events to computers", clip(req.event)))
	}
}

// answer acks req with v or with e's flat payload. Without an ack callback
// the outcome is only logged.
func (s *Server) answer(sess *session, req *request, v any, e *protocol.Error) {
	if e != nil {
		req.logger().Info("request refused", "code", e.Code, "msg", e.Message)
	}
	if req.ack == nil {
		if e != nil {
			req.logger().Warn("no ack callback; error dropped", "code", e.Code)
		}
		return
	}
	switch {
	case e != nil:
		sess.ack(req.ack, e)
	case v == nil:
		sess.ack(req.ack)
	default:
		sess.ack(req.ack, v)
	}
}

// maxEcho bounds what an error message repeats of a client's input.
const maxEcho = 200

// clip shortens s for an error message, saying how long it was.
func clip(s string) string {
	if c := sanitize.Clip(s, maxEcho); c != s {
		return c + fmt.Sprintf(" (%d bytes)", len(s))
	}
	return s
}

// answerOffice acks server:join_office and server:leave_office with the
// base protocol's (success, error) tuple, which the official SDK's clients
// read: (true, null) on success, (false, message) on refusal. A refusal
// also carries the flat error payload as a third value, so that clients of
// this project keep the code (4101, 4105, ...); readers of the tuple's
// first two values see exactly the protocol's form.
func (s *Server) answerOffice(sess *session, req *request, e *protocol.Error) {
	if req.ack == nil {
		s.answer(sess, req, nil, e)
		return
	}
	if e != nil {
		req.logger().Info("request refused", "code", e.Code, "msg", e.Message)
		sess.ack(req.ack, false, e.Message, e)
		return
	}
	sess.ack(req.ack, true, nil)
}

// missing returns a 400 naming the first empty required field.
func missing(event string, fields ...[2]string) *protocol.Error {
	for _, f := range fields {
		if f[1] == "" {
			return protocol.Errorf(protocol.CodeBadRequest, "%s: field %q is required", event, f[0])
		}
	}
	return nil
}

func (s *Server) onJoin(sess *session, req *request) {
	var in protocol.EnterOfficeReq
	if e := s.decode(req, &in); e != nil {
		s.answerOffice(sess, req, e)
		return
	}
	if e := missing(clip(req.event), [2]string{"role", string(in.Role)}, [2]string{"name", in.Name}, [2]string{"office_id", in.OfficeID}); e != nil {
		s.answerOffice(sess, req, e)
		return
	}
	if !in.Role.Valid() {
		s.answerOffice(sess, req, protocol.Errorf(protocol.CodeBadRequest, "%s: role must be %q or %q, got %q", clip(req.event), protocol.RoleAgent, protocol.RoleComputer, clip(string(in.Role))))
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.RequestTimeout)
	defer cancel()
	notes, e := s.store.join(ctx, sess, in)
	if e == nil {
		req.logger().Info("joined office", "office", in.OfficeID, "role", in.Role, "name", in.Name)
	}
	s.answerOffice(sess, req, e)
	for _, n := range notes {
		s.store.deliver(n)
	}
}

func (s *Server) onLeave(sess *session, req *request) {
	var in protocol.LeaveOfficeReq
	if e := s.decode(req, &in); e != nil {
		s.answerOffice(sess, req, e)
		return
	}
	if e := missing(clip(req.event), [2]string{"office_id", in.OfficeID}); e != nil {
		s.answerOffice(sess, req, e)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.RequestTimeout)
	defer cancel()
	notes, left, e := s.store.leave(ctx, sess, in.OfficeID)
	if e != nil {
		s.answerOffice(sess, req, e)
		return
	}
	if left {
		req.logger().Info("left office", "office", in.OfficeID)
	} else {
		req.logger().Debug("left an office it was not in: nothing to do", "office", in.OfficeID)
	}
	for _, n := range notes {
		s.store.deliver(n)
	}
	s.answerOffice(sess, req, nil)
}

func (s *Server) onListRoom(sess *session, req *request) {
	var in protocol.ListRoomReq
	if e := s.decode(req, &in); e != nil {
		s.answer(sess, req, nil, e)
		return
	}
	if e := missing(clip(req.event), [2]string{"office_id", in.OfficeID}); e != nil {
		s.answer(sess, req, nil, e)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.RequestTimeout)
	defer cancel()
	list, e := s.store.list(ctx, sess, in.OfficeID)
	if e != nil {
		s.answer(sess, req, nil, e)
		return
	}
	req.logger().Debug("listed office", "office", in.OfficeID, "req_id", in.ReqID, "members", len(list))
	s.answer(sess, req, protocol.ListRoomRet{Sessions: list, ReqID: in.ReqID}, nil)
}

// onUpdate turns a computer's server:update_* into the matching notify:*
// for the rest of its office.
func (s *Server) onUpdate(sess *session, req *request) {
	var in protocol.UpdateComputerConfigReq
	if e := s.decode(req, &in); e != nil {
		s.answer(sess, req, nil, e)
		return
	}
	officeID, name, others, ok := s.sender(sess, req, protocol.RoleComputer)
	if !ok {
		return
	}
	if in.Computer != "" && in.Computer != name {
		req.logger().Warn("update names another computer; using the sender's name", "claimed", in.Computer, "name", name)
	}
	notify, _ := protocol.NotificationFor(req.event)
	n := notice{to: others, office: officeID, except: sess, event: notify, payload: protocol.UpdateComputerConfigReq{Computer: name}}
	s.store.deliver(n)
	req.logger().Debug("broadcast", "office", officeID, "notify", notify, "to", len(others))
	s.answer(sess, req, nil, nil)
}

// sender returns the office, name and fellow members of the session that
// sent req when it is in an office with role; otherwise it answers req
// (4103 outside any office, 403 for the other role) and ok is false.
func (s *Server) sender(sess *session, req *request, role protocol.Role) (officeID, name string, others []*session, ok bool) {
	officeID, has, name, others, ok := s.store.peers(sess)
	if !ok {
		s.answer(sess, req, nil, protocol.NewError(protocol.CodeNotInRoom, "not in any office: join one first"))
		return "", "", nil, false
	}
	if has != role {
		who := "an agent"
		if role == protocol.RoleComputer {
			who = "a computer"
		}
		s.answer(sess, req, nil, protocol.Errorf(protocol.CodeForbidden, "%s may only come from %s", clip(req.event), who))
		return "", "", nil, false
	}
	return officeID, name, others, true
}

// onCancel relays an agent's server:tool_call_cancel to its office.
func (s *Server) onCancel(sess *session, req *request) {
	var in protocol.AgentCallData
	if e := s.decode(req, &in); e != nil {
		s.answer(sess, req, nil, e)
		return
	}
	if e := missing(clip(req.event), [2]string{"req_id", in.ReqID}); e != nil {
		s.answer(sess, req, nil, e)
		return
	}
	officeID, name, others, ok := s.sender(sess, req, protocol.RoleAgent)
	if !ok {
		return
	}
	n := notice{to: others, office: officeID, except: sess, event: protocol.NotifyToolCallCancel, payload: protocol.AgentCallData{Agent: name, ReqID: in.ReqID}}
	s.store.deliver(n)
	req.logger().Info("tool call cancel relayed", "office", officeID, "req_id", in.ReqID, "to", len(others))
	s.answer(sess, req, nil, nil)
}

// onDisconnect forgets the session, tells its office, and answers every
// request still waiting on it (as a computer) at once.
func (s *Server) onDisconnect(sess *session, reason string, log *slog.Logger) {
	defer s.sessions.departed()
	// A disconnect has no deadline of its own: its seat must go, and the
	// store tries until it has or its node's lease ends (each Redis
	// command bounded by the cluster's command timeout).
	officeID, notes := s.store.remove(context.Background(), sess)
	s.sessions.remove(sess)
	pend := sess.drainPending()
	log.Info("disconnected", "reason", reason, "office", officeID, "pending", len(pend))
	for _, n := range notes {
		s.store.deliver(n)
	}
	for _, p := range pend {
		p.finish(protocol.Errorf(protocol.CodeNotFound,
			"computer '%s' disconnected before answering %s", p.computer, p.event))
	}
}
