package cluster

import (
	"context"
	"fmt"
	"time"
)

// register takes a new lease under a new id, subscribes to its channel
// and reaps the leases this node lost before.
func (n *Node) register(ctx context.Context) error {
	id := newID()
	ctx, cancel := n.opCtx(ctx)
	defer cancel()
	if n.links != nil {
		if err := n.links.setKey(ctx); err != nil {
			return n.unavailable("link key", err)
		}
	}
	ok, err := registerScript.Run(ctx, n.rdb, nil, n.opts.Prefix, id, n.leaseValue(), n.opts.TTL.Milliseconds()).Int()
	if err != nil {
		return n.unavailable("register", err)
	}
	if ok != 1 {
		return fmt.Errorf("register: node id %s already taken", id)
	}
	sub, err := n.subscribe(n.channel(id))
	if err != nil {
		_ = n.rdb.Del(ctx, n.key("n", id)).Err()
		return n.unavailable("subscribe", err)
	}
	n.mu.Lock()
	n.id, n.leased, n.lastOK = id, true, time.Now()
	old := n.old
	n.old = nil
	prev := n.sub
	n.sub = sub
	n.mu.Unlock()
	if prev != nil {
		prev.close()
	}
	n.log.Info("cluster: node registered", "node", id, "redis", n.addr, "ttl", n.opts.TTL)
	for _, o := range old {
		// The old lease may not have expired yet: it is this node's own,
		// so it ends it and reaps its sessions at once.
		_ = n.rdb.Del(ctx, n.key("n", o)).Err()
		n.reap(ctx, o)
	}
	return nil
}

// heartbeat renews the lease every TTL/3, fences the node when it cannot,
// registers again once Redis answers, and reaps dead nodes.
func (n *Node) heartbeat() {
	defer close(n.done)
	every := n.opts.TTL / 3
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		}
		n.tick()
	}
}

// tick is one heartbeat.
func (n *Node) tick() {
	ctx, cancel := n.opCtx(n.ctx)
	defer cancel()
	n.mu.Lock()
	id, leased, lastOK := n.id, n.leased, n.lastOK
	n.mu.Unlock()
	if !leased {
		if err := n.register(n.ctx); err != nil {
			n.log.Debug("cluster: cannot register yet", "err", err)
		}
		return
	}
	ok, err := n.rdb.SetXX(ctx, n.key("n", id), n.leaseValue(), n.opts.TTL).Result()
	switch {
	case err != nil:
		n.failed()
		// Others see the lease expire TTL after its last renewal; this
		// node gives up one heartbeat before, so that it never acts on a
		// seat the cluster may already have given away.
		if since := time.Since(lastOK); since >= n.opts.TTL-n.opts.TTL/3 {
			n.fence(id, fmt.Sprintf("Redis at %s unreachable for %s: %v", n.addr, since.Round(time.Millisecond), err))
		} else {
			n.log.Warn("cluster: heartbeat failed", "redis", n.addr, "err", err)
		}
		return
	case !ok:
		n.fence(id, "lease gone from Redis (Redis restarted or lost its data, or this node was declared dead)")
		return
	}
	n.mu.Lock()
	n.lastOK = time.Now()
	n.mu.Unlock()
	n.sweep(ctx)
	if last := n.lastFail.Load(); last != 0 && time.Since(time.Unix(0, last)) < n.opts.TTL {
		n.reconcile(id)
	}
}

// reconcile removes the seats of lease id whose session is not seated on
// this node (Options.Seated): seats taken by commands Redis ran after their
// caller gave up on them.
func (n *Node) reconcile(id string) {
	if n.opts.Seated == nil {
		return
	}
	ctx, cancel := n.opCtx(n.ctx)
	defer cancel()
	sids, err := n.rdb.SMembers(ctx, n.key("ns", id)).Result()
	if err != nil {
		n.log.Warn("cluster: cannot list this node's seats", "err", err)
		return
	}
	var left []Left
	for _, sid := range sids {
		if n.opts.Seated(sid) {
			continue
		}
		l, err := n.Leave(ctx, sid, "")
		if err != nil {
			n.log.Warn("cluster: cannot remove a seat left behind", "sid", sid, "err", err)
			return
		}
		if l != nil {
			left = append(left, *l)
		}
	}
	if len(left) == 0 {
		return
	}
	n.log.Info("cluster: removed seats that commands run late by Redis left behind", "node", id, "sessions", len(left))
	if n.opts.OnReaped != nil {
		n.opts.OnReaped(left)
	}
}

// fence drops the lease id: the node stops acting on the cluster state
// until it registers again under a new id.
func (n *Node) fence(id, reason string) {
	n.mu.Lock()
	if n.id != id || !n.leased {
		n.mu.Unlock()
		return
	}
	n.leased = false
	n.old = append(n.old, id)
	n.mu.Unlock()
	n.log.Error("cluster: lease lost; dropping every client of this node until Redis is back", "node", id, "reason", reason)
	if n.links != nil {
		n.links.reset()
	}
	if n.opts.OnFenced != nil {
		n.opts.OnFenced(reason)
	}
}

// sweep reaps dead nodes and reports nodes gone.
func (n *Node) sweep(ctx context.Context) {
	dead, err := deadScript.Run(ctx, n.rdb, nil, n.opts.Prefix).StringSlice()
	if err != nil {
		n.log.Warn("cluster: cannot list dead nodes", "err", err)
		return
	}
	gone := map[string]bool{}
	for _, d := range dead {
		n.nodeGone(d, gone)
		n.reap(ctx, d)
	}
	if n.opts.Waiting != nil {
		for _, w := range n.opts.Waiting() {
			if !n.listening(ctx, w) {
				n.nodeGone(w, gone)
			}
		}
	}
	n.mu.Lock()
	n.gone = gone // only the nodes still gone are remembered
	n.mu.Unlock()
}

// nodeGone reports node gone, and logs it the first sweep it is seen
// gone; gone collects this sweep's (nil outside a sweep).
func (n *Node) nodeGone(node string, gone map[string]bool) {
	if gone != nil {
		gone[node] = true
	}
	if n.links != nil {
		n.links.drop(node)
	}
	n.mu.Lock()
	seen := n.gone[node]
	n.mu.Unlock()
	if !seen {
		n.log.Warn("cluster: node gone", "node", node)
	}
	if n.opts.OnNodeGone != nil {
		n.opts.OnNodeGone(node)
	}
}

// reap removes a dead node's sessions and reports them.
func (n *Node) reap(ctx context.Context, node string) {
	res, err := reapScript.Run(ctx, n.rdb, nil, n.opts.Prefix, node).StringSlice()
	if err != nil {
		n.log.Warn("cluster: reap failed", "node", node, "err", err)
		return
	}
	left := lefts(res)
	if len(left) == 0 {
		return
	}
	n.log.Info("cluster: reaped a dead node's sessions", "node", node, "sessions", len(left))
	if n.opts.OnReaped != nil {
		n.opts.OnReaped(left)
	}
}
