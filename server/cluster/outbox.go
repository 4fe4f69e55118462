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
// they were queued. Only frames whose sender wants to know that they
// arrived (requests: no node listening means the computer's node is gone)
// ask Redis for an answer; the others (answers) go with CLIENT REPLY SKIP.
//
// go-redis is not used here: a pipeline through it reads an answer to
// every command and checks its pooled connection with a recvfrom before
// each batch.
const (
	maxQueued = 256 << 20 // bytes of frames waiting; a frame beyond fails at once
	maxBatch  = 4 << 20   // bytes written at once (a larger frame goes alone)
)

// outFrame is a frame waiting to be published.
type outFrame struct {
	node   string // whose channel it goes to
	frame  []byte
	failed func(error) // nil: nobody waits for the answer
}

// SendAsync queues frame for node's channel; SendAsync owns frame from
// then on (its array is reused: FrameBuffer). It never waits on Redis. failed, when not nil, is called (from
// another goroutine) with ErrNotDelivered when no node received the frame,
// or with an error wrapping ErrUnavailable when Redis failed or did not
// answer within the command timeout.
func (n *Node) SendAsync(node string, frame []byte, failed func(error)) {
	f := outFrame{node: node, frame: frame, failed: failed}
	if n.links != nil && n.links.send(f) {
		return
	}
	n.pub.send(f)
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
}

// idleCheck: a connection idle this long is checked (a peek, no wait)
// before a batch goes on it, so that one Redis closed meanwhile (restarted,
// CLIENT KILL, a proxy gone) is replaced rather than written to in vain.
// Under load, batches follow each other closer than that and are not
// checked: a close then shows at the next write or read.
const idleCheck = time.Millisecond

func newPublisher(n *Node) *publisher {
	return &publisher{n: n, log: &ratelog.Logger{Log: n.log}, wake: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{})}
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
	signal(p.wake)
}

// recycle keeps the arrays of frames written for FrameBuffer.
func (p *publisher) recycle(frames []outFrame) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range frames {
		if c := cap(f.frame); c > 0 && c <= maxFreeFrame && len(p.free) < maxFree {
			p.free = append(p.free, f.frame[:0])
		}
	}
}

// sendLoop publishes the queued frames until drain, then what is still
// queued.
func (p *publisher) sendLoop() {
	defer close(p.done)
	for {
		select {
		case <-p.wake:
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
		p.recycle(all)
		clear(all) // the frames are not kept
		p.spare = all[:0]
	}()
	batch := all
	if p.conn != nil && time.Since(p.used) >= idleCheck && closedUnder(p.conn.Conn) {
		_ = p.conn.Close()
		p.conn = nil
	}
	if p.conn == nil {
		if err := p.dial(); err != nil {
			p.fail(batch, err)
			return true
		}
	}
	for len(batch) > 0 {
		p.buf = p.buf[:0]
		asks := 0
		k := 0
		for ; k < len(batch) && (k == 0 || len(p.buf)+len(batch[k].frame) <= maxBatch); k++ {
			ask := batch[k].failed != nil || !p.skip
			if ask {
				asks++
			}
			p.buf = p.appendPublish(p.buf, batch[k].node, batch[k].frame, !ask)
		}
		if err := p.write(batch[:k], asks); err != nil {
			p.fail(batch[:k], err)
			p.fail(batch[k:], err)
			return true
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

// write sends p.buf, the commands of batch, and reads the asks answers
// among them.
func (p *publisher) write(batch []outFrame, asks int) error {
	deadline := time.Now().Add(p.n.opts.OpTimeout)
	_ = p.conn.SetDeadline(deadline)
	if _, err := p.conn.Write(p.buf); err != nil {
		return err
	}
	for _, f := range batch {
		if asks == 0 {
			break
		}
		if f.failed == nil && p.skip {
			continue
		}
		asks--
		line, err := p.rd.ReadSlice('\n')
		if err != nil {
			return err
		}
		p.answered(f, line)
	}
	return nil
}

// fail reports err to the frames of batch that wait for an answer and
// drops the connection.
func (p *publisher) fail(batch []outFrame, err error) {
	if len(batch) == 0 {
		return
	}
	if p.conn != nil {
		_ = p.conn.Close()
		p.conn = nil
	}
	if !errors.Is(err, ErrUnavailable) {
		err = p.n.unavailable("send", err)
	}
	p.n.sendFailed.Add(int64(len(batch)))
	p.log.Warn("cluster: frames to other nodes lost", "frames", len(batch), "err", err)
	for _, f := range batch {
		if f.failed != nil {
			f.failed(err)
		}
	}
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
func (p *publisher) answered(w outFrame, answer []byte) {
	answer = bytes.TrimRight(answer, "\r\n")
	var err error
	switch {
	case len(answer) > 1 && answer[0] == ':':
		if answer[1] >= '1' && answer[1] <= '9' {
			return // received by that many nodes
		}
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

// signal wakes whoever waits on wake (1 buffered) without ever blocking.
func signal(wake chan struct{}) {
	select {
	case wake <- struct{}{}:
	default:
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
