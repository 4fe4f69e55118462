package sioserver

// Scale-out: the library's Redis adapter links the Server nodes that share
// one Redis. What it does and does not do:
//
//   - It carries messages between nodes: ServerEmit publishes one on Redis
//     and every other node's OnServerEvent listener receives it, in the
//     order it was published. (The Server sends office notifications this
//     way and delivers them to its own members itself.)
//   - It keeps no state: rooms are local to each node, nothing says who is
//     where cluster-wide, a node that dies leaves no trace and nobody is
//     told. Pub/sub is fire-and-forget: while Redis is down, messages to
//     other nodes are lost (the adapter reports an error). The Server keeps
//     office state in Redis itself (server/cluster) for those reasons.
//   - Its room broadcasts are not used: a broadcast published just before
//     a socket joins a room can reach the socket's node just after, so a
//     member would hear of changes older than its own join; and the
//     adapter's default msgpack codec encodes a Go struct by its field
//     names ("OfficeID", not "office_id") and a json.RawMessage as binary,
//     which the other node sends to its clients as a binary attachment.
//     Its request/response features (fetchSockets, broadcast with acks)
//     send every message to every node and report a dead node only by a
//     timeout; routed requests use a channel per node instead.

import (
	"context"
	"fmt"
	"log/slog"

	rds "github.com/redis/go-redis/v9"
	redisad "github.com/zishang520/socket.io/adapters/redis/v3"
	"github.com/zishang520/socket.io/adapters/redis/v3/adapter"
	"github.com/zishang520/socket.io/servers/socket/v3"

	"github.com/smcp-browse/smcp-browse/internal/ratelog"
	"github.com/smcp-browse/smcp-browse/internal/sio/wire"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// RedisAdapter returns the Redis adapter for ServerOptions.Adapter, which
// publishes with rdb and subscribes with sub: nodes with the same Redis and
// key prefix hear each other's ServerEmit. Redis
// errors the adapter reports are logged, at most one line per
// 5 s with the count of the others.
func RedisAdapter(ctx context.Context, rdb, sub rds.UniversalClient, key string, log *slog.Logger) socket.AdapterConstructor {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	client := redisad.NewRedisClientWithSub(ctx, rdb, sub)
	rl := &ratelog.Logger{Log: log}
	_ = client.On("error", func(args ...any) {
		rl.Warn("redis adapter: Redis error; broadcasts to other nodes are lost until it is back", "err", wire.FirstArg(args))
	})
	opts := &adapter.RedisAdapterOptions{}
	opts.SetKey(key)
	return &adapter.RedisAdapterBuilder{Redis: client, Opts: opts}
}

// ServerEmit sends event with payload to every other node (with the Redis
// adapter; to nobody with the in-memory one).
func (s *Server) ServerEmit(event, payload string) error {
	if err := s.io.Of(protocol.Namespace, nil).ServerSideEmit(event, payload); err != nil {
		return fmt.Errorf("to other nodes: %s: %w", event, err)
	}
	return nil
}

// OnServerEvent registers fn for event sent by another node's ServerEmit.
// Deliveries come one at a time, in the order they were published; fn
// must not block.
func (s *Server) OnServerEvent(event string, fn func(payload string)) {
	_ = s.io.Of(protocol.Namespace, nil).On(event, func(args ...any) {
		if p, ok := wire.FirstArg(args).(string); ok {
			fn(p)
		}
	})
}

// DisconnectLocal disconnects every client of this node (only this node,
// whatever the adapter).
func (s *Server) DisconnectLocal() {
	s.io.Of(protocol.Namespace, nil).Local().DisconnectSockets(true)
}
