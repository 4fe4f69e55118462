package server

import (
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/smcp-browse/smcp-browse/internal/sio/sioserver"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// recorder is a fake socket that records what is emitted to it.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) Emit(event string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf("%s %v", event, args))
}

func (r *recorder) EmitWithAck(event string, payload any, _ sioserver.AckHandler) {
	r.Emit(event, payload)
}

type fixture struct {
	t   *testing.T
	reg *registry
	s   map[string]*session
}

func newFixture(t *testing.T) *fixture {
	return &fixture{t: t, reg: newRegistry(), s: map[string]*session{}}
}

// sess returns the session with sid, creating it.
func (f *fixture) sess(sid string) *session {
	if s, ok := f.s[sid]; ok {
		return s
	}
	s := newSession(sid, "0.2.0", &recorder{})
	f.s[sid] = s
	return s
}

// join joins sid and returns the error code (0 on success) and the
// notices as "event -> recipients".
func (f *fixture) join(sid string, role protocol.Role, name, office string) (int, []string) {
	notes, e := f.reg.join(f.t.Context(), f.sess(sid), protocol.EnterOfficeReq{Role: role, Name: name, OfficeID: office})
	if e != nil {
		return e.Code, nil
	}
	return 0, describe(notes)
}

func describe(notes []notice) []string {
	var out []string
	for _, n := range notes {
		var to []string
		for _, s := range n.to {
			to = append(to, s.sid)
		}
		sort.Strings(to)
		out = append(out, fmt.Sprintf("%s %+v -> %v", n.event, n.payload, to))
	}
	return out
}

func (f *fixture) mustJoin(sid string, role protocol.Role, name, office string) {
	f.t.Helper()
	if code, _ := f.join(sid, role, name, office); code != 0 {
		f.t.Fatalf("join %s as %s %q in %q: code %d", sid, role, name, office, code)
	}
}

func TestJoinRules(t *testing.T) {
	const A, C = protocol.RoleAgent, protocol.RoleComputer
	type step struct {
		sid   string
		role  protocol.Role
		name  string
		off   string
		code  int
		notes []string
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"first member hears nothing", []step{
			{"c1", C, "pc", "o1", 0, []string{"notify:enter_office {OfficeID:o1 Computer:pc Agent:} -> []"}},
		}},
		{"agent joining is announced to the computers", []step{
			{"c1", C, "pc", "o1", 0, nil},
			{"a1", A, "bot", "o1", 0, []string{"notify:enter_office {OfficeID:o1 Computer: Agent:bot} -> [c1]"}},
		}},
		{"second agent is refused with 4101", []step{
			{"a1", A, "bot", "o1", 0, nil},
			{"a2", A, "bot2", "o1", protocol.CodeRoomFull, nil},
		}},
		{"agent already in another office gets 4106", []step{
			{"a1", A, "bot", "o1", 0, nil},
			{"a1", A, "bot", "o2", protocol.CodeAgentInOtherRoom, nil},
		}},
		{"name taken in the office gets 4105", []step{
			{"c1", C, "pc", "o1", 0, nil},
			{"c2", C, "pc", "o1", protocol.CodeNameTaken, nil},
		}},
		{"agent cannot take a computer's name", []step{
			{"c1", C, "pc", "o1", 0, nil},
			{"a1", A, "pc", "o1", protocol.CodeNameTaken, nil},
		}},
		{"same name in another office is fine", []step{
			{"c1", C, "pc", "o1", 0, nil},
			{"c2", C, "pc", "o2", 0, nil},
		}},
		{"joining again is a no-op", []step{
			{"c1", C, "pc", "o1", 0, nil},
			{"a1", A, "bot", "o1", 0, nil},
			{"a1", A, "bot", "o1", 0, nil},
		}},
		{"computer moving office leaves the old one", []step{
			{"a1", A, "bot", "o1", 0, nil},
			{"c1", C, "pc", "o1", 0, nil},
			{"a2", A, "bot2", "o2", 0, nil},
			{"c1", C, "pc", "o2", 0, []string{
				"notify:leave_office {OfficeID:o1 Computer:pc Agent:} -> [a1]",
				"notify:enter_office {OfficeID:o2 Computer:pc Agent:} -> [a2]",
			}},
		}},
		{"refused move keeps the old seat", []step{
			{"c1", C, "pc", "o1", 0, nil},
			{"c2", C, "pc", "o2", 0, nil},
			{"c1", C, "pc", "o2", protocol.CodeNameTaken, nil},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			for i, st := range tt.steps {
				code, notes := f.join(st.sid, st.role, st.name, st.off)
				if code != st.code {
					t.Fatalf("step %d (%s joins %s): code %d, want %d", i, st.sid, st.off, code, st.code)
				}
				if st.notes != nil && fmt.Sprint(notes) != fmt.Sprint(st.notes) {
					t.Fatalf("step %d notices:\n got %v\nwant %v", i, notes, st.notes)
				}
			}
		})
	}
}

func TestRefusedMoveKeepsSeat(t *testing.T) {
	f := newFixture(t)
	f.mustJoin("c1", protocol.RoleComputer, "pc", "o1")
	f.mustJoin("c2", protocol.RoleComputer, "pc", "o2")
	if code, _ := f.join("c1", protocol.RoleComputer, "pc", "o2"); code != protocol.CodeNameTaken {
		t.Fatalf("code %d", code)
	}
	list, e := f.reg.list(t.Context(), f.sess("c1"), "o1")
	if e != nil || len(list) != 1 || list[0].SID != "c1" {
		t.Fatalf("c1 lost its seat in o1: %v %v", list, e)
	}
}

func TestTargetOrder(t *testing.T) {
	f := newFixture(t)
	f.mustJoin("a1", protocol.RoleAgent, "bot", "o1")
	f.mustJoin("c1", protocol.RoleComputer, "pc", "o1")
	f.mustJoin("c2", protocol.RoleComputer, "far", "o2")
	f.mustJoin("a3", protocol.RoleAgent, "pc-agent", "o3")
	f.sess("lonely")
	tests := []struct {
		from, computer string
		code           int
	}{
		{"a1", "pc", 0},
		{"lonely", "pc", protocol.CodeNotInRoom},
		{"c1", "pc", protocol.CodeForbidden},
		{"a1", "far", protocol.CodeCrossRoomAccess},
		{"a1", "nobody", protocol.CodeNotFound},
		{"a1", "pc-agent", protocol.CodeNotFound}, // an agent is not a computer
		{"a1", "bot", protocol.CodeNotFound},      // nor is the caller
	}
	for _, tt := range tests {
		got, _, _, e := f.reg.target(t.Context(), f.sess(tt.from), protocol.EventGetTools, tt.computer)
		code := 0
		if e != nil {
			code = e.Code
		}
		if code != tt.code {
			t.Errorf("%s -> %s: code %d (%v), want %d", tt.from, tt.computer, code, e, tt.code)
		}
		if code == 0 && got != f.sess("c1") {
			t.Errorf("%s -> %s: routed to %v", tt.from, tt.computer, got)
		}
	}
}

func TestListAndLeave(t *testing.T) {
	f := newFixture(t)
	f.mustJoin("c2", protocol.RoleComputer, "zeta", "o1")
	f.mustJoin("c1", protocol.RoleComputer, "alpha", "o1")
	f.mustJoin("a1", protocol.RoleAgent, "bot", "o1")
	list, e := f.reg.list(t.Context(), f.sess("a1"), "o1")
	if e != nil {
		t.Fatal(e)
	}
	var names []string
	for _, s := range list {
		names = append(names, s.Name)
		if s.OfficeID != "o1" || s.A2CVersion != "0.2.0" || s.SID == "" {
			t.Errorf("incomplete session info %+v", s)
		}
	}
	if fmt.Sprint(names) != "[bot alpha zeta]" {
		t.Errorf("order %v, want agent first then computers by name", names)
	}
	if _, e := f.reg.list(t.Context(), f.sess("a1"), "o2"); e == nil || e.Code != protocol.CodeCrossRoomAccess {
		t.Errorf("listing another office: %v", e)
	}
	if _, e := f.reg.list(t.Context(), f.sess("nobody"), "o1"); e == nil || e.Code != protocol.CodeNotInRoom {
		t.Errorf("listing without office: %v", e)
	}
	if notes, left, e := f.reg.leave(t.Context(), f.sess("c1"), "o2"); left || e != nil || notes != nil {
		t.Errorf("leaving an office one is not in changed something: %v %v %v", notes, left, e)
	}
	notes, left, e := f.reg.leave(t.Context(), f.sess("c1"), "o1")
	if !left || e != nil {
		t.Fatal("c1 did not leave o1")
	}
	if got := describe(notes); fmt.Sprint(got) != "[notify:leave_office {OfficeID:o1 Computer:alpha Agent:} -> [a1 c2]]" {
		t.Errorf("leave notice %v", got)
	}
	office, notes := f.reg.remove(t.Context(), f.sess("a1"))
	if office != "o1" {
		t.Fatalf("remove: office %q", office)
	}
	if got := describe(notes); fmt.Sprint(got) != "[notify:leave_office {OfficeID:o1 Computer: Agent:bot} -> [c2]]" {
		t.Errorf("disconnect notice %v", got)
	}
	// The seat is free again.
	f.mustJoin("a9", protocol.RoleAgent, "bot", "o1")
	if o := f.reg.officeCount(); o != 1 {
		t.Errorf("%d offices, want 1", o)
	}
	f.reg.remove(t.Context(), f.sess("a9"))
	f.reg.remove(t.Context(), f.sess("c2"))
	if o := f.reg.officeCount(); o != 0 {
		t.Errorf("empty office not forgotten: %d offices", o)
	}
}

func TestPendingDrain(t *testing.T) {
	s := newSession("c1", "0.2.0", &recorder{})
	p := &pendingReq{id: 1}
	if !s.addPending(p) {
		t.Fatal("add refused")
	}
	if got := s.drainPending(); len(got) != 1 || got[0] != p {
		t.Fatalf("drain %v", got)
	}
	if s.addPending(&pendingReq{id: 2}) {
		t.Fatal("a gone session accepted a request")
	}
	if _, ok := s.takePending(1); ok {
		t.Fatal("drained request taken twice")
	}
}
