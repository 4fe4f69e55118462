package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/opt"
	"github.com/smcp-browse/smcp-browse/internal/sio/sioserver"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Defaults applied to zero Options fields.
const (
	DefaultRequestTimeout  = 30 * time.Second
	DefaultToolCallGrace   = 5 * time.Second
	DefaultMaxPayloadBytes = protocol.MaxPayloadBytes
	DefaultMaxRequestBytes = 4 << 20
	DefaultShutdownTimeout = 5 * time.Second
	DefaultPingInterval    = 25 * time.Second
	DefaultPingTimeout     = 20 * time.Second
	DefaultBodyReadTimeout = 20 * time.Second
	DefaultConnectTimeout  = 10 * time.Second
	DefaultMaxSessions     = 10000
	DefaultMaxInFlight     = 10000
	DefaultMaxInFlightConn = 256
)

// maxToolTimeout caps the timeout a tool call may ask for.
const maxToolTimeout = 24 * time.Hour

// Paths the engine.io endpoint is served at: the Socket.IO default and the
// one the Python SDK uses (socketio_path="/smcp").
const (
	PathSocketIO = "/socket.io/"
	PathSMCP     = "/smcp/"
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Token, when set, must be sent as auth.token by every client.
	Token string
	// Logger receives structured logs (default: discard).
	Logger *slog.Logger
	// RequestTimeout bounds how long a routed request waits for the
	// computer's answer (default 30 s).
	RequestTimeout time.Duration
	// ToolCallGrace is added to a client:tool_call's own timeout (default 5 s).
	ToolCallGrace time.Duration
	// MaxPayloadBytes is engine.io's maxHttpBufferSize: the largest message
	// a connection accepts (default 16 MiB). Bigger ones close it.
	MaxPayloadBytes int64
	// MaxRequestBytes bounds one request payload; bigger ones get a 400
	// answer and the connection stays up (default 4 MiB).
	MaxRequestBytes int
	// ShutdownTimeout bounds the graceful part of Serve's shutdown (default 5 s).
	ShutdownTimeout time.Duration
	// PingInterval and PingTimeout are engine.io's heartbeat (defaults
	// 25 s and 20 s): a peer that vanishes is noticed within their sum.
	PingInterval, PingTimeout time.Duration
	// BodyReadTimeout bounds reading the body of one HTTP request (a
	// polling POST): a client trickling it is cut off (default 20 s).
	BodyReadTimeout time.Duration
	// ConnectTimeout bounds how long a session may stay open without
	// joining the SMCP namespace with an accepted CONNECT (default 10 s).
	ConnectTimeout time.Duration
	// MaxSessions bounds the sessions open at once, joined or not; a new
	// one over it is refused with HTTP 429 (default 10,000).
	MaxSessions int
	// MaxInFlight bounds the client:* requests waiting for a computer's
	// answer, over all connections (default 10,000); MaxInFlightConn bounds
	// them per agent connection (default 256). A request over either is
	// answered 429 at once.
	MaxInFlight, MaxInFlightConn int
	// Version is the protocol version the Server speaks (default
	// protocol.Version); clients must send a compatible a2c_version.
	// An unparsable one is replaced by the default, with a warning.
	Version string
	// Redis, a redis:// URL, makes this Server one node of a cluster:
	// every node with the same Redis (and RedisPrefix) is one Server.
	// Empty: a single node, no Redis.
	Redis string
	// RedisPrefix starts the cluster's keys and channels (default "smcp").
	RedisPrefix string
	// ClusterTTL is a node's lease in Redis (default 3 s): the sessions of
	// a node that stops renewing it leave their offices after that long.
	ClusterTTL time.Duration
	// ClusterLink is where this node listens for the other nodes' direct
	// links, which carry routed requests and answers instead of Redis
	// pub/sub: "" the address it reaches Redis from, on a free port;
	// HOST:PORT; "off" none (every frame goes through Redis).
	ClusterLink string
}

func (o *Options) setDefaults() {
	o.Logger = opt.Logger(o.Logger)
	opt.Default(&o.RequestTimeout, DefaultRequestTimeout)
	opt.Default(&o.ToolCallGrace, DefaultToolCallGrace)
	opt.Default(&o.MaxPayloadBytes, DefaultMaxPayloadBytes)
	opt.Default(&o.MaxRequestBytes, DefaultMaxRequestBytes)
	opt.Default(&o.ShutdownTimeout, DefaultShutdownTimeout)
	opt.Default(&o.PingInterval, DefaultPingInterval)
	opt.Default(&o.PingTimeout, DefaultPingTimeout)
	opt.Default(&o.Version, protocol.Version)
	opt.Default(&o.BodyReadTimeout, DefaultBodyReadTimeout)
	opt.Default(&o.ConnectTimeout, DefaultConnectTimeout)
	opt.Default(&o.MaxSessions, DefaultMaxSessions)
	opt.Default(&o.MaxInFlight, DefaultMaxInFlight)
	opt.Default(&o.MaxInFlightConn, DefaultMaxInFlightConn)
}

// Server is an SMCP Server.
type Server struct {
	opts      Options
	version   protocol.ProtocolVersion // the one the Server speaks
	log       *slog.Logger
	debug     bool // the logger takes debug lines
	io        *sioserver.Server
	sessions  *sessionTable
	store     officeStore   // the offices: in memory, or in the cluster's Redis
	storeErr  error         // why the cluster's store could not be set up
	deadlines *deadlines    // of the requests routed
	ids       atomic.Uint64 // routing ids of forwarded requests
	admission               // client:* requests waiting for a computer
	decoder                 // of request payloads
	draining  atomic.Bool   // refuse new sessions during shutdown
}

// New returns a Server; mount Handler or call Serve.
func New(opts Options) *Server {
	opts.setDefaults()
	s := &Server{opts: opts, log: opts.Logger, sessions: newSessionTable(), deadlines: newDeadlines(opts.RequestTimeout),
		decoder: decoder{maxBytes: opts.MaxRequestBytes}}
	s.admission.max, s.admission.maxConn = opts.MaxInFlight, opts.MaxInFlightConn
	v, err := protocol.ParseVersion(opts.Version)
	if err != nil {
		s.log.Warn("bad protocol version; speaking the default", "version", opts.Version, "err", err, "default", protocol.Version)
		v, _ = protocol.ParseVersion(protocol.Version)
	}
	s.version = v
	s.debug = s.log.Enabled(context.Background(), slog.LevelDebug)
	so := sioserver.ServerOptions{
		Logger:          s.log,
		MaxPayloadBytes: opts.MaxPayloadBytes,
		PingInterval:    opts.PingInterval,
		PingTimeout:     opts.PingTimeout,
		ConnectTimeout:  opts.ConnectTimeout,
		Authorize:       s.authorize,
		OnConnection:    s.onConnection,
	}
	s.store = newRegistry()
	if opts.Redis != "" {
		cs, err := newClusterStore(s)
		if err != nil {
			s.storeErr = err
		} else {
			s.store = cs
		}
	}
	s.store.configure(&so)
	s.io = sioserver.NewServer(so)
	s.store.bind(s.io)
	return s
}

// Version returns the protocol version the Server speaks.
func (s *Server) Version() string { return s.version.String() }

// Handler returns the HTTP handler: the a2c_version check in front of the
// engine.io endpoint at /socket.io/ and /smcp/.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	h := http.HandlerFunc(s.serveEngine)
	mux.Handle(PathSocketIO, h)
	mux.Handle(PathSMCP, h)
	return mux
}

// serveEngine checks the version of a session-starting request, then hands
// the request to engine.io.
func (s *Server) serveEngine(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("sid") == "" && s.draining.Load() {
		http.Error(w, "server is shutting down", http.StatusServiceUnavailable)
		return
	}
	if r.Method == http.MethodPost {
		// A polling POST carries a body; one trickled in must not hold
		// its connection for ever (ReadHeaderTimeout covers the headers
		// only, and a Server-wide ReadTimeout would also cut WebSockets).
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.opts.BodyReadTimeout))
	}
	if r.URL.Query().Get("sid") == "" {
		if err := s.store.admits(); err != nil {
			s.log.Warn("handshake refused", "err", err, "remote", r.RemoteAddr)
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
	}
	if r.URL.Query().Get("sid") == "" {
		if n := s.io.Sessions(); n >= s.opts.MaxSessions {
			s.log.Warn("handshake refused: too many sessions", "sessions", n, "limit", s.opts.MaxSessions, "remote", r.RemoteAddr)
			writeErrorStatus(w, http.StatusTooManyRequests, protocol.Errorf(protocol.CodeTooManyRequests,
				"server full: %d sessions open (limit %d); try again later", n, s.opts.MaxSessions))
			return
		}
	}
	if e := checkVersion(r, s.version); e != nil {
		s.log.Info("handshake refused", "code", e.Code, "msg", e.Message,
			"a2c_version", r.URL.Query().Get("a2c_version"), "remote", r.RemoteAddr)
		writeError(w, e)
		return
	}
	s.io.ServeHTTP(w, r)
}

// authorize checks the shared token of a client's namespace CONNECT.
func (s *Server) authorize(auth map[string]any) *protocol.Error {
	if s.opts.Token == "" {
		return nil
	}
	token, _ := auth["token"].(string)
	if subtle.ConstantTimeCompare([]byte(token), []byte(s.opts.Token)) == 1 {
		return nil
	}
	msg := "invalid token"
	if token == "" {
		msg = "missing token: send auth.token"
	}
	return protocol.NewError(protocol.CodeUnauthorized, "unauthorized: "+msg)
}

// Connect joins the cluster (Options.Redis): it takes the node's lease in
// Redis, and fails when Redis cannot be reached. It does nothing on a
// single node or when called again; Serve calls it.
func (s *Server) Connect(ctx context.Context) error {
	if s.storeErr != nil {
		return fmt.Errorf("cluster: %w", s.storeErr)
	}
	if err := s.store.start(ctx); err != nil {
		s.io.Close()
		s.store.close()
		return fmt.Errorf("cluster: %w", err)
	}
	return nil
}

// Serve serves on ln until ctx is done, then shuts down gracefully: it
// refuses new sessions, disconnects every client, and waits (up to
// ShutdownTimeout) for HTTP requests in flight. It returns nil after a
// shutdown caused by ctx, or the listener's error.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if err := s.Connect(ctx); err != nil {
		return err
	}
	idle := newConnTracker()
	hs := &http.Server{
		Handler:           idle.wrap(s.Handler()),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		ConnState:         idle.track,
		ConnContext:       withConn,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	s.log.Info("serving", "addr", ln.Addr().String(), "paths", []string{PathSocketIO, PathSMCP})
	select {
	case err := <-errc:
		s.Close()
		s.store.close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.log.Info("shutting down")
	s.Close()
	sctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- hs.Shutdown(sctx) }()
	// Every session is closed now. What Shutdown would still wait for holds
	// nothing: spare connections clients dialled but never used, and
	// long-polls the engine leaves hanging when it closes a session.
	var err error
	for waiting := true; waiting; {
		idle.closeIdle()
		select {
		case err = <-shut:
			waiting = false
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err != nil {
		s.log.Warn("graceful shutdown timed out; closing connections", "err", err)
		_ = hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	s.store.close()
	s.log.Info("stopped", "sessions_left", s.sessions.len(), "offices_left", s.store.officeCount())
	return nil
}

// Close refuses new sessions and disconnects every client; their offices
// hear the leave notifications and requests in flight get an error answer.
// Serve calls it; call it yourself when you mounted Handler elsewhere.
func (s *Server) Close() {
	if s.draining.Swap(true) {
		return
	}
	s.store.shutdown()
	s.io.Close()
}
