package server

import (
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/sio/sioserver"
	"github.com/smcp-browse/smcp-browse/internal/sio/wire"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// pendingReq is a client:* request forwarded to a computer and not yet
// answered. Exactly one of the computer's ack, the deadline and the
// computer's disconnect takes it from where it waits (at) and answers
// whoever asked (reply). Who asked is an agent on this node (localReq) or
// another node (forwardedReq); where it waits is a computer on this node
// (computerHere) or another node (remoteWait).
type pendingReq struct {
	id       uint64
	event    string
	computer string
	srv      *Server
	asker    replier   // who hears the answer
	at       waitPlace // where the request waits for it
	start    time.Time
	timeout  time.Duration // the computer's time to answer
	log      logged
	once     sync.Once
	deadline deadline
}

// replier is who asked a pending request: it is answered once.
type replier interface {
	// reply answers with values (an error), json.RawMessage ones passed
	// through unchanged.
	reply(args ...any)
	// replyRaw answers with the computer's answer, raw JSON values.
	replyRaw(args []json.RawMessage)
}

// waitPlace is where a pending request waits for its answer.
type waitPlace interface {
	// take removes request id; false when something answered it first.
	take(id uint64) bool
	// timedOut logs, where that is news, that p's time ran out there.
	timedOut(p *pendingReq)
}

// startDeadline has p expire after d.
func (p *pendingReq) startDeadline(d time.Duration) {
	p.deadline.of = p
	p.srv.deadlines.start(&p.deadline, d)
}

// expired answers p with a 408 once its time ran out, unless something
// else took it first.
func (p *pendingReq) expired() {
	if p.at.take(p.id) {
		p.at.timedOut(p)
		p.finish(protocol.Errorf(protocol.CodeTimeout,
			"computer '%s' did not answer %s within %s", p.computer, p.event, p.timeout))
	}
}

// finish answers the asker with args (json.RawMessage values passed
// through unchanged): an error, or what finishRaw did not take.
func (p *pendingReq) finish(args ...any) {
	p.once.Do(func() {
		p.srv.deadlines.stop(&p.deadline)
		p.asker.reply(args...)
	})
}

// finishRaw answers the asker with the computer's answer, raw JSON values.
func (p *pendingReq) finishRaw(args []json.RawMessage) {
	p.once.Do(func() {
		p.srv.deadlines.stop(&p.deadline)
		p.asker.replyRaw(args)
	})
}

// forwardTo sends p's request to the computer t on this node and answers
// p with the computer's ack (an empty one becomes notSupported), with a
// 408 when timeout passes first, or with a 404 when the computer
// disconnects first. log says what happened.
func (p *pendingReq) forwardTo(t *session, payload json.RawMessage, timeout time.Duration, log logged) {
	p.at, p.timeout, p.log = computerHere{t}, timeout, log
	p.startDeadline(timeout)
	if !t.addPending(p) {
		p.finish(protocol.Errorf(protocol.CodeNotFound, "computer '%s' disconnected", p.computer))
		return
	}
	t.request(p.event, payload, p)
}

// Acked takes the answer of the computer on this node (forwardTo): an
// empty one becomes notSupported.
func (p *pendingReq) Acked(args []json.RawMessage, _ error) {
	if !p.at.take(p.id) {
		return // answered already: timed out, or the computer left
	}
	if p.srv.debug {
		p.log.logger().Debug("routed", "took", time.Since(p.start))
	}
	if len(args) == 0 {
		p.log.logger().Info("computer answered with an empty ack: the event is not supported there")
		p.finish(notSupported(p.event, p.computer))
		return
	}
	p.finishRaw(args)
}

// localReq is a request from an agent on this node, answered with its
// ack; it holds one of the agent's in-flight slots (admit) until then.
type localReq struct {
	pendingReq
	from  *session
	ack   sioserver.Ack
	reqID string
}

// newLocalReq is a request from the agent sess, answered through ack.
func newLocalReq(s *Server, sess *session, ack sioserver.Ack, event, computer, reqID string) *localReq {
	l := &localReq{pendingReq: pendingReq{id: s.ids.Add(1), event: event, computer: computer, srv: s, start: time.Now()},
		from: sess, ack: ack, reqID: reqID}
	l.asker = l
	return l
}

func (l *localReq) reply(args ...any) {
	l.srv.release(l.from, l.event, l.reqID)
	l.from.ack(l.ack, args...)
}

func (l *localReq) replyRaw(args []json.RawMessage) {
	l.srv.release(l.from, l.event, l.reqID)
	l.from.ackRaw(l.ack, args)
}

// remoteAnswerer sends the answer of a request from another node back
// there (clusterStore.answerRemote).
type remoteAnswerer interface {
	answerRemote(node string, id uint64, stale bool, args []json.RawMessage)
}

// forwardedReq is a request from an agent on another node: its answer
// goes back to that node under the routing id it has there.
type forwardedReq struct {
	pendingReq
	to      remoteAnswerer
	node    string // the agent's node
	replyID uint64 // the request's routing id on that node
}

// newForwardedReq is request replyID of node, answered through to.
func newForwardedReq(s *Server, to remoteAnswerer, node string, replyID uint64, event, computer string) *forwardedReq {
	f := &forwardedReq{pendingReq: pendingReq{id: s.ids.Add(1), event: event, computer: computer, srv: s, start: time.Now()},
		to: to, node: node, replyID: replyID}
	f.asker = f
	return f
}

func (f *forwardedReq) reply(args ...any) {
	raw := make([]json.RawMessage, len(args))
	for i, a := range args {
		raw[i] = wire.AppendJSON(nil, a)
	}
	f.to.answerRemote(f.node, f.replyID, false, raw)
}

func (f *forwardedReq) replyRaw(args []json.RawMessage) {
	f.to.answerRemote(f.node, f.replyID, false, args)
}

// logger is the logger of a request from another node.
func (f *forwardedReq) logger() *slog.Logger {
	return f.srv.log.With("event", clip(f.event), "computer", clip(f.computer), "from_node", f.node)
}

// computerHere is where a request forwarded to a computer on this node
// waits: the computer's table of pending requests.
type computerHere struct{ t *session }

func (c computerHere) take(id uint64) bool {
	_, ok := c.t.takePending(id)
	return ok
}

func (c computerHere) timedOut(p *pendingReq) {
	p.log.logger().Warn("computer did not answer in time", "timeout", p.timeout)
}
