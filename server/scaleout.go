package server

// Scale-out: with Options.Redis, every node sharing that Redis is one
// Server. Where things live:
//
//   - Office state (who sits where, names, roles, the one agent) is in
//     Redis, changed only by the atomic scripts of server/cluster; each
//     session also keeps a copy of its own seat (name, role, office) on
//     its node, as on a single node.
//   - Notifications go to the other nodes through the Redis adapter
//     (ServerEmit); each node delivers them to its own members of the
//     office. A membership change carries the office's version, and a
//     member hears only the changes newer than its own join.
//   - A client:* request for a computer on another node travels as a frame
//     on that node's Redis channel; the computer's node forwards it with
//     the same timer and disconnect handling as on one node, and sends the
//     answer back as a frame to the agent's node.
//   - Each node holds a lease in Redis. A node that loses it (Redis
//     unreachable for a lease's time, Redis restarted, the node declared
//     dead) drops every client and refuses new ones until it has a new
//     lease; its old sessions are reaped with their leave notifications.

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server/cluster"
)

// remoteGrace is how much longer than the request's own timeout the
// agent's node waits for an answer from the computer's node, which times
// the request out itself; it only matters when that answer is lost.
const remoteGrace = 2 * time.Second

// removeRetry is how often a seat whose removal failed (Redis down) is
// removed again.
const removeRetry = 500 * time.Millisecond

// scaleOut is the Server's cluster side; nil on a single node.
type scaleOut struct {
	node *cluster.Node

	mu     sync.Mutex
	remote map[uint64]*pendingReq // requests sent to other nodes, by routing id

	// The members of each office on this node, with the office's version
	// at their join; guarded by the registry's mutex.
	local map[string]map[*session]uint64

	// Notifications for the other nodes, published in order by one
	// goroutine: a publish waits for Redis (up to its timeout when Redis
	// hangs), which must not hold up the sender's other requests.
	notices    chan noticeWire
	publishing atomic.Bool // publishNotices runs
	stop       chan struct{}
	stopped    chan struct{}
}

// drainNotices stops publishNotices once it has sent what is queued, or
// after wait.
func (so *scaleOut) drainNotices(wait time.Duration) {
	if !so.publishing.Load() {
		return
	}
	close(so.stop)
	select {
	case <-so.stopped:
	case <-time.After(wait):
	}
}

// noticeQueue bounds the notifications waiting to be published.
const noticeQueue = 1 << 14

// noticeEvent carries a notification to the other nodes.
const noticeEvent = "smcp:notice"

// noticeWire is a notification between nodes.
type noticeWire struct {
	Office  string          `json:"office"`
	Except  string          `json:"except,omitempty"`
	Version uint64          `json:"version,omitempty"`
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
}

// newScaleOut prepares the cluster side; Serve starts it.
func (s *Server) newScaleOut() (*scaleOut, error) {
	so := &scaleOut{remote: map[uint64]*pendingReq{}, local: map[string]map[*session]uint64{},
		notices: make(chan noticeWire, noticeQueue), stop: make(chan struct{}), stopped: make(chan struct{})}
	node, err := cluster.New(cluster.Options{
		URL: s.opts.Redis, Prefix: s.opts.RedisPrefix, TTL: s.opts.ClusterTTL, Logger: s.log,
		OnFrame:    s.onFrame,
		OnFenced:   s.onFenced,
		OnReaped:   s.onReaped,
		OnNodeGone: s.onNodeGone,
		Waiting:    so.waiting,
		Seated:     s.seated,
	})
	if err != nil {
		return nil, err
	}
	so.node = node
	return so, nil
}

// unavailable is the answer when the cluster state cannot be read or
// changed.
func unavailable(event string, err error) *protocol.Error {
	return protocol.Errorf(protocol.CodeInternalError, "%s: %v; try again", clip(event), err)
}

// seat returns sess's own copy of its seat.
func (s *Server) seat(sess *session) (office, name string, role protocol.Role, lease string) {
	s.reg.mu.Lock()
	defer s.reg.mu.Unlock()
	return sess.office, sess.name, sess.role, sess.lease
}

// peers is registry.peers on a node of either kind: in a cluster the
// others are reached through the office's room, so none are listed.
func (s *Server) peers(sess *session) (officeID string, role protocol.Role, name string, others []*session, ok bool) {
	if s.so == nil {
		return s.reg.peers(sess)
	}
	office, name, role, _ := s.seat(sess)
	return office, role, name, nil, office != ""
}

// deliver sends n: on a single node to n.to; in a cluster to the office's
// members on this node and, through the other nodes, on theirs.
func (s *Server) deliver(n notice) {
	if s.so == nil || n.office == "" {
		n.send()
		return
	}
	raw, err := json.Marshal(n.payload)
	if err != nil {
		s.log.Error("notification is not JSON", "event", n.event, "err", err)
		return
	}
	w := noticeWire{Office: n.office, Version: n.version, Event: n.event, Payload: raw}
	if n.except != nil {
		w.Except = n.except.sid
	}
	s.deliverLocal(w)
	select {
	case s.so.notices <- w:
	default:
		s.log.Warn("notification not sent to the other nodes: too many waiting", "event", n.event, "office", n.office)
	}
}

// publishNotices sends the queued notifications to the other nodes until
// stop, then what is still queued.
func (s *Server) publishNotices() {
	defer close(s.so.stopped)
	send := func(w noticeWire) {
		b, _ := json.Marshal(w)
		if err := s.io.ServerEmit(noticeEvent, string(b)); err != nil {
			s.log.Warn("notification not sent to the other nodes", "event", w.Event, "office", w.Office, "err", err)
		}
	}
	for {
		select {
		case w := <-s.so.notices:
			send(w)
		case <-s.so.stop:
			for {
				select {
				case w := <-s.so.notices:
					send(w)
				default:
					return
				}
			}
		}
	}
}

// onNotice delivers a notification from another node.
func (s *Server) onNotice(payload string) {
	var w noticeWire
	if err := json.Unmarshal([]byte(payload), &w); err != nil {
		s.log.Warn("cluster: a notification that does not decode; dropped", "err", err)
		return
	}
	s.deliverLocal(w)
}

// deliverLocal sends w to this node's members of its office, but the one
// excepted and those who joined after the change (a version not above
// theirs).
func (s *Server) deliverLocal(w noticeWire) {
	s.reg.mu.Lock()
	to := make([]*session, 0, len(s.so.local[w.Office]))
	for m, joined := range s.so.local[w.Office] {
		if m.sid != w.Except && (w.Version == 0 || w.Version > joined) {
			to = append(to, m)
		}
	}
	s.reg.mu.Unlock()
	if s.debug {
		s.log.Debug("notification", "event", w.Event, "office", w.Office, "version", w.Version, "to", len(to))
	}
	for _, m := range to {
		m.emit(w.Event, w.Payload)
	}
}

// seatLocked records sess in office at version (office "" forgets its
// seat). s.reg.mu is held.
func (s *Server) seatLocked(sess *session, office string, version uint64) {
	if old := s.so.local[sess.office]; old != nil {
		delete(old, sess)
		if len(old) == 0 {
			delete(s.so.local, sess.office)
		}
	}
	sess.office = office
	if office == "" {
		return
	}
	if s.so.local[office] == nil {
		s.so.local[office] = map[*session]uint64{}
	}
	s.so.local[office][sess] = version
}

// leftNotice is the leave notification of a seat the cluster removed.
func leftNotice(l cluster.Left, except *session) notice {
	n := protocol.LeaveOfficeNotification{OfficeID: l.Office}
	if l.Role == protocol.RoleAgent {
		n.Agent = l.Name
	} else {
		n.Computer = l.Name
	}
	return notice{office: l.Office, except: except, version: l.Version, event: protocol.NotifyLeaveOffice, payload: n}
}

// seated reports whether session sid of this node holds or is taking its
// seat (cluster.Options.Seated).
func (s *Server) seated(sid string) bool {
	s.reg.mu.Lock()
	defer s.reg.mu.Unlock()
	sess := s.reg.sessions[sid]
	return sess != nil && (sess.office != "" || sess.joining > 0)
}

// joinCluster is onJoin's office rules, applied in Redis.
func (s *Server) joinCluster(sess *session, req *request, in protocol.EnterOfficeReq) {
	s.reg.mu.Lock()
	sess.joining++
	s.reg.mu.Unlock()
	defer func() {
		s.reg.mu.Lock()
		sess.joining--
		s.reg.mu.Unlock()
	}()
	res, err := s.so.node.Join(context.Background(), cluster.Member{
		SID: sess.sid, Name: in.Name, Role: in.Role, Office: in.OfficeID, Version: sess.version,
	})
	if err != nil {
		if errors.Is(err, cluster.ErrUnavailable) {
			// Redis may still run the join: its seat must go with the
			// session (removeCluster).
			id, _ := s.so.node.ID()
			s.reg.mu.Lock()
			sess.unsure = id
			s.reg.mu.Unlock()
		}
		s.answerOffice(sess, req, unavailable(req.event, err))
		return
	}
	if res.Noop {
		// The seat is this session's in Redis; an earlier join this node
		// gave up on (Redis ran it late) may have taken it unbeknown to
		// the node, and to the office.
		s.reg.mu.Lock()
		adopt := sess.office != in.OfficeID || sess.name != in.Name || sess.role != in.Role || sess.lease != res.Node
		s.reg.mu.Unlock()
		res.Noop = !adopt
	}
	var notes []notice
	for _, l := range res.Left {
		notes = append(notes, leftNotice(l, sess))
	}
	var e *protocol.Error
	switch res.Code {
	case 0:
	case protocol.CodeAgentInOtherRoom:
		_, name, _, _ := s.seat(sess)
		e = protocol.Errorf(protocol.CodeAgentInOtherRoom,
			"agent %q is already in office %q; leave it first", clip(name), clip(res.Holder))
	case protocol.CodeRoomFull:
		e = protocol.Errorf(protocol.CodeRoomFull, "office %q already has an agent (%q)", clip(in.OfficeID), clip(res.Holder))
	case protocol.CodeNameTaken:
		e = protocol.Errorf(protocol.CodeNameTaken, "name %q is already taken in office %q", clip(in.Name), clip(in.OfficeID))
	default:
		e = protocol.Errorf(res.Code, "%s refused", clip(req.event))
	}
	if e == nil && !res.Noop {
		s.reg.mu.Lock()
		sess.name, sess.role, sess.lease, sess.unsure = in.Name, in.Role, res.Node, ""
		s.seatLocked(sess, in.OfficeID, res.Version)
		joined := membership(sess, in.OfficeID, false)
		s.reg.mu.Unlock()
		notes = append(notes, notice{office: in.OfficeID, except: sess, version: res.Version, event: protocol.NotifyEnterOffice,
			payload: joined})
		req.logger().Info("joined office", "office", in.OfficeID, "role", in.Role, "name", in.Name, "node", res.Node)
	}
	s.answerOffice(sess, req, e)
	for _, n := range notes {
		s.deliver(n)
	}
}

// leaveCluster is onLeave in Redis.
func (s *Server) leaveCluster(sess *session, req *request, officeID string) {
	if office, _, _, _ := s.seat(sess); office != officeID {
		req.logger().Debug("left an office it was not in: nothing to do", "office", officeID)
		s.answerOffice(sess, req, nil)
		return
	}
	l, err := s.so.node.Leave(context.Background(), sess.sid, officeID)
	if err != nil {
		s.answerOffice(sess, req, unavailable(req.event, err))
		return
	}
	s.vacate(sess, officeID)
	if l != nil {
		req.logger().Info("left office", "office", officeID)
		s.deliver(leftNotice(*l, sess))
	}
	s.answerOffice(sess, req, nil)
}

// vacate forgets sess's seat in officeID on this node.
func (s *Server) vacate(sess *session, officeID string) {
	s.reg.mu.Lock()
	if sess.office == officeID {
		s.seatLocked(sess, "", 0)
	}
	s.reg.mu.Unlock()
}

// listCluster is onListRoom in Redis.
func (s *Server) listCluster(sess *session, req *request, in protocol.ListRoomReq) {
	office, _, _, lease := s.seat(sess)
	if office == "" {
		s.answer(sess, req, nil, protocol.NewError(protocol.CodeNotInRoom, "not in any office: join one first"))
		return
	}
	if in.OfficeID != office {
		s.answer(sess, req, nil, protocol.Errorf(protocol.CodeCrossRoomAccess, "cannot list office %q from office %q", clip(in.OfficeID), clip(office)))
		return
	}
	members, err := s.so.node.List(context.Background(), lease, sess.sid, office)
	if err != nil {
		s.answer(sess, req, nil, s.clusterError(req.event, office, err))
		return
	}
	out := make([]protocol.SessionInfo, 0, len(members))
	for _, m := range members {
		out = append(out, protocol.SessionInfo{SID: m.SID, Name: m.Name, Role: m.Role, OfficeID: office, A2CVersion: m.Version})
	}
	sortMembers(out)
	s.answer(sess, req, protocol.ListRoomRet{Sessions: out, ReqID: in.ReqID}, nil)
}

// clusterError turns an error of the cluster state into an answer.
func (s *Server) clusterError(event, office string, err error) *protocol.Error {
	if errors.Is(err, cluster.ErrSeatLost) {
		return protocol.Errorf(protocol.CodeNotInRoom,
			"not in office %q any more: this Server node lost its seat in the cluster; join again", clip(office))
	}
	return unavailable(event, err)
}

// removeCluster forgets a disconnected session's seat in Redis and tells
// its office. While Redis is down it tries again until it succeeds or the
// node's lease ends (then the node's reaping removes the seat).
func (s *Server) removeCluster(sess *session) {
	s.reg.mu.Lock()
	office, lease, unsure := sess.office, sess.lease, sess.unsure
	s.reg.mu.Unlock()
	if office == "" {
		// Not seated, as far as this node knows; but a join Redis failed
		// to answer may have seated it since.
		if unsure == "" {
			return
		}
		lease = unsure
	}
	s.vacate(sess, office)
	for {
		if id, leased := s.so.node.ID(); !leased || id != lease {
			return // seated under a lease that is gone: reaping takes it
		}
		l, err := s.so.node.Leave(context.Background(), sess.sid, "")
		if err == nil {
			if l != nil {
				s.deliver(leftNotice(*l, nil))
			}
			return
		}
		s.log.Warn("cannot remove a disconnected session's seat; trying again", "sid", sess.sid, "office", office, "err", err)
		time.Sleep(removeRetry)
	}
}

// targetCluster finds the computer a request from sess names: a session
// of this node, or the sid and node of one elsewhere.
func (s *Server) targetCluster(sess *session, event, name string) (local *session, sid, node, office, sender string, e *protocol.Error) {
	office, sender, role, lease := s.seat(sess)
	if office == "" {
		return nil, "", "", "", "", protocol.NewError(protocol.CodeNotInRoom, "not in any office: join one first")
	}
	if role != protocol.RoleAgent {
		return nil, "", "", office, sender, protocol.Errorf(protocol.CodeForbidden, "only an agent may send client:* requests (you are a %s)", role)
	}
	sid, node, where, err := s.so.node.Target(context.Background(), lease, sess.sid, office, name)
	switch {
	case err != nil:
		return nil, "", "", office, sender, s.clusterError(event, office, err)
	case where == cluster.Elsewhere:
		return nil, "", "", office, sender, protocol.Errorf(protocol.CodeCrossRoomAccess, "computer '%s' is not in your office", clip(name))
	case where == cluster.Missing:
		return nil, "", "", office, sender, protocol.Errorf(protocol.CodeNotFound, "computer '%s' not found", clip(name))
	}
	if id, _ := s.so.node.ID(); node == id {
		if t := s.reg.get(sid); t != nil {
			return t, "", "", office, sender, nil
		}
		return nil, "", "", office, sender, protocol.Errorf(protocol.CodeNotFound, "computer '%s' disconnected", clip(name))
	}
	return nil, sid, node, office, sender, nil
}

// frame is what nodes send each other: a routed request ("q") or its
// answer ("r").
type frame struct {
	Kind     string            `json:"k"`
	ID       uint64            `json:"id"`
	From     string            `json:"from,omitempty"`
	SID      string            `json:"sid,omitempty"`
	Office   string            `json:"office,omitempty"`
	Computer string            `json:"computer,omitempty"`
	Event    string            `json:"event,omitempty"`
	Timeout  time.Duration     `json:"timeout,omitempty"`
	Payload  json.RawMessage   `json:"payload,omitempty"`
	Args     []json.RawMessage `json:"args,omitempty"`
}

// forwardRemote sends p's request to the computer sid on node and waits
// for the answer frame (or the node's departure, or its own timer).
func (s *Server) forwardRemote(p *pendingReq, sid, node, office string, payload json.RawMessage, timeout time.Duration) {
	p.node = node
	s.so.mu.Lock()
	s.so.remote[p.id] = p
	s.so.mu.Unlock()
	p.setTimer(timeout+remoteGrace, func() {
		if s.takeRemote(p.id) {
			p.finish(protocol.Errorf(protocol.CodeTimeout,
				"computer '%s' did not answer %s within %s", p.computer, p.event, timeout))
		}
	})
	from, _ := s.so.node.ID()
	raw, err := json.Marshal(frame{Kind: "q", ID: p.id, From: from, SID: sid, Office: office,
		Computer: p.computer, Event: p.event, Timeout: timeout, Payload: payload})
	if err != nil {
		if s.takeRemote(p.id) {
			p.finish(protocol.Errorf(protocol.CodeBadRequest, "%s: malformed payload: %v", clip(p.event), err))
		}
		return
	}
	s.so.node.SendAsync(node, raw, func(err error) {
		if !s.takeRemote(p.id) {
			return
		}
		if errors.Is(err, cluster.ErrNotDelivered) {
			p.finish(protocol.Errorf(protocol.CodeNotFound, "computer '%s' disconnected (its Server node is gone)", p.computer))
			return
		}
		p.finish(unavailable(p.event, err))
	})
}

// takeRemote removes the remote request id; false when it was answered.
func (s *Server) takeRemote(id uint64) bool {
	s.so.mu.Lock()
	defer s.so.mu.Unlock()
	if _, ok := s.so.remote[id]; !ok {
		return false
	}
	delete(s.so.remote, id)
	return true
}

// waiting lists the nodes remote requests wait for.
func (so *scaleOut) waiting() []string {
	so.mu.Lock()
	defer so.mu.Unlock()
	var out []string
	for _, p := range so.remote {
		if !slices.Contains(out, p.node) {
			out = append(out, p.node)
		}
	}
	return out
}

// onFrame handles a frame from another node.
func (s *Server) onFrame(raw []byte) {
	var f frame
	if err := json.Unmarshal(raw, &f); err != nil {
		s.log.Warn("cluster: a frame that does not decode; dropped", "err", err)
		return
	}
	switch f.Kind {
	case "q":
		s.serveRemote(f)
	case "r":
		s.so.mu.Lock()
		p := s.so.remote[f.ID]
		delete(s.so.remote, f.ID)
		s.so.mu.Unlock()
		if p == nil {
			return // answered already (timed out, node gone)
		}
		args := make([]any, len(f.Args))
		for i, a := range f.Args {
			args[i] = a
		}
		p.finish(args...)
	}
}

// serveRemote forwards a request from another node to the computer here
// and sends its answer back.
func (s *Server) serveRemote(f frame) {
	reply := func(args ...any) {
		out := frame{Kind: "r", ID: f.ID, Args: make([]json.RawMessage, len(args))}
		for i, a := range args {
			b, err := json.Marshal(a)
			if err != nil {
				b, _ = json.Marshal(protocol.Errorf(protocol.CodeInternalError, "%s: answer is not JSON: %v", clip(f.Event), err))
			}
			out.Args[i] = b
		}
		raw, _ := json.Marshal(out)
		s.so.node.SendAsync(f.From, raw, nil)
	}
	t := s.reg.get(f.SID)
	if t != nil {
		office, name, role, _ := s.seat(t)
		if office != f.Office || name != f.Computer || role != protocol.RoleComputer {
			t = nil
		}
	}
	if t == nil {
		reply(protocol.Errorf(protocol.CodeNotFound, "computer '%s' disconnected", clip(f.Computer)))
		return
	}
	p := &pendingReq{id: s.ids.Add(1), event: f.Event, computer: f.Computer, start: time.Now(), reply: reply}
	s.forward(p, t, f.Payload, f.Timeout, loggerFunc(func() *slog.Logger {
		return s.log.With("event", clip(f.Event), "computer", clip(f.Computer), "from_node", f.From)
	}))
}

// onFenced drops everything when the node's lease is lost.
func (s *Server) onFenced(reason string) {
	s.so.mu.Lock()
	pend := make([]*pendingReq, 0, len(s.so.remote))
	for id, p := range s.so.remote {
		pend = append(pend, p)
		delete(s.so.remote, id)
	}
	s.so.mu.Unlock()
	for _, p := range pend {
		p.finish(protocol.Errorf(protocol.CodeInternalError, "%s: this Server node lost the cluster (%s); try again", p.event, reason))
	}
	s.io.DisconnectLocal()
	s.reg.mu.Lock()
	clear(s.so.local)
	s.reg.mu.Unlock()
}

// onReaped tells the offices of a dead node's sessions that they left.
func (s *Server) onReaped(left []cluster.Left) {
	for _, l := range left {
		s.deliver(leftNotice(l, nil))
	}
}

// onNodeGone answers the requests waiting for a node that is gone.
func (s *Server) onNodeGone(node string) {
	s.so.mu.Lock()
	var pend []*pendingReq
	for id, p := range s.so.remote {
		if p.node == node {
			pend = append(pend, p)
			delete(s.so.remote, id)
		}
	}
	s.so.mu.Unlock()
	for _, p := range pend {
		p.finish(protocol.Errorf(protocol.CodeNotFound, "computer '%s' disconnected before answering %s (its Server node is gone)", p.computer, p.event))
	}
}
