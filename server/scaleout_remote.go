package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
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
	cs                *clusterStore
	sid, node, office string
	cached            bool // found in the seat cache, not in Redis
}

// remoteReq is what a request sent to another node needs should it have
// to be sent again (its seat came from the cache and was stale).
type remoteReq struct {
	payload json.RawMessage
	cached  bool
}

// send forwards p's request to the computer's node and waits for the
// answer frame (or the node's departure, or its deadline).
func (rc *remoteComputer) send(_ *Server, p *pendingReq, payload json.RawMessage, timeout time.Duration, req logged) {
	cs := rc.cs
	p.node, p.target, p.timeout, p.log = rc.node, nil, timeout, req
	p.remote = remoteReq{cached: rc.cached}
	if rc.cached { // kept to be sent again should the seat be stale; the socket reader's until this returns
		p.remote.payload = bytes.Clone(payload)
	}
	cs.remoteMu.Lock()
	cs.remote[p.id] = p
	cs.remoteMu.Unlock()
	p.startDeadline(timeout + remoteGrace)
	from, _ := cs.node.ID()
	raw := appendRequest(nil, &frame{ID: p.id, From: from, SID: rc.sid, Office: rc.office,
		Computer: p.computer, Event: p.event, Timeout: timeout, Payload: payload})
	cs.node.SendAsync(rc.node, raw, func(err error) {
		if !cs.takeRemote(p.id) {
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
func (cs *clusterStore) takeRemote(id uint64) bool {
	cs.remoteMu.Lock()
	defer cs.remoteMu.Unlock()
	if _, ok := cs.remote[id]; !ok {
		return false
	}
	delete(cs.remote, id)
	return true
}

// waiting lists the nodes remote requests wait for.
func (cs *clusterStore) waiting() []string {
	cs.remoteMu.Lock()
	defer cs.remoteMu.Unlock()
	var out []string
	for _, p := range cs.remote {
		if !slices.Contains(out, p.node) {
			out = append(out, p.node)
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
		cs.remoteMu.Lock()
		p := cs.remote[f.ID]
		delete(cs.remote, f.ID)
		cs.remoteMu.Unlock()
		if p == nil {
			return // answered already (timed out, node gone)
		}
		if f.Stale {
			cs.stale(p)
			return
		}
		p.finishRaw(f.Args)
	}
}

// serveRemote forwards a request from another node to the computer here
// and sends its answer back. f's bytes are the frame's (not kept): what
// the request keeps is copied.
func (cs *clusterStore) serveRemote(f frame) {
	t := cs.srv.sessions.get(f.SID)
	if t != nil {
		office, name, role, _ := cs.seat(t)
		if office != f.Office || name != f.Computer || role != protocol.RoleComputer {
			t = nil
		}
	}
	if t == nil {
		cs.answerRemote(f.From, f.ID, true, nil)
		return
	}
	s := cs.srv
	p := &pendingReq{id: s.ids.Add(1), event: f.Event, computer: f.Computer, start: time.Now(), srv: s,
		replyTo: f.From, replyID: f.ID}
	s.forward(p, t, f.Payload, f.Timeout, p)
}

// answerRemote sends the answer args (stale: the seat was not the
// computer's) to request id of node.
func (cs *clusterStore) answerRemote(node string, id uint64, stale bool, args []json.RawMessage) {
	cs.node.SendAsync(node, appendAnswer(cs.node.FrameBuffer(), id, stale, args), nil)
}

// stale answers p, whose computer's node says the seat it was sent to is
// not that computer's: 404 when Redis said where it was, else (the seat
// came from the cache) the computer is looked up again and p sent there.
func (cs *clusterStore) stale(p *pendingReq) {
	r := p.remote
	if !r.cached {
		p.finish(protocol.Errorf(protocol.CodeNotFound, "computer '%s' disconnected", clip(p.computer)))
		return
	}
	cs.seats.forget(p.office)
	go func() { // a Redis lookup: not on the frames' goroutine
		to, _, _, e := cs.target(p.from, p.event, p.computer)
		if e != nil {
			p.finish(e)
			return
		}
		to.send(cs.srv, p, r.payload, p.timeout, p.log)
	}()
}
