package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server/cluster"
)

// remoteGrace is how much longer than the request's own timeout the
// agent's node waits for an answer from the computer's node, which times
// the request out itself; it only matters when that answer is lost.
const remoteGrace = 2 * time.Second

// remoteComputer is a computer's session on another node.
type remoteComputer struct {
	cs                *clusterState
	sid, node, office string
	cached            bool // found in the seat cache, not in Redis
}

// remoteWait is where a request sent to another node waits: the node's
// table of remote requests. It keeps what the request needs should it have
// to be sent again (its seat came from the cache and was stale).
type remoteWait struct {
	cs      *clusterState
	p       *localReq
	node    string // the computer's node
	office  string // the office it was routed in
	cached  bool   // the seat came from the cache
	payload json.RawMessage
}

func (w *remoteWait) take(id uint64) bool { return w.cs.remote.take(id) != nil }

// timedOut says nothing: the computer's node times the request out itself,
// so this deadline runs out only when that answer was lost.
func (w *remoteWait) timedOut(*pendingReq) {}

// send forwards p's request to the computer's node and waits for the
// answer frame (or the node's departure, or its deadline).
func (rc *remoteComputer) send(p *localReq, payload json.RawMessage, timeout time.Duration, req logged) {
	cs := rc.cs
	w := &remoteWait{cs: cs, p: p, node: rc.node, office: rc.office, cached: rc.cached}
	if rc.cached { // kept to be sent again should the seat be stale; the socket reader's until this returns
		w.payload = bytes.Clone(payload)
	}
	p.at, p.timeout, p.log = w, timeout, req
	cs.remote.add(p.id, w)
	p.startDeadline(timeout + remoteGrace)
	from, _ := cs.node.ID()
	raw := appendRequest(nil, &frame{ID: p.id, From: from, SID: rc.sid, Office: rc.office,
		Computer: p.computer, Event: p.event, Timeout: timeout, Payload: payload})
	cs.node.SendAsync(rc.node, raw, func(err error) {
		if cs.remote.take(p.id) == nil {
			return
		}
		if errors.Is(err, cluster.ErrNotDelivered) {
			p.finish(protocol.Errorf(protocol.CodeNotFound, "computer '%s' disconnected (its Server node is gone)", p.computer))
			return
		}
		p.finish(unavailable(p.event, err))
	})
}

// remoteTable holds the requests sent to other nodes, by routing id.
type remoteTable struct {
	mu sync.Mutex
	m  map[uint64]*remoteWait
}

func newRemoteTable() *remoteTable { return &remoteTable{m: map[uint64]*remoteWait{}} }

// add records w as request id.
func (t *remoteTable) add(id uint64, w *remoteWait) {
	t.mu.Lock()
	t.m[id] = w
	t.mu.Unlock()
}

// take removes and returns request id; nil when it was answered.
func (t *remoteTable) take(id uint64) *remoteWait {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.m[id]
	delete(t.m, id)
	return w
}

// takeAll removes and returns every request.
func (t *remoteTable) takeAll() []*remoteWait {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*remoteWait, 0, len(t.m))
	for _, w := range t.m {
		out = append(out, w)
	}
	clear(t.m)
	return out
}

// takeNode removes and returns the requests waiting for node.
func (t *remoteTable) takeNode(node string) []*remoteWait {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*remoteWait
	for id, w := range t.m {
		if w.node == node {
			out = append(out, w)
			delete(t.m, id)
		}
	}
	return out
}

// nodes lists the nodes the requests wait for.
func (t *remoteTable) nodes() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, w := range t.m {
		if !slices.Contains(out, w.node) {
			out = append(out, w.node)
		}
	}
	return out
}

// onFrame handles a frame from another node.
func (cs *clusterStore) onFrame(raw []byte) {
	f, err := parseFrame(raw)
	if err != nil {
		cs.log.Warn("cluster: a frame that does not decode; dropped", "err", err)
		return
	}
	switch f.Kind {
	case "q":
		cs.serveRemote(f)
	case "r":
		w := cs.remote.take(f.ID)
		if w == nil {
			return // answered already (timed out, node gone)
		}
		if f.Stale {
			cs.stale(w)
			return
		}
		w.p.finishRaw(f.Args)
	}
}

// serveRemote forwards a request from another node to the computer here
// and sends its answer back. f's bytes are the frame's (not kept): what
// the request keeps is copied.
func (cs *clusterStore) serveRemote(f frame) {
	t := cs.srv.sessions.get(f.SID)
	if t != nil {
		office, name, role, _ := cs.here.seat(t)
		if office != f.Office || name != f.Computer || role != protocol.RoleComputer {
			t = nil
		}
	}
	if t == nil {
		cs.answerRemote(f.From, f.ID, true, nil)
		return
	}
	p := newForwardedReq(cs.srv, cs, f.From, f.ID, f.Event, f.Computer)
	p.forwardTo(t, f.Payload, f.Timeout, p)
}

// answerRemote sends the answer args (stale: the seat was not the
// computer's) to request id of node.
func (cs *clusterStore) answerRemote(node string, id uint64, stale bool, args []json.RawMessage) {
	cs.node.SendAsync(node, appendAnswer(cs.node.FrameBuffer(), id, stale, args), nil)
}

// stale answers w's request, whose computer's node says the seat it was
// sent to is not that computer's: 404 when Redis said where it was, else
// (the seat came from the cache) the computer is looked up again and the
// request sent there, the lookup bounded by the request's own timeout.
func (cs *clusterStore) stale(w *remoteWait) {
	p := w.p
	if !w.cached {
		p.finish(protocol.Errorf(protocol.CodeNotFound, "computer '%s' disconnected", clip(p.computer)))
		return
	}
	cs.seats.forget(w.office)
	go func() { // a Redis lookup: not on the frames' goroutine
		ctx, cancel := context.WithTimeout(context.Background(), p.timeout)
		defer cancel()
		to, _, _, e := cs.target(ctx, p.from, p.event, p.computer)
		if e != nil {
			p.finish(e)
			return
		}
		to.send(p, w.payload, p.timeout, p.log)
	}()
}
