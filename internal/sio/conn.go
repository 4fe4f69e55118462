package sio

// The client side: Conn is the Socket.IO connection shared by the SMCP
// client roles (Agent and Computer). It connects to the /smcp namespace
// with the a2c_version query and the shared-token auth, turns acks into
// JSON results or *protocol.Error values, serves server-to-client events,
// and reconnects with backoff when the connection drops.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	engineio "github.com/zishang520/socket.io/clients/engine/v3"
	client "github.com/zishang520/socket.io/clients/socket/v3"
	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/smcp-browse/smcp-browse/internal/opt"
	"github.com/smcp-browse/smcp-browse/internal/sio/wire"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Defaults applied to zero Options fields.
const (
	DefaultPath         = "/socket.io/"
	DefaultReconnectMin = 500 * time.Millisecond
	DefaultReconnectMax = 10 * time.Second
	DefaultDialTimeout  = 20 * time.Second
	DefaultCallTimeout  = 30 * time.Second
)

// ErrNotConnected is returned by Call and Emit while the connection is down
// (reconnecting), and wrapped when a connection drops before an ack came.
var ErrNotConnected = errors.New("not connected to the SMCP server")

// ErrClosed is returned by Call and Emit after Close.
var ErrClosed = errors.New("connection closed")

// State is the state of a connection to the Server: the one type for it
// from this package up to the browser's status bar (agent.State is this
// type).
type State int

// The states a connection goes through. A Conn is Connected once Dial
// returns; Connecting is the state of a client still in its first Dial.
const (
	StateConnecting State = iota
	StateConnected
	StateReconnecting
	StateClosed
)

func (s State) String() string {
	switch s {
	case StateConnecting:
		return "connecting"
	case StateConnected:
		return "connected"
	case StateReconnecting:
		return "reconnecting"
	case StateClosed:
		return "closed"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Options configure Dial. Only URL is required.
type Options struct {
	// URL is the server's base URL (http, https, ws or wss); its path is
	// ignored, the namespace is always /smcp. It may list several URLs
	// separated by commas, the nodes of one Server: Dial connects to the
	// first that accepts, and each reconnect attempt tries the next.
	URL string
	// Token is sent as auth.token in the Socket.IO connect packet.
	Token string
	// Version is the a2c_version query value (default protocol.Version).
	// It is never changed behind the caller's back: a Server that refuses
	// it (4008) fails Dial with an error naming both versions, as
	// versioning.md asks (no silent retry with the Server's version).
	Version string
	// Logger receives connection logs (default: discard).
	Logger *slog.Logger
	// ReconnectMin and ReconnectMax bound the reconnect backoff.
	ReconnectMin, ReconnectMax time.Duration
	// Path is the engine.io HTTP path (default "/socket.io/").
	Path string
	// DialTimeout bounds one connection attempt (default 20 s).
	DialTimeout time.Duration
	// CallTimeout bounds a Call whose context has no deadline (default 30 s).
	CallTimeout time.Duration

	// deafTries makes the first n connection tries miss their manager's
	// open event, as the library can (see watchOpen); tests only.
	deafTries int
}

func (o *Options) setDefaults() {
	o.Logger = opt.Logger(o.Logger)
	opt.Default(&o.ReconnectMin, DefaultReconnectMin)
	if o.ReconnectMax < o.ReconnectMin {
		o.ReconnectMax = max(DefaultReconnectMax, o.ReconnectMin)
	}
	opt.Default(&o.Path, DefaultPath)
	if !strings.HasPrefix(o.Path, "/") {
		o.Path = "/" + o.Path
	}
	if !strings.HasSuffix(o.Path, "/") {
		o.Path += "/"
	}
	opt.Default(&o.DialTimeout, DefaultDialTimeout)
	opt.Default(&o.CallTimeout, DefaultCallTimeout)
	opt.Default(&o.Version, protocol.Version)
}

// Handler serves one server-to-client event that expects an answer. A
// returned *protocol.Error is sent as the flat error payload, another error
// as a 500 payload, a value as the ack (nil: an empty ack).
type Handler func(ctx context.Context, payload json.RawMessage) (any, error)

// listener receives notifications of one event in arrival order.
type listener struct {
	fn func(payload json.RawMessage)
	q  serialQueue
}

// Conn is one SMCP client connection to a Server. It is safe for
// concurrent use.
type Conn struct {
	opts  Options
	log   *slog.Logger
	bases []string // scheme://host of each node given
	cur   int      // the node in use: bases[cur]
	base  string   // bases[cur]; changed only by the goroutine connecting

	version string // the a2c_version sent

	ctx    context.Context // lifetime; cancelled by Close
	cancel context.CancelFunc

	mu        sync.Mutex
	sock      *client.Socket // current socket; nil while disconnected
	state     State
	closed    bool
	handlers  map[string]Handler
	listeners map[string]*listener
	stateFns  []func(State)
	reconnFns []func(context.Context)

	deafTries int // tries made deaf so far (Options.deafTries)

	emitMu sync.Mutex     // serialises writes on the current socket
	events serialQueue    // state changes, in order
	reconn serialQueue    // reconnect callbacks, in order (apart: one still busy never holds back a state change)
	wg     sync.WaitGroup // the reconnect loop
}

// Dial connects to the server's /smcp namespace and returns the connection.
// A handshake the server refuses (bad or incompatible a2c_version, wrong
// token) is returned as a *protocol.Error carrying the server's payload; a
// network failure as a wrapped error. Dial makes one attempt; after it
// succeeds the Conn reconnects by itself.
func Dial(ctx context.Context, opts Options) (*Conn, error) {
	opts.setDefaults()
	var bases []string
	for _, u := range strings.Split(opts.URL, ",") {
		base, err := baseURL(strings.TrimSpace(u))
		if err != nil {
			return nil, err
		}
		bases = append(bases, base)
	}
	c := &Conn{
		opts:      opts,
		log:       opts.Logger.With("server", strings.Join(bases, ",")),
		bases:     bases,
		base:      bases[0],
		handlers:  map[string]Handler{},
		listeners: map[string]*listener{},
	}
	c.version = opts.Version
	c.ctx, c.cancel = context.WithCancel(context.Background())
	var errs []error
	for i := range bases {
		c.cur, c.base = i, bases[i]
		s, err := c.attempt(ctx)
		if err == nil {
			c.adopt(s)
			return c, nil
		}
		// A refusal (version, token) is the Server's answer on every node.
		if isRefusal(err) || ctx.Err() != nil || len(bases) == 1 {
			c.cancel()
			return nil, err
		}
		errs = append(errs, err)
	}
	c.cancel()
	return nil, fmt.Errorf("no node of the Server accepted the connection: %w", errors.Join(errs...))
}

// next makes the next node given the one to connect to.
func (c *Conn) next() {
	if len(c.bases) > 1 {
		c.cur = (c.cur + 1) % len(c.bases)
		c.base = c.bases[c.cur]
	}
}

// baseURL reduces raw to scheme://host, mapping ws/wss to http/https.
func baseURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("server URL %q: %w", raw, err)
	}
	switch u.Scheme {
	case "http", "https":
	case "ws":
		u.Scheme = "http"
	case "wss":
		u.Scheme = "https"
	default:
		return "", fmt.Errorf("server URL %q: scheme must be http, https, ws or wss", raw)
	}
	if u.Host == "" {
		return "", fmt.Errorf("server URL %q: no host", raw)
	}
	return u.Scheme + "://" + u.Host, nil
}

// tryTimeout bounds one try of a connection attempt. The Socket.IO client
// can miss its engine's open event when the handshake answers faster than
// it subscribes; a try that hears nothing for this long is abandoned and
// made again.
const tryTimeout = 5 * time.Second

// neverDue is the Socket.IO manager's own connect timeout. The try's own
// timer bounds a connect; the manager's must never fire: the manager
// disarms it when its engine opens, but the engine dials inside
// Manager.Open and can open before Open has registered the timer for
// disarming, and the timer then closed a healthy connection once the
// timeout had passed (a Computer dropped out of its office 5 s after
// joining). Armed but never due, it is disarmed with the manager's other
// subscriptions when the connection closes.
const neverDue = time.Duration(math.MaxInt64)

// attempt connects within DialTimeout (or ctx's deadline when sooner) and
// returns the connected socket.
func (c *Conn) attempt(ctx context.Context) (*client.Socket, error) {
	deadline, limit := time.Now().Add(c.opts.DialTimeout), "within "+c.opts.DialTimeout.String()
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline, limit = dl, "before the deadline"
	}
	timedOut := func(cause error) error {
		msg := fmt.Sprintf("connect to %s: no answer %s", c.base, limit)
		if cause != nil {
			msg += ": " + cause.Error()
		}
		return protocol.NewError(protocol.CodeTimeout, msg)
	}
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return nil, timedOut(nil)
		}
		if err := c.probe(ctx); err != nil {
			var pe *protocol.Error
			if err != nil && !errors.As(err, &pe) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, timedOut(err)
			}
			if err != nil {
				return nil, err
			}
		}
		s, err, silent := c.try(ctx, min(tryTimeout, left))
		if err == nil || !silent {
			return s, err
		}
		c.log.Debug("connection try heard nothing; trying again", "err", err)
	}
}

// try makes one connection try. silent reports that it timed out without
// hearing either connect or connect_error.
func (c *Conn) try(ctx context.Context, timeout time.Duration) (_ *client.Socket, _ error, silent bool) {
	o := c.clientOptions()
	m := client.NewManager(c.base, o)
	s := m.Socket(protocol.Namespace, o)
	done := make(chan error, 1)
	report := func(err error) {
		select {
		case done <- err:
		default:
		}
	}
	_ = s.Once("connect", func(...any) { report(nil) })
	_ = s.Once("connect_error", func(args ...any) { report(connectError(args)) })
	_ = s.On("disconnect", func(args ...any) {
		reason, _ := wire.FirstArg(args).(string)
		c.onDisconnect(s, reason)
	})
	s.OnAny(func(args ...any) { c.dispatch(args) })
	var op opening
	deaf := c.deafTries < c.opts.deafTries
	if deaf {
		c.deafTries++
	}
	op.start(m, s, report, deaf)
	// The manager subscribes to its engine's open event only after the
	// engine has started, so a fast open can go unheard; then nothing more
	// will happen. Notice that and give up this try at once.
	lost := make(chan struct{})
	stopWatch := make(chan struct{})
	defer close(stopWatch)
	go watchOpen(m, &op.opened, lost, stopWatch)

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		if err == nil {
			return s, nil, false
		}
		op.giveUp(s)
		var pe *protocol.Error
		if !errors.As(err, &pe) {
			// A transport error may be a refusal the client did not read.
			if perr := c.probe(ctx); errors.As(perr, &pe) {
				return nil, pe, false
			}
			return nil, fmt.Errorf("connect to %s: %w", c.base, err), false
		}
		return nil, err, false
	case <-lost:
		op.giveUp(s)
		return nil, fmt.Errorf("connect to %s: the client missed its transport's open event", c.base), true
	case <-timer.C:
		op.giveUp(s)
		return nil, protocol.Errorf(protocol.CodeTimeout, "connect to %s: no answer within %s", c.base, timeout.Round(time.Millisecond)), true
	case <-ctx.Done():
		op.giveUp(s)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, protocol.Errorf(protocol.CodeTimeout, "connect to %s: %v", c.base, ctx.Err()), false
		}
		return nil, fmt.Errorf("connect to %s: %w", c.base, ctx.Err()), false
	}
}

// clientOptions are the Socket.IO client options of one try: a fresh
// manager over WebSocket, no reconnection of its own (the Conn reconnects)
// and no connect timer that could fire (see neverDue).
func (c *Conn) clientOptions() *client.Options {
	o := client.DefaultOptions()
	o.SetPath(c.opts.Path)
	o.SetQuery(url.Values{"a2c_version": {c.Version()}})
	if c.opts.Token != "" {
		o.SetAuth(map[string]any{"token": c.opts.Token})
	}
	o.SetForceNew(true)
	o.SetReconnection(false)
	o.SetAutoConnect(false)
	o.SetTimeout(neverDue)
	o.SetTransports(types.NewSet(client.WebSocket))
	o.SetParser(wire.NewParser(c.log))
	return o
}

// opening is a try's Manager.Open in flight. The transport is opened first
// and the namespace connected once it is open: Socket.Connect on a manager
// that is still opening can send the namespace CONNECT twice (from its open
// listener and from its own ready-state check), which the server answers
// by closing.
type opening struct {
	opened atomic.Bool // the manager reported the open (or its failure)
	mu     sync.Mutex
	gaveUp bool
}

// start opens m on its own goroutine, since Open dials the WebSocket with
// no deadline of its own and the try's timer and ctx must bound it; s is
// connected when the transport opens unless the try was given up by then.
// A deaf try never hears the open, as when the library misses it (tests).
func (op *opening) start(m *client.Manager, s *client.Socket, report func(error), deaf bool) {
	go m.Open(func(err error) {
		if deaf {
			return
		}
		op.opened.Store(true)
		if err != nil {
			report(err)
			return
		}
		op.mu.Lock()
		defer op.mu.Unlock()
		if op.gaveUp {
			s.Disconnect() // no namespace connected: this closes the transport
			return
		}
		s.Connect()
	})
}

// giveUp abandons the try: s is disconnected now, and a transport that
// opens later is closed at once.
func (op *opening) giveUp(s *client.Socket) {
	op.mu.Lock()
	op.gaveUp = true
	op.mu.Unlock()
	s.Disconnect()
}

// Version returns the a2c_version the connection sends.
func (c *Conn) Version() string { return c.version }

// VersionFlag names the command-line flag that pins the a2c_version, for
// the advice in a 4008 error.
const VersionFlag = "--a2c-version"

// versionMismatch turns a Server's 4008 refusal into an error naming both
// versions and how to pin the Server's; the payload's fields are kept.
func (c *Conn) versionMismatch(pe *protocol.Error) *protocol.Error {
	sv, _ := pe.Extra["server_version"].(string)
	msg := fmt.Sprintf("protocol version mismatch: this client speaks a2c_version %s", c.Version())
	if sv != "" {
		msg += fmt.Sprintf(", the Server at %s speaks %s; to talk to it, pin its version with %s %s "+
			"(this project's roles keep Finder working whatever the version)", c.base, clipText(sv), VersionFlag, clipText(sv))
	} else {
		msg += fmt.Sprintf(", which the Server at %s refuses (%s); pin the Server's version with %s", c.base, clipText(pe.Message), VersionFlag)
	}
	out := protocol.NewError(protocol.CodeVersionMismatch, msg)
	out.Details = pe.Details
	out.Extra = pe.Extra
	return out
}

// clipText shortens text a peer sent before it goes into an error.
func clipText(s string) string {
	const max = 100
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "…"
}

// missedOpenGrace is how long an open engine may go without the manager
// reacting before the open event counts as missed.
const missedOpenGrace = 200 * time.Millisecond

// watchOpen closes lost when m's engine is open but the manager's open
// callback has not run within missedOpenGrace.
func watchOpen(m *client.Manager, opened *atomic.Bool, lost, stop chan struct{}) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var since time.Time
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		if opened.Load() {
			return
		}
		eng := m.Engine()
		if eng == nil || eng.ReadyState() != engineio.SocketStateOpen {
			continue
		}
		if since.IsZero() {
			since = time.Now()
		} else if time.Since(since) > missedOpenGrace {
			close(lost)
			return
		}
	}
}

// connectError turns a connect_error event into an error. A refusal by the
// server's namespace middleware (an ExtendedError whose data is a protocol
// error payload) becomes a *protocol.Error.
func connectError(args []any) error {
	err, _ := wire.FirstArg(args).(error)
	if err == nil {
		return fmt.Errorf("connect error: %v", wire.FirstArg(args))
	}
	var ee *types.ExtendedError
	if errors.As(err, &ee) {
		if raw, mErr := json.Marshal(ee.Data); mErr == nil {
			if pe, ok := protocol.DecodeError(raw); ok {
				return pe
			}
		}
		return protocol.Errorf(protocol.CodeUnauthorized, "server refused the connection: %s", ee.Message)
	}
	return err
}

// adopt makes s the current socket and reports the Connected state.
func (c *Conn) adopt(s *client.Socket) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		s.Disconnect()
		return
	}
	c.sock = s
	c.setStateLocked(StateConnected)
	alive := s.Connected()
	c.mu.Unlock()
	c.log.Debug("connected", "sid", s.Id())
	if !alive {
		c.onDisconnect(s, "lost during connect")
	}
}

// setStateLocked records st and queues the state callbacks. c.mu is held.
func (c *Conn) setStateLocked(st State) {
	if c.state == st {
		return
	}
	c.state = st
	fns := append([]func(State){}, c.stateFns...)
	c.events.push(func() {
		for _, fn := range fns {
			safeCall(c.log, "state callback", func() { fn(st) })
		}
	})
}

// onDisconnect starts the reconnect loop when the current socket drops.
func (c *Conn) onDisconnect(s *client.Socket, reason string) {
	c.mu.Lock()
	if c.sock != s || c.closed {
		c.mu.Unlock()
		return
	}
	c.sock = nil
	c.setStateLocked(StateReconnecting)
	c.wg.Add(1)
	c.mu.Unlock()
	c.log.Warn("disconnected; reconnecting", "reason", reason)
	go c.reconnect()
}

// reconnect retries with jittered exponential backoff until a connection
// is made, the server refuses the handshake (then the Conn closes) or Close
// is called.
func (c *Conn) reconnect() {
	defer c.wg.Done()
	delay := c.opts.ReconnectMin
	for attempt := 1; ; attempt++ {
		jitter := time.Duration(rand.Int64N(int64(delay)/2 + 1))
		select {
		case <-c.ctx.Done():
			return
		case <-time.After(delay/2 + jitter):
		}
		c.next() // the node just left is the likeliest to be down
		s, err := c.attempt(c.ctx)
		if err == nil {
			c.log.Info("reconnected", "attempt", attempt, "sid", s.Id(), "node", c.base)
			c.adopt(s)
			c.mu.Lock()
			fns := append([]func(context.Context){}, c.reconnFns...)
			ok := c.sock == s
			c.mu.Unlock()
			if ok {
				c.reconn.push(func() {
					for _, fn := range fns {
						safeCall(c.log, "reconnect callback", func() { fn(c.ctx) })
					}
				})
			}
			return
		}
		if c.ctx.Err() != nil {
			return
		}
		if isRefusal(err) {
			c.log.Error("server refused the reconnection; giving up", "err", err)
			c.shutdown()
			return
		}
		c.log.Debug("reconnect attempt failed", "attempt", attempt, "err", err)
		delay = min(delay*2, c.opts.ReconnectMax)
	}
}

// isRefusal reports whether err is the server refusing the handshake, which
// retrying cannot fix.
func isRefusal(err error) bool {
	switch protocol.CodeOf(err) {
	case protocol.CodeBadRequest, protocol.CodeUnauthorized, protocol.CodeForbidden, protocol.CodeVersionMismatch:
		return true
	}
	return false
}

// OnState registers fn to be called on every state change, in order, from
// a goroutine of the Conn.
func (c *Conn) OnState(fn func(State)) {
	c.mu.Lock()
	c.stateFns = append(c.stateFns, fn)
	c.mu.Unlock()
}

// OnReconnect registers fn to be called after every successful reconnect
// (not the first connect), e.g. to re-join an office. ctx ends at Close.
func (c *Conn) OnReconnect(fn func(ctx context.Context)) {
	c.mu.Lock()
	c.reconnFns = append(c.reconnFns, fn)
	c.mu.Unlock()
}

// State returns the current state.
func (c *Conn) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// ID returns the Socket.IO session id of the current connection, or "".
func (c *Conn) ID() string {
	c.mu.Lock()
	s := c.sock
	c.mu.Unlock()
	if s == nil {
		return ""
	}
	return s.Id()
}

// Close disconnects and stops reconnecting. It is safe to call twice.
func (c *Conn) Close() error {
	c.shutdown()
	c.wg.Wait()
	return nil
}

func (c *Conn) shutdown() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	s := c.sock
	c.sock = nil
	c.setStateLocked(StateClosed)
	c.mu.Unlock()
	c.cancel()
	if s != nil {
		c.emitMu.Lock()
		s.Disconnect()
		c.emitMu.Unlock()
	}
}

// current returns the connected socket or the reason there is none.
func (c *Conn) current() (*client.Socket, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	if c.sock == nil {
		return nil, ErrNotConnected
	}
	return c.sock, nil
}

// safeCall runs fn and logs a panic instead of crashing the process.
func safeCall(log *slog.Logger, what string, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("panic in "+what, "panic", r)
		}
	}()
	fn()
}
