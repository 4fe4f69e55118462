package server

import (
	"context"
	"errors"
	"time"

	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server/cluster"
)

// clusterSeats keeps a cluster node's seats in Redis, by the office rules
// its scripts apply, and finds the computers requests name.
type clusterSeats struct{ *clusterState }

// removeRetry is how often a seat whose removal failed (Redis down) is
// removed again.
const removeRetry = 500 * time.Millisecond

// unavailable is the answer when the cluster state cannot be read or
// changed.
func unavailable(event string, err error) *protocol.Error {
	return protocol.Errorf(protocol.CodeInternalError, "%s: %v; try again", clip(event), err)
}

// peers returns sess's seat; the others are reached through deliver, so
// none are listed.
func (cs *clusterSeats) peers(sess *session) (officeID string, role protocol.Role, name string, others []*session, ok bool) {
	office, name, role, _ := cs.here.seat(sess)
	return office, role, name, nil, office != ""
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
func (cs *clusterSeats) seated(sid string) bool {
	sess := cs.srv.sessions.get(sid)
	if sess == nil {
		return false
	}
	cs.here.mu.Lock()
	defer cs.here.mu.Unlock()
	return sess.office != "" || sess.joining > 0
}

// join applies the office rules in Redis.
func (cs *clusterSeats) join(ctx context.Context, sess *session, in protocol.EnterOfficeReq) ([]notice, *protocol.Error) {
	cs.here.mu.Lock()
	sess.joining++
	cs.here.mu.Unlock()
	defer func() {
		cs.here.mu.Lock()
		sess.joining--
		cs.here.mu.Unlock()
	}()
	res, err := cs.node.Join(ctx, cluster.Member{
		SID: sess.sid, Name: in.Name, Role: in.Role, Office: in.OfficeID, Version: sess.version,
	})
	if err != nil {
		if errors.Is(err, cluster.ErrUnavailable) {
			// Redis may still run the join: its seat must go with the
			// session (remove).
			id, _ := cs.node.ID()
			cs.here.mu.Lock()
			sess.unsure = id
			cs.here.mu.Unlock()
		}
		return nil, unavailable(protocol.EventJoinOffice, err)
	}
	if res.Noop {
		// The seat is this session's in Redis; an earlier join this node
		// gave up on (Redis ran it late) may have taken it unbeknown to
		// the node, and to the office.
		cs.here.mu.Lock()
		adopt := sess.office != in.OfficeID || sess.name != in.Name || sess.role != in.Role || sess.lease != res.Node
		cs.here.mu.Unlock()
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
		_, name, _, _ := cs.here.seat(sess)
		e = protocol.Errorf(protocol.CodeAgentInOtherRoom,
			"agent %q is already in office %q; leave it first", clip(name), clip(res.Holder))
	case protocol.CodeRoomFull:
		e = protocol.Errorf(protocol.CodeRoomFull, "office %q already has an agent (%q)", clip(in.OfficeID), clip(res.Holder))
	case protocol.CodeNameTaken:
		e = protocol.Errorf(protocol.CodeNameTaken, "name %q is already taken in office %q", clip(in.Name), clip(in.OfficeID))
	default:
		e = protocol.Errorf(res.Code, "%s refused", protocol.EventJoinOffice)
	}
	if e == nil && !res.Noop {
		cs.here.mu.Lock()
		sess.name, sess.role, sess.lease, sess.unsure = in.Name, in.Role, res.Node, ""
		cs.here.seatLocked(sess, in.OfficeID, res.Version)
		joined := membership(sess, in.OfficeID, false)
		cs.here.mu.Unlock()
		notes = append(notes, notice{office: in.OfficeID, except: sess, version: res.Version, event: protocol.NotifyEnterOffice,
			payload: joined})
		cs.log.Debug("seated", "sid", sess.sid, "office", in.OfficeID, "node", res.Node, "version", res.Version)
	}
	return notes, e
}

// leave takes sess out of officeID in Redis.
func (cs *clusterSeats) leave(ctx context.Context, sess *session, officeID string) ([]notice, bool, *protocol.Error) {
	if office, _, _, _ := cs.here.seat(sess); office != officeID {
		return nil, false, nil
	}
	l, err := cs.node.Leave(ctx, sess.sid, officeID)
	if err != nil {
		return nil, false, unavailable(protocol.EventLeaveOffice, err)
	}
	cs.here.vacate(sess, officeID)
	if l == nil {
		return nil, false, nil
	}
	return []notice{leftNotice(*l, sess)}, true, nil
}

// list returns officeID's members on every node.
func (cs *clusterSeats) list(ctx context.Context, sess *session, officeID string) ([]protocol.SessionInfo, *protocol.Error) {
	office, _, _, lease := cs.here.seat(sess)
	if office == "" {
		return nil, protocol.NewError(protocol.CodeNotInRoom, "not in any office: join one first")
	}
	if officeID != office {
		return nil, protocol.Errorf(protocol.CodeCrossRoomAccess, "cannot list office %q from office %q", clip(officeID), clip(office))
	}
	members, err := cs.node.List(ctx, lease, sess.sid, office)
	if err != nil {
		return nil, clusterError(protocol.EventListRoom, office, err)
	}
	out := make([]protocol.SessionInfo, 0, len(members))
	for _, m := range members {
		out = append(out, protocol.SessionInfo{SID: m.SID, Name: m.Name, Role: m.Role, OfficeID: office, A2CVersion: m.Version})
	}
	sortMembers(out)
	return out, nil
}

// officeCount counts the offices with members on this node.
func (cs *clusterSeats) officeCount() int { return cs.here.officeCount() }

// clusterError turns an error of the cluster state into an answer.
func clusterError(event, office string, err error) *protocol.Error {
	if errors.Is(err, cluster.ErrSeatLost) {
		return protocol.Errorf(protocol.CodeNotInRoom,
			"not in office %q any more: this Server node lost its seat in the cluster; join again", clip(office))
	}
	return unavailable(event, err)
}

// remove forgets a disconnected session's seat in Redis and returns its
// leave notice. While Redis is down it tries again until it succeeds or
// the node's lease ends (then the node's reaping removes the seat).
func (cs *clusterSeats) remove(ctx context.Context, sess *session) (string, []notice) {
	cs.here.mu.Lock()
	office, lease, unsure := sess.office, sess.lease, sess.unsure
	cs.here.mu.Unlock()
	if office == "" {
		// Not seated, as far as this node knows; but a join Redis failed
		// to answer may have seated it since.
		if unsure == "" {
			return "", nil
		}
		lease = unsure
	}
	cs.here.vacate(sess, office)
	for {
		if id, leased := cs.node.ID(); !leased || id != lease {
			return office, nil // seated under a lease that is gone: reaping takes it
		}
		l, err := cs.node.Leave(ctx, sess.sid, "")
		if err == nil {
			if l != nil {
				return office, []notice{leftNotice(*l, nil)}
			}
			return office, nil
		}
		cs.log.Warn("cannot remove a disconnected session's seat; trying again", "sid", sess.sid, "office", office, "err", err)
		select {
		case <-ctx.Done():
			return office, nil // given up: the lease's end reaps the seat
		case <-time.After(removeRetry):
		}
	}
}

// target finds the computer a request from sess names: a session of this
// node, or one elsewhere. A computer this node found before is taken from
// its seat cache (known); the seat is checked again where the computer is
// (cachedDestination here, serveRemote on its node).
func (cs *clusterSeats) target(ctx context.Context, sess *session, event, name string) (destination, string, string, *protocol.Error) {
	if to, office, sender, e, ok := cs.known(sess, event, name); ok {
		return to, office, sender, e
	}
	office, sender, _, lease := cs.here.seat(sess)
	now := time.Now()
	gen := cs.seats.generation()
	sid, node, where, err := cs.node.Target(ctx, lease, sess.sid, office, name)
	switch {
	case err != nil:
		return nil, office, sender, clusterError(event, office, err)
	case where == cluster.Elsewhere:
		return nil, office, sender, protocol.Errorf(protocol.CodeCrossRoomAccess, "computer '%s' is not in your office", clip(name))
	case where == cluster.Missing:
		return nil, office, sender, protocol.Errorf(protocol.CodeNotFound, "computer '%s' not found", clip(name))
	}
	seat := cachedSeat{sid: sid, node: node, at: now}
	id, _ := cs.node.ID()
	if node != id {
		seat.remote = &remoteComputer{cs: cs.clusterState, sid: sid, node: node, office: office, cached: true}
	}
	cs.seats.put(office, name, seat, gen)
	if node == id {
		if t := cs.srv.sessions.get(sid); t != nil {
			return t, office, sender, nil
		}
		return nil, office, sender, protocol.Errorf(protocol.CodeNotFound, "computer '%s' disconnected", clip(name))
	}
	return &remoteComputer{cs: cs.clusterState, sid: sid, node: node, office: office}, office, sender, nil
}

// known answers what target can without Redis: sess's own refusals (4103,
// 403) and a computer whose seat the node remembers.
func (cs *clusterSeats) known(sess *session, _, name string) (destination, string, string, *protocol.Error, bool) {
	office, sender, role, _ := cs.here.seat(sess)
	if office == "" {
		return nil, "", "", protocol.NewError(protocol.CodeNotInRoom, "not in any office: join one first"), true
	}
	if role != protocol.RoleAgent {
		return nil, office, sender, protocol.Errorf(protocol.CodeForbidden, "only an agent may send client:* requests (you are a %s)", role), true
	}
	if seat, ok := cs.seats.get(office, name, time.Now()); ok {
		if d := cs.cachedDestination(seat, office, name); d != nil {
			return d, office, sender, nil, true
		}
		cs.seats.forget(office)
	}
	return nil, office, sender, nil, false
}

// cachedDestination is the computer a remembered seat names: on another
// node (which checks the seat when the request arrives), or the session
// here that still holds it; nil when it does not.
func (cs *clusterSeats) cachedDestination(seat cachedSeat, office, name string) destination {
	if seat.remote != nil {
		return seat.remote
	}
	t := cs.srv.sessions.get(seat.sid)
	if t == nil {
		return nil
	}
	if o, n, r, _ := cs.here.seat(t); o != office || n != name || r != protocol.RoleComputer {
		return nil
	}
	return t
}
