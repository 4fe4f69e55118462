package server

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/sio/sioserver"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// emitter is the part of a Socket.IO socket the registry needs; tests use
// a fake.
type emitter interface {
	Emit(event string, args ...any)
	EmitWithAck(event string, payload any, h sioserver.AckHandler)
}

// session is one connected client.
type session struct {
	sid     string
	version string // a2c_version from the handshake
	out     emitter

	writeMu sync.Mutex // serialises writes to out (emits and acks)

	// The session's seat, guarded by its office store's mutex
	// (registry.mu, localSeats.mu).
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
func (s *session) request(event string, payload any, h sioserver.AckHandler) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.out.EmitWithAck(event, payload, h)
}

// ack answers one of the session's requests.
func (s *session) ack(a sioserver.Ack, args ...any) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	a.Send(args...)
}

// ackRaw answers one of the session's requests with raw JSON values.
func (s *session) ackRaw(a sioserver.Ack, args []json.RawMessage) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	a.SendRaw(args)
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

// sessionTable holds the sessions connected to this node, by sid, and
// counts those whose disconnection is not handled yet.
type sessionTable struct {
	mu      sync.Mutex
	m       map[string]*session
	open    int           // sessions added and not yet departed
	settled chan struct{} // closed when open drops to 0; nil while nobody waits
}

func newSessionTable() *sessionTable { return &sessionTable{m: map[string]*session{}} }

func (t *sessionTable) add(s *session) {
	t.mu.Lock()
	t.m[s.sid] = s
	t.open++
	t.mu.Unlock()
}

// departed marks the end of an added session's disconnection handling.
func (t *sessionTable) departed() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.open--
	if t.open == 0 && t.settled != nil {
		close(t.settled)
		t.settled = nil
	}
}

// settle waits until every added session has departed, or d passes; it
// reports how many had not.
func (t *sessionTable) settle(d time.Duration) int {
	t.mu.Lock()
	if t.open == 0 {
		t.mu.Unlock()
		return 0
	}
	if t.settled == nil {
		t.settled = make(chan struct{})
	}
	ch := t.settled
	t.mu.Unlock()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ch:
		return 0
	case <-timer.C:
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.open
	}
}

// get returns the session sid of this node, or nil.
func (t *sessionTable) get(sid string) *session {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[sid]
}

func (t *sessionTable) remove(s *session) {
	t.mu.Lock()
	delete(t.m, s.sid)
	t.mu.Unlock()
}

func (t *sessionTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}
