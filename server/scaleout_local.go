package server

import (
	"sync"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// localSeats is a cluster node's own record of its sessions' seats: each
// session's seat fields, and the members of each office on this node with
// the office's version at their join (which notices they hear).
type localSeats struct {
	// mu guards the seat fields of this node's sessions and offices.
	mu      sync.Mutex
	offices map[string]map[*session]uint64
}

func newLocalSeats() localSeats { return localSeats{offices: map[string]map[*session]uint64{}} }

// seat returns sess's own copy of its seat.
func (l *localSeats) seat(sess *session) (office, name string, role protocol.Role, lease string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return sess.office, sess.name, sess.role, sess.lease
}

// seatLocked records sess in office at version (office "" forgets its
// seat). l.mu is held.
func (l *localSeats) seatLocked(sess *session, office string, version uint64) {
	if old := l.offices[sess.office]; old != nil {
		delete(old, sess)
		if len(old) == 0 {
			delete(l.offices, sess.office)
		}
	}
	sess.office = office
	if office == "" {
		return
	}
	if l.offices[office] == nil {
		l.offices[office] = map[*session]uint64{}
	}
	l.offices[office][sess] = version
}

// vacate forgets sess's seat in officeID.
func (l *localSeats) vacate(sess *session, officeID string) {
	l.mu.Lock()
	if sess.office == officeID {
		l.seatLocked(sess, "", 0)
	}
	l.mu.Unlock()
}

// hearing returns the members of office on this node that hear a notice
// of the office at version (0: any): all but the session except and
// those who joined after the change (a version not above theirs).
func (l *localSeats) hearing(office, except string, version uint64) []*session {
	l.mu.Lock()
	defer l.mu.Unlock()
	to := make([]*session, 0, len(l.offices[office]))
	for m, joined := range l.offices[office] {
		if m.sid != except && (version == 0 || version > joined) {
			to = append(to, m)
		}
	}
	return to
}

// officeCount counts the offices with members on this node.
func (l *localSeats) officeCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.offices)
}

// clear forgets every office (the node lost its lease); the sessions'
// own seat fields are left to their disconnection.
func (l *localSeats) clear() {
	l.mu.Lock()
	clear(l.offices)
	l.mu.Unlock()
}
