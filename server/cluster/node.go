package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/smcp-browse/smcp-browse/internal/opt"
	"github.com/smcp-browse/smcp-browse/internal/ratelog"
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
	// (rediss:// for TLS), or unix:///path/to/redis.sock?db=0.
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
	Info string
	// Link is where the node listens for links from other nodes, which
	// carry frames straight to it (link.go): "" listens on the address it
	// reaches Redis from, on a free port; HOST:PORT there (an unspecified
	// HOST advertises the address it reaches Redis from); LinkOff: none,
	// frames to this node go through Redis.
	Link   string
	Logger *slog.Logger

	// OnFrame receives each frame another node sent to this one, on the
	// goroutine of the link or subscription it came by (frames of one link
	// in order; several links at once); it must not block, and frame's
	// bytes are only valid until it returns (the next frame reuses them).
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
	sub    *subscription   // this node's channel for frames

	lastFail atomic.Int64 // unix ns of the last Redis failure, 0 if none

	pub     *publisher // frames to other nodes, through Redis
	links   *links     // frames to other nodes, straight (nil: Options.Link off)
	started atomic.Bool

	published, linked, undelivered, sendFailed, received atomic.Int64 // frames
	linkWrites                                           atomic.Int64 // batches written on links

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed when the heartbeat has stopped
}

// New returns a node for the Redis at o.URL; it connects nothing yet
// (Start does).
func New(o Options) (*Node, error) {
	opt.Default(&o.Prefix, DefaultPrefix)
	opt.Default(&o.TTL, DefaultTTL)
	opt.Default(&o.OpTimeout, DefaultOpTimeout)
	o.Logger = opt.Logger(o.Logger)
	ro, err := clientOptions(o.URL, o.OpTimeout)
	if err != nil {
		return nil, err
	}
	n := &Node{opts: o, log: o.Logger, rdb: redis.NewClient(ro), addr: ro.Addr, gone: map[string]bool{}}
	n.pub = newPublisher(n)
	n.ctx, n.cancel = context.WithCancel(context.Background())
	n.done = make(chan struct{})
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
	l, err := n.listenLink()
	if err != nil {
		return err
	}
	n.links = l
	if err := n.register(ctx); err != nil {
		if l != nil {
			l.close(ctx)
		}
		return err
	}
	n.started.Store(true)
	go n.heartbeat()
	go n.pub.sendLoop()
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

// channel is node's channel for frames: prefix + rpcChannel + node.
func (n *Node) channel(node string) string { return n.opts.Prefix + rpcChannel + node }

const rpcChannel = ":rpc:"

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
	dctx, dcancel := n.opCtx(ctx)
	if n.links != nil {
		n.links.close(dctx) // answers of a node shutting down still go
	}
	n.pub.drain(dctx)
	dcancel()
	n.mu.Lock()
	id, leased, sub := n.id, n.leased, n.sub
	n.sub = nil
	old := n.old
	n.mu.Unlock()
	if sub != nil {
		sub.close()
	}
	n.log.Info("cluster: frames", "linked", n.linked.Load(), "link_writes", n.linkWrites.Load(), "published", n.published.Load(), "not_delivered", n.undelivered.Load(),
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
