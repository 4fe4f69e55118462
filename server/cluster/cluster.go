// Package cluster is what several Server nodes sharing one Redis need
// beside Socket.IO's Redis adapter (which carries the office broadcasts):
// the office state in Redis, changed by atomic Lua scripts; a lease per
// node, renewed by a heartbeat, whose loss fences the node; the reaping of
// dead nodes' sessions; and a pub/sub channel per node that carries routed
// requests and their answers between nodes as opaque frames. It knows
// nothing about sockets.
package cluster

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/smcp-browse/smcp-browse/internal/ratelog"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Defaults applied to zero Options fields.
const (
	DefaultPrefix    = "smcp"
	DefaultTTL       = 3 * time.Second
	DefaultOpTimeout = time.Second
)

// Options configure Open. URL is required.
type Options struct {
	// URL is the Redis URL: redis://[user:password@]host:port/db
	// (rediss:// for TLS).
	URL string
	// Prefix starts every key and channel (default "smcp"); nodes with
	// the same Redis and prefix are one Server.
	Prefix string
	// TTL is a node's lease (default 3 s): a node that has not renewed it
	// for that long counts as dead, and its sessions leave their offices.
	// The heartbeat renews it every TTL/3.
	TTL time.Duration
	// OpTimeout bounds one Redis command (default 1 s).
	OpTimeout time.Duration
	// Info is stored in the node's lease (its address, for operators).
	Info   string
	Logger *slog.Logger

	// OnFrame receives each frame another node sent to this one, on the
	// subscription's goroutine, in order; it must not block.
	OnFrame func(frame []byte)
	// OnFenced is called when the node loses its lease (Redis was
	// unreachable for a lease's time, restarted, or the node was declared
	// dead): its sessions' seats may be gone, so it must drop every client.
	OnFenced func(reason string)
	// OnReaped receives the sessions of dead nodes this node removed from
	// their offices (each removal goes to exactly one node).
	OnReaped func(left []Left)
	// OnNodeGone is called with a node that is gone (no lease, or not
	// listening any more): requests waiting for it will not be answered.
	OnNodeGone func(node string)
	// Waiting returns the nodes this node waits for answers from; the
	// heartbeat checks each still listens.
	Waiting func() []string
	// Seated reports whether session sid of this node still holds or is
	// taking its seat (connected, and seated or joining). A command that
	// timed out may still run when Redis answers again (a join whose
	// client was told to try again, and has left since): for a lease after
	// a Redis failure, the heartbeat removes the seats of this node's
	// lease whose session Seated denies, and reports them to OnReaped.
	Seated func(sid string) bool
}

// Left is a session removed from an office; Version is the office's
// version after the removal.
type Left struct {
	SID, Office, Name string
	Role              protocol.Role
	Version           uint64
}

// Member is a session seated in an office.
type Member struct {
	SID, Name, Office, Version, Node string
	Role                             protocol.Role
}

// Errors of the state operations; a Redis failure is wrapped in
// ErrUnavailable.
var (
	// ErrUnavailable: Redis could not be reached or did not answer.
	ErrUnavailable = errors.New("cluster state unavailable")
	// ErrFenced: this node holds no lease now (it is re-registering).
	ErrFenced = errors.New("this Server node has lost its lease in Redis and is reconnecting to it")
	// ErrSeatLost: the caller's seat is no longer in Redis (its node was
	// declared dead meanwhile).
	ErrSeatLost = errors.New("the session's seat is gone from the cluster state")
)

// Node is one Server node's link to the shared Redis.
type Node struct {
	opts       Options
	log        *slog.Logger
	rdb        *redis.Client
	asub       *redis.Client // the adapter's subscriptions (AdapterClients)
	asubOnce   sync.Once
	asubClosed chan struct{} // closed by CloseSubscriber
	addr       string

	mu     sync.Mutex
	id     string // current lease's node id
	leased bool
	lastOK time.Time       // last renewal that succeeded
	old    []string        // ids of leases lost, to reap once registered again
	gone   map[string]bool // nodes the last sweep found gone
	sub    *redis.PubSub

	lastFail atomic.Int64 // unix ns of the last Redis failure, 0 if none

	out     chan outFrame // frames waiting for sendLoop
	started atomic.Bool

	published, undelivered, sendFailed, received atomic.Int64 // frames

	ctx      context.Context
	cancel   context.CancelFunc
	done     chan struct{} // closed when the heartbeat has stopped
	stopSend chan struct{} // closed by Close: sendLoop flushes and stops
	sent     chan struct{} // closed when sendLoop has stopped
}

// New returns a node for the Redis at o.URL; it connects nothing yet
// (Start does).
func New(o Options) (*Node, error) {
	o.Prefix = cmp.Or(o.Prefix, DefaultPrefix)
	o.TTL = cmp.Or(o.TTL, DefaultTTL)
	o.OpTimeout = cmp.Or(o.OpTimeout, DefaultOpTimeout)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	ro, err := clientOptions(o.URL, o.OpTimeout)
	if err != nil {
		return nil, err
	}
	n := &Node{opts: o, log: o.Logger, rdb: redis.NewClient(ro), addr: ro.Addr, gone: map[string]bool{},
		out: make(chan outFrame, outboxSize)}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	n.done = make(chan struct{})
	n.sent = make(chan struct{})
	n.stopSend = make(chan struct{})
	n.asubClosed = make(chan struct{})
	return n, nil
}

// clientOptions are the go-redis options of a node's client.
func clientOptions(url string, opTimeout time.Duration) (*redis.Options, error) {
	ro, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis URL: %w", err)
	}
	// Fail fast: every command has its caller waiting (a join, a routed
	// request), and the heartbeat decides what an outage means.
	ro.DialTimeout = opTimeout
	ro.ReadTimeout = opTimeout
	ro.WriteTimeout = opTimeout
	ro.PoolTimeout = opTimeout
	ro.MaxRetries = 1
	ro.DialerRetries = 1 // go-redis retries a refused dial 5 times, 100 ms apart, by default
	ro.DialerRetryTimeout = 10 * time.Millisecond
	// RESP2, not go-redis's default RESP3: over RESP3 a pub/sub message is
	// a push reply, and go-redis v9.18 first hands buffered pushes to its
	// push-notification processor, which names a push by peeking only at
	// the bytes already buffered. A message cut by a TCP segment inside
	// its name ("mess|age") is taken for an unknown notification and
	// dropped: about 2 frames in 100,000 were lost under load
	// (TestPubSubMessageSplitInItsName).
	ro.Protocol = 2
	return ro, nil
}

// Start takes a lease and starts the heartbeat; it fails when Redis cannot
// be reached. Close ends what Start began.
func (n *Node) Start(ctx context.Context) error {
	if err := n.register(ctx); err != nil {
		return err
	}
	n.started.Store(true)
	go n.heartbeat()
	go n.sendLoop()
	return nil
}

// Open is New and Start.
func Open(ctx context.Context, o Options) (*Node, error) {
	n, err := New(o)
	if err != nil {
		return nil, err
	}
	if err := n.Start(ctx); err != nil {
		_ = n.rdb.Close()
		return nil, err
	}
	return n, nil
}

// AdapterClients returns the Redis clients of the Socket.IO adapter: the
// node's own for publishing, and one for its subscriptions, which Close
// closes. The adapter's subscription
// loops try again at once after an error: while Redis was down, a node
// spent 1.4 cores redialling it about 57,000 times a second. go-redis dials
// a subscription's connection with no backoff of its own, so this client's
// dialer waits before reporting a failed dial, longer each time in a row
// (up to a second); TestAdapterIdleWhileRedisDown.
func (n *Node) AdapterClients() (pub, sub redis.UniversalClient) {
	if n.asub != nil {
		return n.rdb, n.asub
	}
	ro := *n.rdb.Options()
	var failures atomic.Int32
	closed := n.asubClosed
	d := &net.Dialer{Timeout: ro.DialTimeout, KeepAlive: 5 * time.Minute}
	ro.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err == nil {
			failures.Store(0)
			return c, nil
		}
		wait := min(time.Duration(1<<min(failures.Add(1), 10))*10*time.Millisecond, time.Second)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		case <-closed: // CloseSubscriber
		}
		return nil, err
	}
	n.asub = redis.NewClient(&ro)
	return n.rdb, n.asub
}

// Prefix is the key prefix.
func (n *Node) Prefix() string { return n.opts.Prefix }

// Addr is the Redis address, for messages.
func (n *Node) Addr() string { return n.addr }

// ID returns the node's current id and whether it holds its lease.
func (n *Node) ID() (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.id, n.leased
}

func (n *Node) key(parts ...string) string {
	k := n.opts.Prefix
	for _, p := range parts {
		k += ":" + p
	}
	return k
}

func (n *Node) channel(node string) string { return n.key("rpc", node) }

func (n *Node) opCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, n.opts.OpTimeout)
}

func (n *Node) unavailable(op string, err error) error {
	n.failed()
	return fmt.Errorf("%w: %s: Redis at %s: %v", ErrUnavailable, op, n.addr, err)
}

// failed records a Redis failure: commands sent before it may still run
// late (see Options.Seated).
func (n *Node) failed() { n.lastFail.Store(time.Now().UnixNano()) }

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// register takes a new lease under a new id, subscribes to its channel
// and reaps the leases this node lost before.
func (n *Node) register(ctx context.Context) error {
	id := newID()
	ctx, cancel := n.opCtx(ctx)
	defer cancel()
	ok, err := registerScript.Run(ctx, n.rdb, nil, n.opts.Prefix, id, n.opts.Info, n.opts.TTL.Milliseconds()).Int()
	if err != nil {
		return n.unavailable("register", err)
	}
	if ok != 1 {
		return fmt.Errorf("register: node id %s already taken", id)
	}
	sub := n.rdb.Subscribe(n.ctx, n.channel(id))
	if _, err := sub.Receive(ctx); err != nil {
		_ = sub.Close()
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
		_ = prev.Close()
	}
	go n.receive(sub)
	n.log.Info("cluster: node registered", "node", id, "redis", n.addr, "ttl", n.opts.TTL)
	for _, o := range old {
		// The old lease may not have expired yet: it is this node's own,
		// so it ends it and reaps its sessions at once.
		_ = n.rdb.Del(ctx, n.key("n", o)).Err()
		n.reap(ctx, o)
	}
	return nil
}

// receive hands the frames of sub to OnFrame until sub closes.
func (n *Node) receive(sub *redis.PubSub) {
	for msg := range sub.Channel(redis.WithChannelSize(4096)) {
		n.received.Add(1)
		if n.opts.OnFrame != nil {
			n.opts.OnFrame([]byte(msg.Payload))
		}
	}
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
	ok, err := n.rdb.SetXX(ctx, n.key("n", id), n.opts.Info, n.opts.TTL).Result()
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
			subs, err := n.rdb.PubSubNumSub(ctx, n.channel(w)).Result()
			if err == nil && subs[n.channel(w)] == 0 {
				n.nodeGone(w, gone)
			}
		}
	}
	n.mu.Lock()
	n.gone = gone // only the nodes still gone are remembered
	n.mu.Unlock()
}

// nodeGone reports node gone, and logs it the first sweep it is seen
// gone; gone collects this sweep's.
func (n *Node) nodeGone(node string, gone map[string]bool) {
	gone[node] = true
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

// lefts decodes {office, role, name, sid, version} quintuples.
func lefts(v []string) []Left {
	var out []Left
	for i := 0; i+4 < len(v); i += 5 {
		ver, _ := strconv.ParseUint(v[i+4], 10, 64)
		out = append(out, Left{Office: v[i], Role: protocol.Role(v[i+1]), Name: v[i+2], SID: v[i+3], Version: ver})
	}
	return out
}

// JoinResult is the outcome of Join.
type JoinResult struct {
	// Node is the lease the seat was taken under.
	Node string
	// Version is the office's version after the join (its current one
	// when Noop).
	Version uint64
	// Noop: the session already held exactly this seat (an earlier join,
	// maybe one its node gave up on, took it).
	Noop bool
	// Code is a refusal's protocol code (4101, 4105, 4106), 0 on success;
	// Holder names the office's agent (4101) or the session's office (4106).
	Code   int
	Holder string
	// Left lists the sessions removed on the way: the session's previous
	// seat, and seats held by dead nodes' sessions.
	Left []Left
}

// Join seats m (m.Node is ignored: the node's current lease is used).
func (n *Node) Join(ctx context.Context, m Member) (JoinResult, error) {
	id, leased := n.ID()
	if !leased {
		return JoinResult{}, ErrFenced
	}
	ctx, cancel := n.opCtx(ctx)
	defer cancel()
	res, err := joinScript.Run(ctx, n.rdb, nil, n.opts.Prefix, id, m.SID, m.Name, string(m.Role), m.Office, m.Version).StringSlice()
	if err != nil {
		return JoinResult{}, n.unavailable("join", err)
	}
	out := JoinResult{Node: id}
	switch res[0] {
	case "fenced":
		n.fence(id, "lease gone from Redis at a join")
		return JoinResult{}, ErrFenced
	case "noop":
		out.Noop = true
	case "err":
		out.Code, _ = strconv.Atoi(res[1])
		out.Holder = res[2]
	}
	out.Version, _ = strconv.ParseUint(res[3], 10, 64)
	out.Left = lefts(res[4:])
	return out, nil
}

// Leave removes session sid from office ("" for any); the seat it left,
// if any, is returned.
func (n *Node) Leave(ctx context.Context, sid, office string) (*Left, error) {
	ctx, cancel := n.opCtx(ctx)
	defer cancel()
	res, err := leaveScript.Run(ctx, n.rdb, nil, n.opts.Prefix, sid, office).StringSlice()
	if err != nil {
		return nil, n.unavailable("leave", err)
	}
	if l := lefts(res); len(l) == 1 {
		return &l[0], nil
	}
	return nil, nil
}

// Where a Target lookup found the computer.
type Where int

const (
	// Found: in the caller's office.
	Found Where = iota
	// Missing: in no office (404).
	Missing
	// Elsewhere: only in other offices (4104).
	Elsewhere
)

// Target finds the live computer named name in office for the caller
// csid, seated under lease node: its sid and node when Found. It returns
// ErrSeatLost when the caller no longer holds its seat.
func (n *Node) Target(ctx context.Context, node, csid, office, name string) (sid, at string, where Where, err error) {
	ctx, cancel := n.opCtx(ctx)
	defer cancel()
	res, err := targetScript.Run(ctx, n.rdb, nil, n.opts.Prefix, node, csid, office, name).StringSlice()
	if err != nil {
		return "", "", Missing, n.unavailable("route", err)
	}
	switch res[0] {
	case "ok":
		return res[1], res[2], Found, nil
	case "lost":
		return "", "", Missing, ErrSeatLost
	case "cross":
		return "", "", Elsewhere, nil
	}
	return "", "", Missing, nil
}

// List returns office's live members for the caller csid seated under
// lease node, or ErrSeatLost.
func (n *Node) List(ctx context.Context, node, csid, office string) ([]Member, error) {
	ctx, cancel := n.opCtx(ctx)
	defer cancel()
	res, err := listScript.Run(ctx, n.rdb, nil, n.opts.Prefix, node, csid, office).StringSlice()
	if err != nil {
		return nil, n.unavailable("list", err)
	}
	if res[0] == "lost" {
		return nil, ErrSeatLost
	}
	var out []Member
	for i := 1; i+3 < len(res); i += 4 {
		out = append(out, Member{SID: res[i], Name: res[i+1], Role: protocol.Role(res[i+2]), Version: res[i+3], Office: office})
	}
	return out, nil
}

// CloseSubscriber closes the adapter's subscriber client (AdapterClients):
// its subscriptions end at once. Close does it too.
func (n *Node) CloseSubscriber() {
	n.asubOnce.Do(func() {
		close(n.asubClosed)
		if n.asub != nil {
			_ = n.asub.Close()
		}
	})
}

// Close stops the heartbeat, ends the lease and removes what is left of
// this node's sessions (their leave notices are reported to OnReaped),
// then closes the Redis client. Call it after the node's clients are gone.
func (n *Node) Close(ctx context.Context) error {
	n.cancel()
	n.CloseSubscriber()
	if !n.started.Load() {
		return n.rdb.Close()
	}
	<-n.done
	close(n.stopSend)
	<-n.sent
	n.mu.Lock()
	id, leased, sub := n.id, n.leased, n.sub
	n.sub = nil
	old := n.old
	n.mu.Unlock()
	if sub != nil {
		_ = sub.Close()
	}
	n.log.Info("cluster: frames", "published", n.published.Load(), "not_delivered", n.undelivered.Load(),
		"failed", n.sendFailed.Load(), "received", n.received.Load())
	ctx, cancel := n.opCtx(ctx)
	defer cancel()
	ids := old
	if leased {
		ids = append(ids, id)
	}
	for _, o := range ids {
		_ = n.rdb.Del(ctx, n.key("n", o)).Err()
		n.reap(ctx, o)
	}
	return n.rdb.Close()
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

// slogPrinter is go-redis's logger on a slog.Logger, at most one line
// every 5 s (it logs every failed dial while Redis is down).
type slogPrinter struct{ rl *ratelog.Logger }

func (p slogPrinter) Printf(_ context.Context, format string, v ...any) {
	p.rl.Warn("redis client: " + fmt.Sprintf(format, v...))
}

// LogRedisClientTo sends what go-redis logs (failed dials while Redis is
// down, ...) to log instead of the process's stderr. go-redis has one
// logger per process: a command calls this once at start.
func LogRedisClientTo(log *slog.Logger) { redis.SetLogger(slogPrinter{rl: &ratelog.Logger{Log: log}}) }
