package server

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// fakeAck records the answers an agent's request gets.
type fakeAck struct {
	mu      sync.Mutex
	answers []string
}

func (a *fakeAck) Send(args ...any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b, _ := json.Marshal(args)
	a.answers = append(a.answers, string(b))
}

func (a *fakeAck) SendRaw(args []json.RawMessage) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b, _ := json.Marshal(args)
	a.answers = append(a.answers, string(b))
}

func (a *fakeAck) got() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.answers...)
}

// quiet is a request's logger that discards.
type quiet struct{}

func (quiet) logger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// pendingFixture is a Server with an agent and a computer on this node,
// and one request of the agent admitted.
func pendingFixture(t *testing.T) (*Server, *session, *session, *fakeAck, *localReq) {
	t.Helper()
	s := New(Options{RequestTimeout: time.Hour})
	t.Cleanup(s.Close)
	agent := newSession("a1", "0.2.0", &recorder{})
	computer := newSession("c1", "0.2.0", &recorder{})
	if e := s.admit(agent, protocol.EventToolCall, "r1"); e != nil {
		t.Fatalf("admit: %v", e)
	}
	ack := &fakeAck{}
	return s, agent, computer, ack, newLocalReq(s, agent, ack, protocol.EventToolCall, "c1", "r1")
}

// The computer's answer reaches the agent once, unchanged, and gives back
// the in-flight slot; a timeout or disconnect after it changes nothing.
func TestLocalRequestAnsweredOnce(t *testing.T) {
	s, agent, computer, ack, p := pendingFixture(t)
	p.forwardTo(computer, json.RawMessage(`{"computer":"c1"}`), time.Hour, quiet{})
	p.Acked([]json.RawMessage{json.RawMessage(`{"ok":true}`)}, nil)
	p.expired()
	for _, q := range computer.drainPending() {
		q.finish(protocol.NewError(protocol.CodeNotFound, "gone"))
	}
	if got := ack.got(); len(got) != 1 || got[0] != `[{"ok":true}]` {
		t.Fatalf("agent's answers: %q, want the computer's one", got)
	}
	if n := s.inFlight.Load(); n != 0 {
		t.Errorf("in flight after the answer: %d, want 0", n)
	}
	// The slot of req_id r1 is free again: the same req_id is admitted.
	if e := s.admit(agent, protocol.EventToolCall, "r1"); e != nil {
		t.Errorf("req_id still held after the answer: %v", e)
	}
}

// A request whose time runs out is answered 408 and leaves the computer's
// table; the computer's late answer is dropped.
func TestLocalRequestExpires(t *testing.T) {
	_, _, computer, ack, p := pendingFixture(t)
	p.forwardTo(computer, json.RawMessage(`{}`), time.Hour, quiet{})
	p.expired()
	p.Acked([]json.RawMessage{json.RawMessage(`{"late":true}`)}, nil)
	got := ack.got()
	if len(got) != 1 || !strings.Contains(got[0], `"code":408`) {
		t.Fatalf("agent's answers: %q, want one 408", got)
	}
	if left := computer.drainPending(); len(left) != 0 {
		t.Errorf("the expired request is still in the computer's table: %d", len(left))
	}
}

// An empty ack means the computer does not know the event: 404.
func TestLocalRequestEmptyAck(t *testing.T) {
	_, _, computer, ack, p := pendingFixture(t)
	p.forwardTo(computer, json.RawMessage(`{}`), time.Hour, quiet{})
	p.Acked(nil, nil)
	if got := ack.got(); len(got) != 1 || !strings.Contains(got[0], `"code":404`) || !strings.Contains(got[0], "empty_ack") {
		t.Fatalf("agent's answers: %q, want a 404 empty_ack", got)
	}
}

// A computer gone before the request is forwarded answers 404 at once.
func TestLocalRequestComputerGone(t *testing.T) {
	_, _, computer, ack, p := pendingFixture(t)
	computer.drainPending()
	p.forwardTo(computer, json.RawMessage(`{}`), time.Hour, quiet{})
	if got := ack.got(); len(got) != 1 || !strings.Contains(got[0], `"code":404`) {
		t.Fatalf("agent's answers: %q, want a 404", got)
	}
}

// fakeNodes records the answers sent back to other nodes.
type fakeNodes struct {
	mu   sync.Mutex
	sent []string
}

func (f *fakeNodes) answerRemote(node string, id uint64, stale bool, args []json.RawMessage) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, _ := json.Marshal(args)
	f.sent = append(f.sent, fmt.Sprintf("%s %d stale=%t %s", node, id, stale, b))
}

// A request from another node is answered there, under its routing id
// on that node, once: an error as JSON, the computer's answer unchanged.
func TestForwardedRequestAnsweredOnce(t *testing.T) {
	s := New(Options{RequestTimeout: time.Hour})
	t.Cleanup(s.Close)
	nodes := &fakeNodes{}
	computer := newSession("c1", "0.2.0", &recorder{})
	p := newForwardedReq(s, nodes, "node-b", 7, protocol.EventGetTools, "c1")
	p.forwardTo(computer, json.RawMessage(`{}`), time.Hour, p)
	for _, q := range computer.drainPending() {
		q.finish(protocol.NewError(protocol.CodeNotFound, "computer 'c1' disconnected"))
	}
	p.finishRaw([]json.RawMessage{json.RawMessage(`{"late":true}`)})
	if len(nodes.sent) != 1 {
		t.Fatalf("answers sent: %q, want one", nodes.sent)
	}
	if got := nodes.sent[0]; !strings.HasPrefix(got, "node-b 7 stale=false ") || !strings.Contains(got, `"code":404`) {
		t.Errorf("answer sent: %q, want node-b, id 7, a 404", got)
	}
}

// The table of requests sent to other nodes gives each back once, by id,
// by node, or all of them.
func TestRemoteTable(t *testing.T) {
	rt := newRemoteTable()
	a, b, c := &remoteWait{node: "n1"}, &remoteWait{node: "n2"}, &remoteWait{node: "n1"}
	rt.add(1, a)
	rt.add(2, b)
	rt.add(3, c)
	if got := strings.Join(sortedStrings(rt.nodes()), ","); got != "n1,n2" {
		t.Errorf("nodes waited for: %s, want n1,n2", got)
	}
	if rt.take(2) != b || rt.take(2) != nil {
		t.Error("take(2) must give b once")
	}
	if got := rt.takeNode("n1"); len(got) != 2 {
		t.Errorf("takeNode(n1): %d requests, want 2", len(got))
	}
	rt.add(4, b)
	if got := rt.takeAll(); len(got) != 1 || got[0] != b {
		t.Errorf("takeAll: %v, want [b]", got)
	}
	if len(rt.nodes()) != 0 || rt.take(4) != nil {
		t.Error("the table is not empty after takeAll")
	}
}

func sortedStrings(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// A cluster node's own seats: a notice of an office reaches its members
// here but the one excepted and those who joined after the change.
func TestLocalSeatsHearing(t *testing.T) {
	l := newLocalSeats()
	a, c1, c2 := newSession("a", "", &recorder{}), newSession("c1", "", &recorder{}), newSession("c2", "", &recorder{})
	l.mu.Lock()
	l.seatLocked(a, "o1", 1)
	l.seatLocked(c1, "o1", 2)
	l.seatLocked(c2, "o2", 1)
	l.mu.Unlock()
	names := func(ss []*session) string {
		var out []string
		for _, s := range ss {
			out = append(out, s.sid)
		}
		return strings.Join(sortedStrings(out), ",")
	}
	if got := names(l.hearing("o1", "", 0)); got != "a,c1" {
		t.Errorf("o1, any version: %s, want a,c1", got)
	}
	if got := names(l.hearing("o1", "", 2)); got != "a" {
		t.Errorf("o1 at version 2: %s, want a (c1 joined at 2)", got)
	}
	if got := names(l.hearing("o1", "a", 0)); got != "c1" {
		t.Errorf("o1 except a: %s, want c1", got)
	}
	if n := l.officeCount(); n != 2 {
		t.Errorf("offices: %d, want 2", n)
	}
	l.vacate(c2, "o1") // not its office: nothing changes
	if off, _, _, _ := l.seat(c2); off != "o2" {
		t.Errorf("c2 vacated from an office it was not in: now in %q", off)
	}
	l.vacate(c2, "o2")
	if n := l.officeCount(); n != 1 {
		t.Errorf("offices after o2's last member left: %d, want 1", n)
	}
	l.clear()
	if n := l.officeCount(); n != 0 || len(l.hearing("o1", "", 0)) != 0 {
		t.Error("clear left offices behind")
	}
}

// Both stores are the whole officeStore, and each concern stands alone.
var (
	_ officeStore     = (*registry)(nil)
	_ officeStore     = (*clusterStore)(nil)
	_ seatKeeper      = (*clusterSeats)(nil)
	_ memberLister    = (*clusterSeats)(nil)
	_ computerFinder  = (*clusterSeats)(nil)
	_ noticeDeliverer = (*clusterNotices)(nil)
)
