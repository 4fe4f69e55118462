package server

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/smcp-browse/smcp-browse/internal/sio/sioserver"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// office is a room: at most one agent and any number of computers, names
// unique.
type office struct {
	id      string
	members map[string]*session // by name
	agent   *session
}

// registry is the office store of a single node: the offices in memory;
// every rule about who may be where lives here, free of sockets.
type registry struct {
	mu      sync.Mutex
	offices map[string]*office
}

func newRegistry() *registry {
	return &registry{offices: map[string]*office{}}
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
func (r *registry) join(_ context.Context, s *session, req protocol.EnterOfficeReq) ([]notice, *protocol.Error) {
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
// and changes nothing (left false), as in upstream's Server.
func (r *registry) leave(_ context.Context, s *session, officeID string) (notes []notice, left bool, e *protocol.Error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.office == "" || s.office != officeID {
		return nil, false, nil
	}
	n, ok := r.leaveLocked(s)
	if !ok {
		return nil, false, nil
	}
	return []notice{n}, true, nil
}

// remove forgets a disconnected session's seat and returns the office it
// was in ("" when none) and its leave notice.
func (r *registry) remove(_ context.Context, s *session) (string, []notice) {
	r.mu.Lock()
	defer r.mu.Unlock()
	officeID := s.office
	if officeID == "" {
		return "", nil
	}
	if n, ok := r.leaveLocked(s); ok {
		return officeID, []notice{n}
	}
	return officeID, nil
}

// list returns the members of officeID, which must be s's office.
func (r *registry) list(_ context.Context, s *session, officeID string) ([]protocol.SessionInfo, *protocol.Error) {
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
func (r *registry) target(_ context.Context, s *session, _, name string) (to destination, office, sender string, e *protocol.Error) {
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

// known is target: the registry is in memory.
func (r *registry) known(s *session, event, name string) (destination, string, string, *protocol.Error, bool) {
	to, office, sender, e := r.target(context.Background(), s, event, name)
	return to, office, sender, e, true
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

// deliver sends n to the sessions it names.
func (r *registry) deliver(n notice) { n.send() }

// officeCount counts the offices.
func (r *registry) officeCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.offices)
}

// A single node has no lifecycle of its own.
func (r *registry) configure(*sioserver.ServerOptions) {}
func (r *registry) bind(*sioserver.Server)             {}
func (r *registry) start(context.Context) error        { return nil }
func (r *registry) close()                             {}
func (r *registry) admits() error                      { return nil }
func (r *registry) shutdown()                          {}
