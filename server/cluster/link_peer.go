package cluster

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"runtime"
	"sync"
	"time"
)

// peer is the link this node dialled to another node, and the frames
// waiting for it.
type peer struct {
	l    *links
	node string
	wake chan struct{} // a frame was queued, or the link is to close (1 buffered)

	mu      sync.Mutex
	queue   []outFrame
	bytes   int
	running bool          // run is on
	done    chan struct{} // closed when run ends
	down    time.Time     // no link until then: frames go through Redis
	fails   int           // dials failed in a row
	conn    net.Conn
	closing bool // write what is queued, then close
	broken  bool // the link broke: run ends, and down says when to dial again
	removed bool // no longer this node's link to node (node gone, lease lost)
}

// send queues f, starting the link when it is not up; false when the link
// is down or being dialled again (the frame then goes through Redis).
func (p *peer) send(f outFrame) bool {
	p.mu.Lock()
	if p.broken || p.removed || p.closing || time.Now().Before(p.down) || p.bytes+len(f.frame) > maxQueued {
		p.mu.Unlock()
		return false
	}
	if !p.running {
		p.running = true
		p.done = make(chan struct{})
		go p.run()
	}
	if p.conn == nil && p.fails > 0 {
		// Dialling again after a failed dial: the frames go through Redis
		// meanwhile rather than wait for a dial that may fail again (a
		// firewall that drops the packets holds it for the timeout).
		p.mu.Unlock()
		return false
	}
	p.queue = append(p.queue, f)
	p.bytes += len(f.frame)
	p.mu.Unlock()
	signal(p.wake)
	return true
}

// shut closes the link: graceful writes what is queued first, otherwise
// the link is removed and what is queued goes through Redis.
func (p *peer) shut(graceful bool) {
	p.mu.Lock()
	if graceful {
		p.closing = true
	} else {
		p.removed = true
		if p.conn != nil {
			_ = p.conn.Close()
		}
	}
	p.mu.Unlock()
	signal(p.wake)
}

// wait waits for run to end (or ctx).
func (p *peer) wait(ctx context.Context) {
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// run dials the link and writes the queued frames until it breaks or
// closes; then what is still queued goes through Redis.
func (p *peer) run() {
	c, err := p.l.dial(p.node)
	if err != nil {
		p.mu.Lock()
		p.fails++
		wait := min(linkRetryMin<<min(p.fails-1, 5), linkRetryMax)
		p.down = time.Now().Add(wait)
		p.mu.Unlock()
		p.l.log.Warn("cluster: no link to a node; its frames go through Redis", "node", p.node, "retry_in", wait, "err", err)
		p.end(nil)
		return
	}
	p.mu.Lock()
	if p.removed {
		p.mu.Unlock()
		p.end(c)
		return
	}
	p.conn, p.fails = c, 0
	p.mu.Unlock()
	p.l.n.log.Debug("cluster: node link up", "node", p.node, "addr", c.RemoteAddr().String())
	go p.watch(c)
	p.write(c)
	p.end(c)
}

// write writes what is queued until the link breaks, is removed, or is
// closing and has nothing left.
func (p *peer) write(c net.Conn) {
	w := &linkWriter{c: c}
	for {
		<-p.wake
		p.gather()
		p.mu.Lock()
		batch, stop, closing := p.queue, p.broken || p.removed, p.closing
		p.queue, p.bytes = nil, 0
		p.mu.Unlock()
		if stop {
			p.requeue(batch)
			return
		}
		if len(batch) > 0 {
			if err := w.write(p.l.n, batch); err != nil {
				p.failed(batch, err)
				return
			}
			p.l.n.linked.Add(int64(len(batch)))
			p.l.n.pub.recycle(batch)
		}
		if closing {
			p.mu.Lock()
			empty := len(p.queue) == 0
			p.mu.Unlock()
			if empty {
				return
			}
			signal(p.wake) // more was queued before closing
		}
	}
}

// gather yields while other goroutines are still adding frames to the
// queue, a few times at most, so that they leave in one write.
func (p *peer) gather() {
	last := -1
	for range 3 {
		runtime.Gosched()
		p.mu.Lock()
		k := len(p.queue)
		p.mu.Unlock()
		if k == last {
			return
		}
		last = k
	}
}

// end closes c (when not nil), marks run ended and sends what is still
// queued through Redis.
func (p *peer) end(c net.Conn) {
	p.mu.Lock()
	if c != nil {
		_ = c.Close()
	}
	p.conn = nil
	p.broken = false
	p.running = false
	close(p.done)
	rest := p.queue
	p.queue, p.bytes = nil, 0
	p.mu.Unlock()
	for _, f := range rest {
		p.l.n.pub.send(f)
	}
}

// requeue puts batch back in front of the queue (run's deferred hand-over
// sends it through Redis).
func (p *peer) requeue(batch []outFrame) {
	p.mu.Lock()
	p.queue = append(batch, p.queue...)
	p.mu.Unlock()
}

// watch waits for the acceptor to close the link (it never writes after
// the handshake): the link is then down, and whether the node is gone is
// asked at once rather than at the next heartbeat.
func (p *peer) watch(c net.Conn) {
	var b [1]byte
	_, err := c.Read(b[:])
	p.mu.Lock()
	mine := p.conn == c
	if mine {
		p.broken = true
		p.down = time.Now().Add(linkRetryMin)
	}
	p.mu.Unlock()
	if !mine {
		return
	}
	_ = c.Close()
	signal(p.wake)
	p.l.n.log.Debug("cluster: node link closed by its node", "node", p.node, "err", err)
	p.l.n.checkListening(p.node)
}

// failed handles the frames of a write that failed: see the package's
// link notes.
func (p *peer) failed(batch []outFrame, err error) {
	p.mu.Lock()
	p.broken = true
	p.down = time.Now().Add(linkRetryMin)
	p.mu.Unlock()
	p.l.n.sendFailed.Add(int64(len(batch)))
	p.l.log.Warn("cluster: a node link broke while writing", "node", p.node, "frames", len(batch), "err", err)
	var asked []outFrame
	for _, f := range batch {
		if f.failed == nil {
			p.l.n.pub.send(f) // an answer: again, through Redis
		} else {
			asked = append(asked, f)
		}
	}
	if len(asked) == 0 {
		return
	}
	go func() {
		why := fmt.Errorf("%w (node %s): %v", ErrLinkBroken, p.node, err)
		ctx, cancel := p.l.n.opCtx(p.l.n.ctx)
		defer cancel()
		if !p.l.n.listening(ctx, p.node) {
			why = ErrNotDelivered
		}
		for _, f := range asked {
			f.failed(why)
		}
	}()
}

// linkWriter writes batches of frames on a link.
type linkWriter struct {
	c   net.Conn
	buf []byte
}

// write writes batch, up to maxBatch bytes at once.
func (w *linkWriter) write(n *Node, batch []outFrame) error {
	size := 0
	for _, f := range batch {
		size += len(f.frame)
	}
	_ = w.c.SetWriteDeadline(time.Now().Add(writeTime(n.opts.OpTimeout, size)))
	for len(batch) > 0 {
		w.buf = w.buf[:0]
		k := 0
		for ; k < len(batch) && (k == 0 || len(w.buf)+len(batch[k].frame) <= maxBatch); k++ {
			w.buf = binary.AppendUvarint(w.buf, uint64(len(batch[k].frame)))
			if len(batch[k].frame) > maxBatch { // alone, without a copy
				if _, err := w.c.Write(w.buf); err != nil {
					return err
				}
				w.buf = w.buf[:0]
				if _, err := w.c.Write(batch[k].frame); err != nil {
					return err
				}
				continue
			}
			w.buf = append(w.buf, batch[k].frame...)
		}
		if len(w.buf) > 0 {
			n.linkWrites.Add(1)
			if _, err := w.c.Write(w.buf); err != nil {
				return err
			}
		}
		batch = batch[k:]
	}
	if cap(w.buf) > maxKeptQueue {
		w.buf = nil
	}
	return nil
}

// A link's peer counts as stuck when a batch takes longer than
// linkStallTime (at least the command timeout) plus its size at
// minLinkRate. A peer that died resets the connection at once; one that
// is only slow to read (a loaded machine: its reader waits for a core)
// holds a write up for a second or more, and breaking the link then
// failed frames that would have arrived.
const (
	minLinkRate   = 4 << 20 // bytes per second
	linkStallTime = 10 * time.Second
)

// writeTime bounds the write of size bytes.
func writeTime(opTimeout time.Duration, size int) time.Duration {
	return max(opTimeout, linkStallTime) + time.Duration(size)*time.Second/minLinkRate
}
