package mcpclient

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/internal/opt"
	"github.com/smcp-browse/smcp-browse/internal/rpcerr"
)

// Defaults of Options.
const (
	DefaultRequestTimeout = 30 * time.Second
	DefaultConnectTimeout = 30 * time.Second
	DefaultMinBackoff     = time.Second
	DefaultMaxBackoff     = 30 * time.Second
)

// Events are the manager's callbacks. Each may be nil. Notification runs
// on the connection's reader and must not block; Up and Down run on the
// server's supervisor goroutine.
type Events struct {
	// Up is called when a server is connected and initialized (again).
	Up func(c *Conn)
	// Down is called when a server that was up is gone.
	Down func(name string, err error)
	// Notification is called for every notification a server sends.
	Notification func(name string, n mcp.JSONRPCNotification)
}

// Options configure a Manager.
type Options struct {
	Logger         *slog.Logger
	RequestTimeout time.Duration // per request (default 30 s)
	ConnectTimeout time.Duration // start + initialize (default 30 s)
	MinBackoff     time.Duration // first restart delay (default 1 s)
	MaxBackoff     time.Duration // restart delay cap (default 30 s)
	// Dial opens a server's transport; nil uses the default (Dial).
	Dial DialFunc
	// ClientName and ClientVersion identify the Computer to the servers.
	ClientName, ClientVersion string
	Events                    Events
}

// Manager supervises the MCP servers of a Computer.
type Manager struct {
	servers []config.Server
	opts    Options
	log     *slog.Logger

	mu    sync.Mutex
	conns map[string]*Conn
	state map[string]State
}

// State is a server's supervision state.
type State struct {
	Up        bool // connected, initialized, and the Up event has returned
	LastError string
	Restarts  int
}

// New returns a manager for the enabled servers of the list; Run starts
// them.
func New(servers []config.Server, opts Options) *Manager {
	opt.Default(&opts.RequestTimeout, DefaultRequestTimeout)
	opt.Default(&opts.ConnectTimeout, DefaultConnectTimeout)
	opt.Default(&opts.MinBackoff, DefaultMinBackoff)
	opt.Default(&opts.MaxBackoff, DefaultMaxBackoff)
	opts.MaxBackoff = max(opts.MaxBackoff, opts.MinBackoff)
	opt.Default(&opts.ClientName, "smcp-browse-computer")
	opt.Default(&opts.ClientVersion, "dev")
	m := &Manager{opts: opts, log: opt.Logger(opts.Logger), conns: map[string]*Conn{}, state: map[string]State{}}
	for _, s := range servers {
		if !s.Disabled {
			m.servers = append(m.servers, s)
			m.state[s.BundleID] = State{}
		}
	}
	return m
}

// Run starts every server and keeps it running (restarting a crashed one
// with backoff) until ctx ends; then it closes every connection, stopping
// stdio children, and returns.
func (m *Manager) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Go(func() { m.supervise(ctx, s) })
	}
	wg.Wait()
}

// Conn returns the live connection of server name.
func (m *Manager) Conn(name string) (*Conn, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.conns[name]
	return c, ok
}

// Conns returns the live connections, by name.
func (m *Manager) Conns() []*Conn {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Conn, 0, len(m.conns))
	for _, n := range slices.Sorted(maps.Keys(m.conns)) {
		out = append(out, m.conns[n])
	}
	return out
}

// States returns every supervised server's state, by name.
func (m *Manager) States() map[string]State {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.state)
}

// Servers returns the supervised (enabled) servers.
func (m *Manager) Servers() []config.Server { return slices.Clone(m.servers) }

func (m *Manager) setState(name string, f func(*State)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.state[name]
	f(&st)
	m.state[name] = st
}

func (m *Manager) supervise(ctx context.Context, s config.Server) {
	name := s.BundleID
	backoff := m.opts.MinBackoff
	for attempt := 0; ; attempt++ {
		conn, err := m.connect(ctx, s)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			m.setState(name, func(st *State) { st.LastError = err.Error() })
			m.log.Warn("mcp server failed to start", "server", name, "err", err, "retry_in", backoff)
		} else {
			upAt := time.Now()
			m.mu.Lock()
			m.conns[name] = conn
			m.mu.Unlock()
			m.log.Info("mcp server up", "server", name, "protocol", conn.ProtocolVersion(),
				"finder_capable", conn.FinderCapable(), "server_info", conn.ServerInfo().Name)
			if m.opts.Events.Up != nil {
				m.opts.Events.Up(conn)
			}
			// Up only once the callback has taken the server in (for the
			// Computer: its documents are listed), so a caller that waits
			// for Up sees a server in use, not one being set up.
			m.setState(name, func(st *State) {
				st.Up, st.LastError = true, ""
				if attempt > 0 {
					st.Restarts++
				}
			})
			select {
			case <-conn.Done():
			case <-ctx.Done():
			}
			m.mu.Lock()
			delete(m.conns, name)
			m.state[name] = State{LastError: "connection lost", Restarts: m.state[name].Restarts}
			m.mu.Unlock()
			conn.Close()
			if m.opts.Events.Down != nil {
				m.opts.Events.Down(name, fmt.Errorf("mcp server %s is gone", name))
			}
			if ctx.Err() != nil {
				return
			}
			if time.Since(upAt) > m.opts.MaxBackoff {
				backoff = m.opts.MinBackoff
			}
			m.log.Warn("mcp server down, restarting", "server", name, "retry_in", backoff)
		}
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return
		}
		backoff = min(backoff*2, m.opts.MaxBackoff)
	}
}

// connect opens, starts and initializes one server.
func (m *Manager) connect(ctx context.Context, s config.Server) (*Conn, error) {
	connCtx, cancel := context.WithCancel(ctx)
	var tr Transport
	var err error
	if m.opts.Dial != nil {
		tr, err = m.opts.Dial(connCtx, s)
	} else {
		tr, err = Dial(connCtx, s, m.log)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	conn := &Conn{
		cfg: s, log: m.log, tr: tr, timeout: m.opts.RequestTimeout,
		dead: make(chan struct{}), cancel: cancel, subscribed: map[string]bool{},
	}
	conn.c = client.NewClient(rpcerr.WrapTransport(tr.T))
	fail := func(err error) (*Conn, error) {
		conn.Close()
		return nil, err
	}
	if tr.Done != nil {
		go func() {
			select {
			case <-tr.Done:
				conn.markDead()
			case <-connCtx.Done():
			}
		}()
	}
	conn.c.OnNotification(func(n mcp.JSONRPCNotification) {
		conn.onNotification(n)
		if m.opts.Events.Notification != nil {
			m.opts.Events.Notification(s.BundleID, n)
		}
	})
	if err := conn.c.Start(connCtx); err != nil {
		return fail(fmt.Errorf("start transport: %w", err))
	}
	initCtx, initCancel := context.WithTimeout(connCtx, m.opts.ConnectTimeout)
	defer initCancel()
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: m.opts.ClientName, Version: m.opts.ClientVersion}
	type initResult struct {
		res *mcp.InitializeResult
		err error
	}
	ch := make(chan initResult, 1)
	go func() {
		res, err := conn.c.Initialize(initCtx, req)
		ch <- initResult{res, err}
	}()
	var ir initResult
	select {
	case ir = <-ch:
	case <-conn.dead:
		initCancel()
		ir = <-ch
		if ir.err == nil {
			ir.err = ErrDown
		}
	}
	if ir.err != nil {
		return fail(fmt.Errorf("initialize: %w", ir.err))
	}
	conn.caps = ir.res.Capabilities
	conn.info = ir.res.ServerInfo
	conn.version = conn.c.ProtocolVersion()
	conn.modern = mcp.IsModernProtocol(conn.version)
	if conn.modern {
		// Every notification is opt-in from 2026-07-28: ask for the list
		// changes now; Subscribe adds the resource URIs later.
		if err := conn.listen(nil); err != nil {
			m.log.Warn("mcp subscriptions/listen failed", "server", s.BundleID, "err", err)
		}
	}
	return conn, nil
}
