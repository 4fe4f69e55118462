package cluster

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/ratelog"
)

// ErrNotDelivered: no node listens on the destination's channel (it is gone).
var ErrNotDelivered = errors.New("no Server node listens there (it is gone)")

// Frames are published by one goroutine per node (sendLoop) on a Redis
// connection of its own, in batches: what was queued while it wrote the
// last batch leaves in one write, and frames to one node leave in the order
// they were queued. Frames nobody waits for (answers) go with CLIENT REPLY
// SKIP. A frame whose sender wants to know that it arrived (a request: no
// node listening means the computer's node is gone) asks Redis for the
// count of nodes that received it only when its node was not counted
// within confirmEvery: under load, a node heard from a moment ago is
// taken to listen, and the request goes without an answer to read (a
// read, a wait for the poller and a wakeup less per batch). A request sent
// so is not forgotten: it is confirmed by the next answer read on the
// connection (Redis runs a connection's commands in order), which a
// request asks for once confirmEvery has passed; should the connection
// fail first, its sender is told as if it had asked. Should its node be
// gone, the heartbeat's check of the nodes waited for reports it
// (Options.OnNodeGone) instead of PUBLISH's count.
//
// go-redis is not used here: a pipeline through it reads an answer to
// every command and checks its pooled connection with a recvfrom before
// each batch.
const (
	maxQueued = 256 << 20 // bytes of frames waiting; a frame beyond fails at once
	maxBatch  = 4 << 20   // bytes written at once (a larger frame goes alone)

	confirmEvery   = 10 * time.Millisecond
	maxUnconfirmed = 4096 // requests sent without an answer; then one asks
)

// outFrame is a frame waiting to be published.
type outFrame struct {
	node   string // whose channel it goes to
	frame  []byte
	failed func(error) // nil: nobody waits for the answer
	ask    bool        // publish's: Redis answers this frame's PUBLISH
}

// unconfirmed is a request sent without asking for Redis's answer, not
// yet confirmed by a later answer on its connection.
type unconfirmed struct {
	failed func(error)
	at     time.Time
}

// SendAsync queues frame for node's channel; SendAsync owns frame from
// then on (its array is reused: FrameBuffer). It never waits on Redis. failed, when not nil, is called (from
// another goroutine) with ErrNotDelivered when no node received the frame,
// or with an error wrapping ErrUnavailable when Redis failed or did not
// answer within the command timeout.
func (n *Node) SendAsync(node string, frame []byte, failed func(error)) {
	n.pub.send(outFrame{node: node, frame: frame, failed: failed})
}

// FrameBuffer returns an empty buffer to build a frame for SendAsync in:
// the arrays of frames sent are used again.
func (n *Node) FrameBuffer() []byte {
	p := n.pub
	p.mu.Lock()
	defer p.mu.Unlock()
	if k := len(p.free); k > 0 {
		b := p.free[k-1]
		p.free = p.free[:k-1]
		return b
	}
	return nil
}

// Frame arrays kept for FrameBuffer: how many, and the largest.
const (
	maxFree      = 256
	maxFreeFrame = 64 << 10
)

// publisher holds the frames waiting for sendLoop and its connection.
type publisher struct {
	n    *Node
	log  *ratelog.Logger
	wake chan struct{} // a frame was queued (1 buffered)
	stop chan struct{} // closed by drain: sendLoop writes what is queued and ends
	done chan struct{} // closed when sendLoop has ended

	mu     sync.Mutex
	queue  []outFrame
	spare  []outFrame
	bytes  int // of the frames queued
	closed bool
	free   [][]byte // arrays of frames written, for FrameBuffer

	// sendLoop's own.
	conn *redisConn
	rd   *bufio.Reader
	skip bool      // conn takes CLIENT REPLY SKIP
	used time.Time // when conn last wrote a batch
	buf  []byte    // the batch being written

	live        map[string]time.Time // when a frame to a node was last counted received
	unconfirmed []unconfirmed        // requests written on conn since the last answer read
}

// idleCheck: a connection idle this long is checked (a peek, no wait)
// before a batch goes on it, so that one Redis closed meanwhile (restarted,
// CLIENT KILL, a proxy gone) is replaced rather than written to in vain.
// Under load, batches follow each other closer than that and are not
// checked: a close then shows at the next write or read.
const idleCheck = time.Millisecond

func newPublisher(n *Node) *publisher {
	return &publisher{n: n, log: &ratelog.Logger{Log: n.log}, wake: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{}), live: map[string]time.Time{}}
}

// send queues f and wakes sendLoop.
func (p *publisher) send(f outFrame) {
	p.mu.Lock()
	if p.closed || p.bytes+len(f.frame) > maxQueued {
		closed := p.closed
		p.mu.Unlock()
		p.n.sendFailed.Add(1)
		err := fmt.Errorf("%w: %d bytes of frames waiting for Redis at %s", ErrUnavailable, maxQueued, p.n.addr)
		if closed {
			err = fmt.Errorf("%w: this node is closing", ErrUnavailable)
		}
		report(f.failed, err)
		return
	}
	p.queue = append(p.queue, f)
	p.bytes += len(f.frame)
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// sendLoop publishes the queued frames until drain, then what is still
// queued.
func (p *publisher) sendLoop() {
	defer close(p.done)
	confirm := time.NewTimer(time.Hour)
	defer confirm.Stop()
	for {
		var confirmed <-chan time.Time // requests sent without asking wait for it
		if len(p.unconfirmed) > 0 {
			confirm.Reset(confirmEvery - time.Since(p.unconfirmed[0].at))
			confirmed = confirm.C
		}
		select {
		case <-p.wake:
		case <-confirmed:
			p.confirm()
			continue
		case <-p.stop:
			p.mu.Lock()
			p.closed = true
			p.mu.Unlock()
			for p.publish() {
			}
			if p.conn != nil {
				_ = p.conn.Close()
			}
			return
		}
		// The frames other goroutines queue in this turn join the batch.
		runtime.Gosched()
		for p.publish() {
		}
	}
}

// publish writes the queued frames (a batch of them) and reads the answers
// they ask for; false when nothing was queued.
func (p *publisher) publish() bool {
	p.mu.Lock()
	if len(p.queue) == 0 {
		p.mu.Unlock()
		return false
	}
	all := p.queue
	p.queue, p.spare = p.spare[:0], nil // the two never share an array
	p.bytes = 0
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		for _, f := range all {
			if c := cap(f.frame); c > 0 && c <= maxFreeFrame && len(p.free) < maxFree {
				p.free = append(p.free, f.frame[:0])
			}
		}
		p.mu.Unlock()
		clear(all) // the frames are not kept
		p.spare = all[:0]
	}()
	batch := all
	if p.conn != nil && time.Since(p.used) >= idleCheck && closedUnder(p.conn.Conn) {
		p.failUnconfirmed(p.n.unavailable("send", errors.New("connection closed by Redis")))
		_ = p.conn.Close()
		p.conn = nil
	}
	if p.conn == nil {
		if err := p.dial(); err != nil {
			p.fail(batch, err)
			return true
		}
	}
	now := time.Now()
	for len(batch) > 0 {
		p.buf = p.buf[:0]
		asks, lastAsk := 0, -1
		k := 0
		for ; k < len(batch) && (k == 0 || len(p.buf)+len(batch[k].frame) <= maxBatch); k++ {
			f := &batch[k]
			f.ask = !p.skip || (f.failed != nil && p.mustAsk(f.node, now))
			if f.ask {
				asks, lastAsk = asks+1, k
				p.n.asked.Add(1)
			}
			p.buf = p.appendPublish(p.buf, f.node, f.frame, !f.ask)
		}
		if err := p.write(batch[:k], asks, now); err != nil {
			p.fail(batch[:k], err)
			p.fail(batch[k:], err)
			return true
		}
		if lastAsk >= 0 { // what was written before is confirmed
			clear(p.unconfirmed)
			p.unconfirmed = p.unconfirmed[:0]
		}
		for _, f := range batch[lastAsk+1 : k] {
			if f.failed != nil {
				p.unconfirmed = append(p.unconfirmed, unconfirmed{failed: f.failed, at: now})
			}
		}
		p.n.published.Add(int64(k))
		batch = batch[k:]
	}
	p.used = time.Now()
	if cap(p.buf) > maxKeptQueue {
		p.buf = nil
	}
	return true
}

// mustAsk tells whether a request to node asks for Redis's answer: node
// was not counted receiving a frame within confirmEvery, or requests sent
// without asking wait too long (or are too many) for a confirmation.
func (p *publisher) mustAsk(node string, now time.Time) bool {
	if now.Sub(p.live[node]) > confirmEvery {
		return true
	}
	u := p.unconfirmed
	return len(u) >= maxUnconfirmed || (len(u) > 0 && now.Sub(u[0].at) > confirmEvery)
}

// write sends p.buf, the commands of batch, and reads the asks answers
// among them.
func (p *publisher) write(batch []outFrame, asks int, now time.Time) error {
	deadline := time.Now().Add(p.n.opts.OpTimeout)
	_ = p.conn.SetDeadline(deadline)
	if _, err := p.conn.Write(p.buf); err != nil {
		return err
	}
	for _, f := range batch {
		if asks == 0 {
			break
		}
		if !f.ask {
			continue
		}
		asks--
		line, err := p.rd.ReadSlice('\n')
		if err != nil {
			return err
		}
		p.answered(f, line, now)
	}
	return nil
}

// confirm asks Redis for an answer (PING) when no frame has since
// confirmed the requests sent without asking, and fails them if none
// comes within the command timeout.
func (p *publisher) confirm() {
	if len(p.unconfirmed) == 0 || p.conn == nil {
		return
	}
	_ = p.conn.SetDeadline(time.Now().Add(p.n.opts.OpTimeout))
	_, err := p.conn.Write(ping)
	if err == nil {
		var line []byte
		if line, err = p.rd.ReadSlice('\n'); err == nil && !bytes.Equal(line, []byte("+PONG\r\n")) {
			err = fmt.Errorf("PING answered %q", line)
		}
	}
	if err != nil {
		p.fail(nil, err)
		return
	}
	clear(p.unconfirmed)
	p.unconfirmed = p.unconfirmed[:0]
}

// ping is the command confirm sends.
var ping = appendCommand(nil, "PING")

// fail reports err to the frames of batch that wait for an answer and
// drops the connection.
func (p *publisher) fail(batch []outFrame, err error) {
	if len(batch) == 0 && len(p.unconfirmed) == 0 {
		return
	}
	if !errors.Is(err, ErrUnavailable) {
		err = p.n.unavailable("send", err)
	}
	lost := len(batch) + len(p.unconfirmed)
	p.failUnconfirmed(err)
	if p.conn != nil {
		_ = p.conn.Close()
		p.conn = nil
	}
	p.n.sendFailed.Add(int64(lost))
	p.log.Warn("cluster: frames to other nodes lost", "frames", lost, "err", err)
	for _, f := range batch {
		if f.failed != nil {
			f.failed(err)
		}
	}
}

// failUnconfirmed reports err to the requests written on the connection
// that no answer has confirmed: whether Redis ran them is not known.
func (p *publisher) failUnconfirmed(err error) {
	for _, u := range p.unconfirmed {
		u.failed(err)
	}
	clear(p.unconfirmed)
	p.unconfirmed = p.unconfirmed[:0]
}

// appendPublish appends PUBLISH of frame on node's channel (Node.channel)
// to buf as RESP, preceded by CLIENT REPLY SKIP when skip.
func (p *publisher) appendPublish(buf []byte, node string, frame []byte, skip bool) []byte {
	if skip {
		buf = append(buf, "*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$4\r\nSKIP\r\n"...)
	}
	buf = append(buf, "*3\r\n$7\r\nPUBLISH\r\n$"...)
	buf = strconv.AppendInt(buf, int64(len(p.n.opts.Prefix)+len(rpcChannel)+len(node)), 10)
	buf = append(buf, "\r\n"...)
	buf = append(buf, p.n.opts.Prefix...)
	buf = append(buf, rpcChannel...)
	buf = append(buf, node...)
	buf = append(buf, "\r\n$"...)
	buf = strconv.AppendInt(buf, int64(len(frame)), 10)
	buf = append(buf, "\r\n"...)
	buf = append(buf, frame...)
	return append(buf, "\r\n"...)
}

// maxLive bounds the nodes publish remembers hearing from.
const maxLive = 1024

// maxKeptQueue is the largest queue buffer kept for reuse.
const maxKeptQueue = 1 << 20

// dial connects to Redis for publishing, and tells whether CLIENT REPLY
// SKIP works there (a user whose ACL denies CLIENT gets an answer to every
// frame).
func (p *publisher) dial() error {
	c, err := p.n.dialRedis(4 << 10)
	if err != nil {
		return p.n.unavailable("send", err)
	}
	// Skipped, the first PING has no answer: PONG, then nothing.
	hello := appendCommand(nil, "CLIENT", "REPLY", "SKIP")
	hello = appendCommand(hello, "PING")
	hello = appendCommand(hello, "PING")
	skip, err := func() (bool, error) {
		if _, err := c.Write(hello); err != nil {
			return false, err
		}
		line, err := c.line()
		if err != nil || line == "+PONG" {
			return true, err
		}
		for range 2 { // CLIENT refused (an ACL denies it): both PINGs answer
			if line, err := c.line(); err != nil || line != "+PONG" {
				return false, cmp.Or(err, fmt.Errorf("PING answered %q", line))
			}
		}
		return false, nil
	}()
	if err != nil {
		_ = c.Close()
		return p.n.unavailable("send", err)
	}
	_ = c.SetDeadline(time.Time{})
	p.conn, p.rd, p.skip = c, c.rd, skip
	return nil
}

// answered reports Redis's answer to w's frame: the count of nodes that
// received it, or an error.
func (p *publisher) answered(w outFrame, answer []byte, now time.Time) {
	answer = bytes.TrimRight(answer, "\r\n")
	var err error
	switch {
	case len(answer) > 1 && answer[0] == ':':
		if answer[1] >= '1' && answer[1] <= '9' {
			if len(p.live) >= maxLive {
				clear(p.live)
			}
			p.live[w.node] = now
			return // received by that many nodes
		}
		delete(p.live, w.node)
		p.n.undelivered.Add(1)
		err = ErrNotDelivered
	default:
		p.n.sendFailed.Add(1)
		err = p.n.unavailable("send", fmt.Errorf("answer %q from Redis", answer))
	}
	if w.failed != nil {
		w.failed(err)
	} else {
		p.log.Warn("cluster: a frame did not reach its node", "err", err)
	}
}

// report calls failed with err on a goroutine of its own (SendAsync's
// callers may hold locks).
func report(failed func(error), err error) {
	if failed != nil {
		go failed(err)
	}
}

// drain stops sendLoop once it has written what is queued (or when ctx
// ends); frames sent later fail.
func (p *publisher) drain(ctx context.Context) {
	close(p.stop)
	select {
	case <-p.done:
	case <-ctx.Done():
	}
}
