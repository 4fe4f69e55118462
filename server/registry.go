package server

import (
	"cmp"
	"encoding/json"
	"slices"
	"sync"

	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// emitter is the part of a Socket.IO socket the registry needs; tests use
// a fake.
type emitter interface {
	Emit(event string, args ...any)
	EmitWithAck(event string, payload any, fn func(args []json.RawMessage, err error))
}

// session is one connected client.
type session struct {
	sid     string
	version string // a2c_version from the handshake
	out     emitter

	writeMu sync.Mutex // serialises writes to out (emits and acks)

	// Guarded by registry.mu.
	name   string
	role   protocol.Role
	office string
	lease  string // cluster: the node lease the seat was taken under
	// Cluster: joins under way, and the lease of a join that failed on
	// Redis but may still take its seat when Redis runs it late.
	joining int
	unsure  string

	// Requests routed to this session as a Computer, by routing id.
	pendMu  sync.Mutex
	pending map[uint64]*pendingReq
	gone    bool // disconnected: no new pending requests

	// Requests this session sent (as an agent) still waiting for an answer.
	sentMu    sync.Mutex
	sent      int
	toolCalls map[string]bool // req_ids of its client:tool_call in flight
}

// admit counts a request from s, refusing it over limit or when it is a
// client:tool_call whose req_id is already in flight.
func (s *session) admit(event, reqID string, limit int) *protocol.Error {
	s.sentMu.Lock()
	defer s.sentMu.Unlock()
	if s.sent >= limit {
		return protocol.Errorf(protocol.CodeTooManyRequests,
			"%s: %d requests of this connection are waiting for answers (limit %d); wait for some", event, s.sent, limit)
	}
	if event == protocol.EventToolCall && reqID != "" {
		if s.toolCalls[reqID] {
			return protocol.Errorf(protocol.CodeBadRequest,
				"%s: a tool call with req_id %q is already in flight; use a new req_id", event, clip(reqID))
		}
		if s.toolCalls == nil {
			s.toolCalls = map[string]bool{}
		}
		s.toolCalls[reqID] = true
	}
	s.sent++
	return nil
}

// release forgets a request admit counted.
func (s *session) release(event, reqID string) {
	s.sentMu.Lock()
	defer s.sentMu.Unlock()
	s.sent--
	if event == protocol.EventToolCall {
		delete(s.toolCalls, reqID)
	}
}

func newSession(sid, version string, out emitter) *session {
	return &session{sid: sid, version: version, out: out, pending: map[uint64]*pendingReq{}}
}

// emit writes one event to the session's socket.
func (s *session) emit(event string, args ...any) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.out.Emit(event, args...)
}

// request writes one event expecting an answer to the session's socket.
func (s *session) request(event string, payload any, fn func([]json.RawMessage, error)) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.out.EmitWithAck(event, payload, fn)
}

// ack answers one of the session's requests.
func (s *session) ack(fn sio.Ack, args ...any) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	fn(args...)
}

// addPending records a request routed to s; false when s is gone.
func (s *session) addPending(p *pendingReq) bool {
	s.pendMu.Lock()
	defer s.pendMu.Unlock()
	if s.gone {
		return false
	}
	s.pending[p.id] = p
	return true
}

// takePending removes and returns the request with id, if still pending.
func (s *session) takePending(id uint64) (*pendingReq, bool) {
	s.pendMu.Lock()
	defer s.pendMu.Unlock()
	p, ok := s.pending[id]
	if ok {
		delete(s.pending, id)
	}
	return p, ok
}

// drainPending marks s gone and returns every request still pending.
func (s *session) drainPending() []*pendingReq {
	s.pendMu.Lock()
	defer s.pendMu.Unlock()
	s.gone = true
	out := make([]*pendingReq, 0, len(s.pending))
	for id, p := range s.pending {
		out = append(out, p)
		delete(s.pending, id)
	}
	return out
}

// office is a room: at most one agent and any number of computers, names
// unique.
type office struct {
	id      string
	members map[string]*session // by name
	agent   *session
}

// notice is a notification to send once the registry lock is released:
// to the sessions to, or (cluster) to the office's members on every node
// but the session except.
type notice struct {
	to      []*session
	office  string
	except  *session
	version uint64 // cluster: the office's version after a membership change
	event   string
	payload any
}

// send delivers n.
func (n notice) send() {
	for _, s := range n.to {
		s.emit(n.event, n.payload)
	}
}

// registry holds sessions and offices; every rule about who may be where
// lives here, free of sockets.
type registry struct {
	mu       sync.Mutex
	sessions map[string]*session
	offices  map[string]*office
}

func newRegistry() *registry {
	return &registry{sessions: map[string]*session{}, offices: map[string]*office{}}
}

func (r *registry) add(s *session) {
	r.mu.Lock()
	r.sessions[s.sid] = s
	r.mu.Unlock()
}

// get returns the session sid of this node, or nil.
func (r *registry) get(sid string) *session {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sessions[sid]
}

// others returns the members of o other than self.
func (o *office) others(self *session) []*session {
	out := make([]*session, 0, len(o.members))
	for _, m := range o.members {
		if m != self {
			out = append(out, m)
		}
	}
	return out
}

// membership returns the notification payload naming s in office id.
func membership(s *session, officeID string, leave bool) any {
	if leave {
		n := protocol.LeaveOfficeNotification{OfficeID: officeID}
		if s.role == protocol.RoleAgent {
			n.Agent = s.name
		} else {
			n.Computer = s.name
		}
		return n
	}
	n := protocol.EnterOfficeNotification{OfficeID: officeID}
	if s.role == protocol.RoleAgent {
		n.Agent = s.name
	} else {
		n.Computer = s.name
	}
	return n
}

// leaveLocked removes s from its office and returns the leave notice for
// the others. r.mu is held.
func (r *registry) leaveLocked(s *session) (notice, bool) {
	o := r.offices[s.office]
	if o == nil {
		s.office = ""
		return notice{}, false
	}
	n := notice{to: o.others(s), event: protocol.NotifyLeaveOffice, payload: membership(s, o.id, true)}
	if o.members[s.name] == s {
		delete(o.members, s.name)
	}
	if o.agent == s {
		o.agent = nil
	}
	if len(o.members) == 0 {
		delete(r.offices, o.id)
	}
	s.office = ""
	return n, true
}

// join applies the office rules to s joining req.OfficeID as req.Role
// named req.Name, and returns the notices to send.
func (r *registry) join(s *session, req protocol.EnterOfficeReq) ([]notice, *protocol.Error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.office != "" {
		if s.office == req.OfficeID && s.name == req.Name && s.role == req.Role {
			return nil, nil // already there: joining again is a no-op
		}
		if s.role == protocol.RoleAgent && s.office != req.OfficeID {
			return nil, protocol.Errorf(protocol.CodeAgentInOtherRoom,
				"agent %q is already in office %q; leave it first", clip(s.name), clip(s.office))
		}
	}
	o := r.offices[req.OfficeID]
	if o != nil {
		if req.Role == protocol.RoleAgent && o.agent != nil && o.agent != s {
			return nil, protocol.Errorf(protocol.CodeRoomFull,
				"office %q already has an agent (%q)", clip(req.OfficeID), clip(o.agent.name))
		}
		if m := o.members[req.Name]; m != nil && m != s {
			return nil, protocol.Errorf(protocol.CodeNameTaken,
				"name %q is already taken in office %q", clip(req.Name), clip(req.OfficeID))
		}
	}
	var notes []notice
	if s.office != "" {
		// A computer moving to another office, or a member changing its
		// name or role, leaves its current seat first.
		if n, ok := r.leaveLocked(s); ok {
			notes = append(notes, n)
		}
	}
	if o == nil {
		o = &office{id: req.OfficeID, members: map[string]*session{}}
		r.offices[req.OfficeID] = o
	}
	s.name, s.role, s.office = req.Name, req.Role, req.OfficeID
	o.members[s.name] = s
	if s.role == protocol.RoleAgent {
		o.agent = s
	}
	notes = append(notes, notice{to: o.others(s), event: protocol.NotifyEnterOffice, payload: membership(s, o.id, false)})
	return notes, nil
}

// leave removes s from officeID. Leaving an office s is not in succeeds
// and changes nothing (ok false), as in upstream's Server.
func (r *registry) leave(s *session, officeID string) (n notice, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.office == "" || s.office != officeID {
		return notice{}, false
	}
	return r.leaveLocked(s)
}

// remove forgets a disconnected session and returns its leave notice and
// the office it was in ("" and false when none).
func (r *registry) remove(s *session) (notice, string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.sessions, s.sid)
	officeID := s.office
	if officeID == "" {
		return notice{}, "", false
	}
	n, ok := r.leaveLocked(s)
	return n, officeID, ok
}

// list returns the members of officeID, which must be s's office.
func (r *registry) list(s *session, officeID string) ([]protocol.SessionInfo, *protocol.Error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.office == "" {
		return nil, protocol.NewError(protocol.CodeNotInRoom, "not in any office: join one first")
	}
	if officeID != s.office {
		return nil, protocol.Errorf(protocol.CodeCrossRoomAccess, "cannot list office %q from office %q", clip(officeID), clip(s.office))
	}
	o := r.offices[s.office]
	out := make([]protocol.SessionInfo, 0, len(o.members))
	for _, m := range o.members {
		out = append(out, protocol.SessionInfo{
			SID: m.sid, Name: m.name, Role: m.role, OfficeID: o.id, A2CVersion: m.version,
		})
	}
	sortMembers(out)
	return out, nil
}

// sortMembers orders a list_room answer: the agent first, then the
// computers by name.
func sortMembers(out []protocol.SessionInfo) {
	slices.SortFunc(out, func(a, b protocol.SessionInfo) int {
		if a.Role != b.Role {
			if a.Role == protocol.RoleAgent {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Name, b.Name)
	})
}

// target finds the computer named name for a request from s (and returns
// s's office), applying the
// checks in the protocol's order: caller not in an office (4103), caller
// not an agent (403), computer in another office (4104), unknown (404).
func (r *registry) target(s *session, name string) (target *session, office, sender string, e *protocol.Error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.office == "" {
		return nil, "", "", protocol.NewError(protocol.CodeNotInRoom, "not in any office: join one first")
	}
	if s.role != protocol.RoleAgent {
		return nil, s.office, s.name, protocol.Errorf(protocol.CodeForbidden, "only an agent may send client:* requests (you are a %s)", s.role)
	}
	if m := r.offices[s.office].members[name]; m != nil && m.role == protocol.RoleComputer {
		return m, s.office, s.name, nil
	}
	for id, o := range r.offices {
		if id == s.office {
			continue
		}
		if m := o.members[name]; m != nil && m.role == protocol.RoleComputer {
			return nil, s.office, s.name, protocol.Errorf(protocol.CodeCrossRoomAccess, "computer '%s' is not in your office", clip(name))
		}
	}
	return nil, s.office, s.name, protocol.Errorf(protocol.CodeNotFound, "computer '%s' not found", clip(name))
}

// peers returns s's office, role, name and the other members, for a
// broadcast from s; ok is false when s is in no office.
func (r *registry) peers(s *session) (officeID string, role protocol.Role, name string, others []*session, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.offices[s.office]
	if o == nil {
		return "", "", "", nil, false
	}
	return o.id, s.role, s.name, o.others(s), true
}

// counts returns the number of sessions and offices (for logs and tests).
func (r *registry) counts() (sessions, offices int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.sessions), len(r.offices)
}
