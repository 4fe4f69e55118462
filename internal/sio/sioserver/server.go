package sioserver

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	engine "github.com/zishang520/socket.io/servers/engine/v3"
	"github.com/zishang520/socket.io/servers/engine/v3/transports"
	"github.com/zishang520/socket.io/servers/socket/v3"
	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/smcp-browse/smcp-browse/internal/sio/wire"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// ServerOptions configure NewServer.
type ServerOptions struct {
	Logger *slog.Logger
	// MaxPayloadBytes is engine.io's maxHttpBufferSize: the largest message
	// a connection accepts. Bigger ones close it. Zero fields keep the
	// library's defaults.
	MaxPayloadBytes int64
	// PingInterval and PingTimeout are engine.io's heartbeat.
	PingInterval, PingTimeout time.Duration
	// ConnectTimeout bounds how long an engine.io session may stay open
	// without joining the SMCP namespace (the library's connectTimeout):
	// a client that never sends an accepted CONNECT is closed then.
	ConnectTimeout time.Duration
	// Authorize checks a client's CONNECT to the SMCP namespace (its auth
	// payload); a non-nil error refuses it with the error's payload as the
	// connect_error data.
	Authorize func(auth map[string]any) *protocol.Error
	// OnConnection is called for every client that joined the namespace.
	OnConnection func(*Socket)
	// Adapter replaces the library's in-memory adapter (rooms, broadcasts,
	// acks across nodes), e.g. with its Redis adapter for scale-out; nil
	// keeps the in-memory one.
	Adapter socket.AdapterConstructor
}

// Server is the Socket.IO server of namespace protocol.Namespace: the
// library's server with the engine gate and the raw-JSON parser.
type Server struct {
	opts   ServerOptions
	log    *slog.Logger
	io     *socket.Server
	engine *gatedEngine
	gates  gates
}

// refusedGrace is how long a refused client's transport stays open for the
// connect_error to reach it.
const refusedGrace = 500 * time.Millisecond

// NewServer returns a Server; serve its ServeHTTP at the engine.io paths.
func NewServer(opts ServerOptions) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, log: opts.Logger}
	so := socket.DefaultServerOptions()
	so.SetServeClient(false)
	if opts.MaxPayloadBytes > 0 {
		so.SetMaxHttpBufferSize(opts.MaxPayloadBytes)
	}
	if opts.PingInterval > 0 {
		so.SetPingInterval(opts.PingInterval)
	}
	if opts.PingTimeout > 0 {
		so.SetPingTimeout(opts.PingTimeout)
	}
	if opts.ConnectTimeout > 0 {
		so.SetConnectTimeout(opts.ConnectTimeout)
	}
	so.SetTransports(types.NewSet(engine.Polling, engine.WebSocket))
	so.SetParser(wire.NewParser(s.log))
	if opts.Adapter != nil {
		so.SetAdapter(opts.Adapter)
	}
	s.io = socket.NewServer(nil, so)
	eng := newGatedEngine(so, &s.gates)
	s.io.Bind(eng)
	// Registered after Socket.IO's own listener, so it runs once Socket.IO
	// listens to the new session.
	_ = eng.On("connection", func(args ...any) {
		if es, ok := wire.FirstArg(args).(engine.Socket); ok {
			s.gates.adopt(es)
			echoPongsAfterUpgrade(es, pongEcho(eng.Opts().PingInterval(), eng.Opts().PingTimeout()))
		}
	})
	s.engine = eng
	// The default namespace exists in every Socket.IO server and admits
	// anyone; nothing is served there, so a CONNECT to it is refused like
	// one without the token, and the transport closed.
	s.io.Of("/", nil).Use(func(sock *socket.Socket, next func(*socket.ExtendedError)) {
		s.refuse(sock, next, protocol.Errorf(protocol.CodeNotFound,
			"namespace / is not served: connect to %s", protocol.Namespace))
	})
	nsp := s.io.Of(protocol.Namespace, nil)
	nsp.Use(s.authorize)
	_ = nsp.On("connection", func(args ...any) {
		sock, ok := wire.FirstArg(args).(*socket.Socket)
		if !ok {
			return
		}
		so := &Socket{s: sock}
		g := s.gates.get(sock.Conn())
		if g != nil && g.ws != nil && sock.Conn().Transport() == transports.Transport(g) && sock.Conn().Protocol() == 4 {
			so.fast = newFastSocket(g, s.log)
		}
		_ = sock.On("disconnect", func(...any) {
			if so.fast != nil {
				so.fast.close()
			}
			if g != nil {
				g.releaseLeave() // the packets behind a client's DISCONNECT may go
			}
		})
		if s.opts.OnConnection != nil {
			s.opts.OnConnection(so)
		}
		if so.fast != nil {
			g.setFast(so.fast) // before the packets behind the CONNECT are delivered
		}
		s.gates.releaseOut(sock.Conn()) // the namespace is joined: the CONNECT answer may go
	})
	return s
}

// ServeHTTP serves the engine.io endpoint.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.engine.ServeHTTP(w, r) }

// Sessions returns the number of engine.io sessions open, namespace joined
// or not.
func (s *Server) Sessions() int { return int(s.gates.open.Load()) }

// Close disconnects every client.
func (s *Server) Close() { s.io.Close(nil) }

// authorize is the namespace middleware.
func (s *Server) authorize(sock *socket.Socket, next func(*socket.ExtendedError)) {
	if s.opts.Authorize == nil {
		next(nil)
		return
	}
	e := s.opts.Authorize(sock.Handshake().Auth)
	if e == nil {
		next(nil)
		return
	}
	s.refuse(sock, next, e)
}

// refuse answers a namespace CONNECT with connect_error carrying e's
// payload and closes the transport soon after.
func (s *Server) refuse(sock *socket.Socket, next func(*socket.ExtendedError), e *protocol.Error) {
	s.log.Info("connection refused", "code", e.Code, "reason", e.Message, "remote", sock.Handshake().Address)
	s.gates.releaseOut(sock.Conn())
	next(socket.NewExtendedError(e.Message, map[string]any{"code": e.Code, "message": e.Message}))
	// The refused client has no business keeping its transport open: drop
	// it once the connect_error has had time to reach it.
	conn := sock.Conn()
	time.AfterFunc(refusedGrace, func() { conn.Close(false) })
}

// Ack answers one received event. Only its first answer is sent.
type Ack interface {
	// Send answers with args: json.RawMessage values go as they are,
	// others are encoded as JSON.
	Send(args ...any)
	// SendRaw answers with args, raw JSON each.
	SendRaw(args []json.RawMessage)
}

// AckHandler receives a client's answer to EmitWithAck: its arguments,
// raw JSON each, only valid until Acked returns (as OnEvent's payload).
type AckHandler interface {
	Acked(args []json.RawMessage, err error)
}

// AckFunc is a function as an AckHandler.
type AckFunc func(args []json.RawMessage, err error)

// Acked calls f.
func (f AckFunc) Acked(args []json.RawMessage, err error) { f(args, err) }

// libAck is the Ack of an event the library delivered (a session on
// polling); the library sends only the first answer.
type libAck struct{ a socket.Ack }

func (l libAck) Send(args ...any) { l.a(args, nil) }

func (l libAck) SendRaw(args []json.RawMessage) {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a
	}
	l.a(out, nil)
}

// Socket is one client connected to the namespace.
type Socket struct {
	s    *socket.Socket
	fast *fastSocket // the session's fast path, nil on polling
}

// ID is the Socket.IO session id.
func (s *Socket) ID() string { return string(s.s.Id()) }

// Query returns a value of the handshake's URL query.
func (s *Socket) Query(key string) string { return s.s.Handshake().Query.Query().Get(key) }

// Address is the client's address.
func (s *Socket) Address() string { return s.s.Handshake().Address }

// OnEvent registers fn for every event the client sends, in arrival order
// on one goroutine per socket. payload is the first argument (raw JSON, a
// []byte for a binary one, nil when there is none); ack is nil when the
// client asked for no answer. fn must not block, and payload's bytes are
// only valid until fn returns (they may be the reader's buffer): copy what
// is kept longer. Sending them with Emit, EmitWithAck or an Ack during the
// call is fine (they are encoded at once).
func (s *Socket) OnEvent(fn func(event string, payload any, ack Ack)) {
	if s.fast != nil {
		h := eventHandler(fn)
		s.fast.onEvent.Store(&h)
	}
	s.s.OnAny(func(args ...any) {
		event, _ := wire.FirstArg(args).(string)
		rest := args[min(1, len(args)):]
		var ack Ack
		if n := len(rest); n > 0 {
			if a, ok := rest[n-1].(socket.Ack); ok {
				ack = libAck{a}
				rest = rest[:n-1]
			}
		}
		fn(event, wire.FirstArg(rest), ack)
	})
}

// OnDisconnect registers fn for the socket's disconnection.
func (s *Socket) OnDisconnect(fn func(reason string)) {
	_ = s.s.On("disconnect", func(args ...any) {
		reason, _ := wire.FirstArg(args).(string)
		fn(reason)
	})
}

// Emit sends event with args (json.RawMessage values are sent as they
// are, others encoded as JSON).
func (s *Socket) Emit(event string, args ...any) {
	if s.fast != nil {
		s.fast.emit(event, args)
		return
	}
	_ = s.s.Emit(event, args...)
}

// EmitWithAck sends event with payload and hands the client's answer to h.
// A socket that disconnects first never calls h: the caller bounds the
// wait itself, and learns of the disconnection from OnDisconnect.
func (s *Socket) EmitWithAck(event string, payload any, h AckHandler) {
	if s.fast != nil {
		s.fast.emitWithAck(event, payload, h)
		return
	}
	_ = s.s.Emit(event, payload, socket.Ack(func(args []any, err error) {
		h.Acked(toRawArgs(args), err)
	}))
}

// Disconnect closes the client's connection.
func (s *Socket) Disconnect() { s.s.Disconnect(true) }

// toRawArgs returns the decoded arguments of an ack as raw JSON each.
func toRawArgs(args []any) []json.RawMessage {
	out := make([]json.RawMessage, len(args))
	for i, a := range args {
		out[i] = toRaw(a)
	}
	return out
}

// toRaw returns a decoded argument as raw JSON.
func toRaw(a any) json.RawMessage {
	switch v := a.(type) {
	case json.RawMessage:
		return v
	case nil:
		return json.RawMessage("null")
	}
	raw, err := json.Marshal(a)
	if err != nil {
		return json.RawMessage("null")
	}
	return raw
}
