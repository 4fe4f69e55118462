package server

import (
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/zishang520/socket.io/servers/socket/v3"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// ackFunc is the ack callback the library appends to an event's arguments.
type ackFunc = func([]any, error)

// request is one incoming event: its payload (as decoded by the library)
// and the ack callback, nil when the sender asked for none.
type request struct {
	event   string
	payload any
	ack     ackFunc
	log     *slog.Logger
}

// split separates the payload and the ack from an event's arguments.
func split(args []any) (payload any, ack ackFunc) {
	if n := len(args); n > 0 {
		if a, ok := args[n-1].(ackFunc); ok {
			ack, args = a, args[:n-1]
		}
	}
	return firstArg(args), ack
}

// onConnection registers the session and its event handlers.
func (s *Server) onConnection(sock *socket.Socket) {
	version := sock.Handshake().Query.Query().Get("a2c_version")
	sess := newSession(string(sock.Id()), version, sock)
	s.reg.add(sess)
	log := s.log.With("sid", sess.sid)
	log.Info("connected", "a2c_version", version, "remote", sock.Handshake().Address)

	handle := func(event string, fn func(*session, *request)) {
		_ = sock.On(event, func(args ...any) {
			payload, ack := split(args)
			req := &request{event: event, payload: payload, ack: ack, log: log.With("event", event)}
			defer func() {
				if r := recover(); r != nil {
					req.log.Error("handler panicked", "panic", r)
					s.answer(sess, req, nil, protocol.Errorf(protocol.CodeInternalError, "%s: internal error", event))
				}
			}()
			fn(sess, req)
		})
	}
	handle(protocol.EventJoinOffice, s.onJoin)
	handle(protocol.EventLeaveOffice, s.onLeave)
	handle(protocol.EventListRoom, s.onListRoom)
	for _, ev := range []string{protocol.EventUpdateConfig, protocol.EventUpdateToolList, protocol.EventUpdateDesktop, protocol.EventUpdateFinder} {
		handle(ev, s.onUpdate)
	}
	handle(protocol.EventToolCallCancel, s.onCancel)
	for _, ev := range protocol.ClientEvents() {
		handle(ev, s.route)
	}
	_ = sock.On("disconnect", func(args ...any) {
		reason, _ := firstArg(args).(string)
		s.onDisconnect(sess, reason, log)
	})
	s.gates.releaseOut(sock.Conn()) // the namespace is joined: the CONNECT answer may go
}

// answer acks req with v or with e's flat payload. Without an ack callback
// the outcome is only logged.
func (s *Server) answer(sess *session, req *request, v any, e *protocol.Error) {
	if e != nil {
		req.log.Info("request refused", "code", e.Code, "msg", e.Message)
	}
	if req.ack == nil {
		if e != nil {
			req.log.Warn("no ack callback; error dropped", "code", e.Code)
		}
		return
	}
	switch {
	case e != nil:
		sess.ack(req.ack, []any{e})
	case v == nil:
		sess.ack(req.ack, []any{})
	default:
		sess.ack(req.ack, []any{v})
	}
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
		req.log.Info("request refused", "code", e.Code, "msg", e.Message)
		sess.ack(req.ack, []any{false, e.Message, e})
		return
	}
	sess.ack(req.ack, []any{true, nil})
}

// decode checks req's payload against the shape of out: it must be a JSON
// object no bigger than MaxRequestBytes whose fields have the right types.
// The decoded value is used only to validate and to read routing fields.
func (s *Server) decode(req *request, out any) *protocol.Error {
	if _, ok := req.payload.(map[string]any); !ok {
		return protocol.Errorf(protocol.CodeBadRequest, "%s: payload must be a JSON object, got %s", req.event, kindOf(req.payload))
	}
	if n := payloadSize(req.payload, s.opts.MaxRequestBytes); n > s.opts.MaxRequestBytes {
		return protocol.Errorf(protocol.CodeBadRequest, "%s: payload too large (over %d bytes)", req.event, s.opts.MaxRequestBytes)
	}
	raw, err := json.Marshal(req.payload)
	if err != nil {
		return protocol.Errorf(protocol.CodeBadRequest, "%s: payload is not JSON: %v", req.event, err)
	}
	if len(raw) > s.opts.MaxRequestBytes {
		return protocol.Errorf(protocol.CodeBadRequest, "%s: payload too large (%d bytes, limit %d)", req.event, len(raw), s.opts.MaxRequestBytes)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return protocol.Errorf(protocol.CodeBadRequest, "%s: field %q must be %s, got %s", req.event, te.Field, te.Type.Kind(), te.Value)
		}
		return protocol.Errorf(protocol.CodeBadRequest, "%s: malformed payload: %v", req.event, err)
	}
	return nil
}

// payloadSize estimates the encoded size of a decoded payload from its
// strings and keys, stopping once it passes limit, so an oversized request
// is refused without encoding it again.
func payloadSize(v any, limit int) int {
	n := 0
	var walk func(v any)
	walk = func(v any) {
		if n > limit {
			return
		}
		switch x := v.(type) {
		case string:
			n += len(x) + 2
		case map[string]any:
			for k, e := range x {
				n += len(k) + 4
				walk(e)
			}
		case []any:
			for _, e := range x {
				n++
				walk(e)
			}
		default:
			n += 8
		}
	}
	walk(v)
	return n
}

// kindOf names the JSON kind of a decoded value for error messages.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "nothing"
	case string:
		return "a string"
	case float64, int, int64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "binary data"
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
	if e := missing(req.event, [2]string{"role", string(in.Role)}, [2]string{"name", in.Name}, [2]string{"office_id", in.OfficeID}); e != nil {
		s.answerOffice(sess, req, e)
		return
	}
	if !in.Role.Valid() {
		s.answerOffice(sess, req, protocol.Errorf(protocol.CodeBadRequest, "%s: role must be %q or %q, got %q", req.event, protocol.RoleAgent, protocol.RoleComputer, in.Role))
		return
	}
	notes, e := s.reg.join(sess, in)
	if e != nil {
		s.answerOffice(sess, req, e)
		return
	}
	req.log.Info("joined office", "office", in.OfficeID, "role", in.Role, "name", in.Name)
	s.answerOffice(sess, req, nil)
	for _, n := range notes {
		n.send()
	}
}

func (s *Server) onLeave(sess *session, req *request) {
	var in protocol.LeaveOfficeReq
	if e := s.decode(req, &in); e != nil {
		s.answerOffice(sess, req, e)
		return
	}
	if e := missing(req.event, [2]string{"office_id", in.OfficeID}); e != nil {
		s.answerOffice(sess, req, e)
		return
	}
	n, e := s.reg.leave(sess, in.OfficeID)
	if e != nil {
		s.answerOffice(sess, req, e)
		return
	}
	req.log.Info("left office", "office", in.OfficeID)
	n.send()
	s.answerOffice(sess, req, nil)
}

func (s *Server) onListRoom(sess *session, req *request) {
	var in protocol.ListRoomReq
	if e := s.decode(req, &in); e != nil {
		s.answer(sess, req, nil, e)
		return
	}
	if e := missing(req.event, [2]string{"office_id", in.OfficeID}); e != nil {
		s.answer(sess, req, nil, e)
		return
	}
	list, e := s.reg.list(sess, in.OfficeID)
	if e != nil {
		s.answer(sess, req, nil, e)
		return
	}
	req.log.Debug("listed office", "office", in.OfficeID, "req_id", in.ReqID, "members", len(list))
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
	officeID, role, name, others, ok := s.reg.peers(sess)
	if !ok {
		s.answer(sess, req, nil, protocol.NewError(protocol.CodeNotInRoom, "not in any office: join one first"))
		return
	}
	if role != protocol.RoleComputer {
		s.answer(sess, req, nil, protocol.Errorf(protocol.CodeForbidden, "%s may only come from a computer", req.event))
		return
	}
	if in.Computer != "" && in.Computer != name {
		req.log.Warn("update names another computer; using the sender's name", "claimed", in.Computer, "name", name)
	}
	notify, _ := protocol.NotificationFor(req.event)
	n := notice{to: others, event: notify, payload: protocol.UpdateComputerConfigReq{Computer: name}}
	n.send()
	req.log.Debug("broadcast", "office", officeID, "notify", notify, "to", len(others))
	s.answer(sess, req, nil, nil)
}

// onCancel relays an agent's server:tool_call_cancel to its office.
func (s *Server) onCancel(sess *session, req *request) {
	var in protocol.AgentCallData
	if e := s.decode(req, &in); e != nil {
		s.answer(sess, req, nil, e)
		return
	}
	if e := missing(req.event, [2]string{"req_id", in.ReqID}); e != nil {
		s.answer(sess, req, nil, e)
		return
	}
	officeID, role, name, others, ok := s.reg.peers(sess)
	if !ok {
		s.answer(sess, req, nil, protocol.NewError(protocol.CodeNotInRoom, "not in any office: join one first"))
		return
	}
	if role != protocol.RoleAgent {
		s.answer(sess, req, nil, protocol.Errorf(protocol.CodeForbidden, "%s may only come from an agent", req.event))
		return
	}
	n := notice{to: others, event: protocol.NotifyToolCallCancel, payload: protocol.AgentCallData{Agent: name, ReqID: in.ReqID}}
	n.send()
	req.log.Info("tool call cancel relayed", "office", officeID, "req_id", in.ReqID, "to", len(others))
	s.answer(sess, req, nil, nil)
}

// onDisconnect forgets the session, tells its office, and answers every
// request still waiting on it (as a computer) at once.
func (s *Server) onDisconnect(sess *session, reason string, log *slog.Logger) {
	n, officeID, inOffice := s.reg.remove(sess)
	pend := sess.drainPending()
	log.Info("disconnected", "reason", reason, "office", officeID, "pending", len(pend))
	if inOffice {
		n.send()
	}
	for _, p := range pend {
		p.finish([]any{protocol.Errorf(protocol.CodeNotFound,
			"computer '%s' disconnected before answering %s", p.computer, p.event)})
	}
}
