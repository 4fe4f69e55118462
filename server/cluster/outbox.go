package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// receiveRetry bounds the wait before reading sub again after an error
// (Redis gone: the next read redials it).
const receiveRetry = time.Second

// receive hands the frames of sub to OnFrame until sub closes. It reads
// them itself rather than through go-redis's Channel, whose goroutine
// hands each message on through a Go channel (a goroutine switch per
// frame) and drops one that waits there a minute.
func (n *Node) receive(sub *redis.PubSub) {
	wait := 10 * time.Millisecond
	for {
		msg, err := sub.ReceiveMessage(n.ctx)
		if err != nil {
			if errors.Is(err, redis.ErrClosed) || n.ctx.Err() != nil {
				return
			}
			n.log.Debug("cluster: reading this node's channel", "err", err)
			select {
			case <-n.ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = min(2*wait, receiveRetry)
			continue
		}
		wait = 10 * time.Millisecond
		n.received.Add(1)
		if n.opts.OnFrame != nil {
			n.opts.OnFrame([]byte(msg.Payload))
		}
	}
}

// Frames are published by one goroutine in pipelines: a routed request or
// an answer costs its sender no round trip to Redis, and frames to one
// node leave in the order they were queued.
const (
	outboxSize = 1 << 16
	maxBatch   = 256
)

// outFrame is a frame waiting to be published.
type outFrame struct {
	node   string
	frame  []byte
	failed func(error) // called when the frame did not reach node
}

// ErrNotDelivered: no node listens on the destination's channel (it is gone).
var ErrNotDelivered = errors.New("no Server node listens there (it is gone)")

// SendAsync queues frame for node. failed, when not nil, is called (from
// another goroutine) with ErrNotDelivered when no node received it, or with
// an error wrapping ErrUnavailable when Redis failed.
func (n *Node) SendAsync(node string, frame []byte, failed func(error)) {
	select {
	case n.out <- outFrame{node: node, frame: frame, failed: failed}:
	default:
		if failed != nil {
			failed(fmt.Errorf("%w: %d frames waiting to be published", ErrUnavailable, outboxSize))
		}
	}
}

// sendLoop publishes queued frames until the node closes, then what is
// still queued (answers of a node shutting down).
func (n *Node) sendLoop() {
	defer close(n.sent)
	batch := make([]outFrame, 0, maxBatch)
	for {
		select {
		case <-n.stopSend:
			for {
				batch = batch[:0]
				for len(batch) < maxBatch {
					select {
					case f := <-n.out:
						batch = append(batch, f)
						continue
					default:
					}
					break
				}
				if len(batch) == 0 {
					return
				}
				n.publish(batch)
			}
		case f := <-n.out:
			batch = append(batch[:0], f)
		}
	more:
		for len(batch) < maxBatch {
			select {
			case f := <-n.out:
				batch = append(batch, f)
			default:
				break more
			}
		}
		n.publish(batch)
	}
}

// publish sends one batch in a pipeline and reports the failures.
func (n *Node) publish(batch []outFrame) {
	ctx, cancel := n.opCtx(context.Background())
	defer cancel()
	pipe := n.rdb.Pipeline()
	cmds := make([]*redis.IntCmd, len(batch))
	for i, f := range batch {
		cmds[i] = pipe.Publish(ctx, n.channel(f.node), f.frame)
	}
	_, _ = pipe.Exec(ctx)
	for i, f := range batch {
		got, err := cmds[i].Result()
		switch {
		case err != nil:
			n.sendFailed.Add(1)
			err = n.unavailable("send", err)
		case got == 0:
			n.undelivered.Add(1)
			err = ErrNotDelivered
		default:
			n.published.Add(1)
			continue
		}
		if f.failed != nil {
			f.failed(err)
		} else {
			n.log.Warn("cluster: a frame did not reach its node", "node", f.node, "err", err)
		}
	}
}
