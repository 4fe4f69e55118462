package sio

// Scale-out: the library's Redis adapter carries room broadcasts between
// Server nodes that share one Redis. What it does and does not do:
//
//   - It does: a broadcast to a room (an office) is published on Redis and
//     every node delivers it to its own members of the room, honouring the
//     exclusions (the sender). Each node subscribes once per namespace.
//   - It does not keep any state: rooms are local to each node, nothing
//     says who is where cluster-wide, a node that dies leaves no trace and
//     nobody is told. Pub/sub is fire-and-forget: while Redis is down,
//     broadcasts to other nodes are lost (the adapter reports an error and
//     delivers locally only). The Server keeps office state in Redis
//     itself (server/cluster) for those reasons.
//   - Its default message parser is msgpack, which encodes a Go struct by
//     its field names ("OfficeID", not "office_id") and a json.RawMessage
//     as msgpack binary, which the other node decodes as []byte and sends
//     to its clients as a binary attachment. redisParser below keeps raw
//     JSON arguments raw instead (TestRedisParserKeepsRawJSON).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	rds "github.com/redis/go-redis/v9"
	redisad "github.com/zishang520/socket.io/adapters/redis/v3"
	"github.com/zishang520/socket.io/adapters/redis/v3/adapter"
	"github.com/zishang520/socket.io/parsers/socket/v3/parser"
	"github.com/zishang520/socket.io/servers/socket/v3"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// RedisAdapter returns the Redis adapter over rdb for ServerOptions.Adapter:
// nodes with the same Redis and key prefix share room broadcasts. Redis
// errors the adapter reports are logged, at most one line per
// errorLogEvery with the count of the others.
func RedisAdapter(ctx context.Context, rdb rds.UniversalClient, key string, log *slog.Logger) socket.AdapterConstructor {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	client := redisad.NewRedisClient(ctx, rdb)
	el := &errorLog{log: log}
	_ = client.On("error", func(args ...any) { el.report(firstArg(args)) })
	opts := &adapter.RedisAdapterOptions{}
	opts.SetKey(key)
	opts.SetParser(redisParser{})
	return &adapter.RedisAdapterBuilder{Redis: client, Opts: opts}
}

// errorLogEvery bounds how often the adapter's Redis errors are logged:
// while Redis is down its subscription loop reports one per attempt.
const errorLogEvery = 5 * time.Second

// errorLog logs errors at a bounded rate.
type errorLog struct {
	log     *slog.Logger
	mu      sync.Mutex
	last    time.Time
	dropped int
}

func (e *errorLog) report(v any) {
	e.mu.Lock()
	now := time.Now()
	if now.Sub(e.last) < errorLogEvery {
		e.dropped++
		e.mu.Unlock()
		return
	}
	dropped := e.dropped
	e.last, e.dropped = now, 0
	e.mu.Unlock()
	e.log.Warn("redis adapter: Redis error; broadcasts to other nodes are lost until it is back",
		"err", v, "similar_errors_not_logged", dropped)
}

// redisParser is the adapter's message codec: JSON, with the Socket.IO
// packet's arguments kept as raw JSON. Its output never starts with '{',
// which the adapter would take for its own JSON requests and decode into
// maps.
type redisParser struct{}

// rawTag starts every message redisParser encodes.
const rawTag = 'J'

func (redisParser) Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte(rawTag)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // raw arguments go out as they came
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("redis adapter: encode: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func (redisParser) Decode(data []byte, v any) error {
	if len(data) == 0 || data[0] != rawTag {
		return errors.New("redis adapter: not a message of this parser")
	}
	data = data[1:]
	switch out := v.(type) {
	case **redisad.RedisPacket:
		p, err := decodeRedisPacket(data)
		if err != nil {
			return err
		}
		*out = p
		return nil
	case **redisad.RedisRequest:
		var r redisad.RedisRequest
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("redis adapter: decode request: %w", err)
		}
		if r.Packet != nil {
			raw, _ := json.Marshal(r.Packet.Data)
			r.Packet.Data = rawArgs(r.Packet.Type, raw)
		}
		*out = &r
		return nil
	case **redisad.RedisResponse:
		var r struct {
			redisad.RedisResponse
			Packet []json.RawMessage `json:"packet,omitempty"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("redis adapter: decode response: %w", err)
		}
		resp := r.RedisResponse
		resp.Packet = nil
		for _, a := range r.Packet {
			resp.Packet = append(resp.Packet, a)
		}
		*out = &resp
		return nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("redis adapter: decode: %w", err)
	}
	return nil
}

// wirePacket is parser.Packet with its arguments left raw.
type wirePacket struct {
	Type        parser.PacketType `json:"type"`
	Nsp         string            `json:"nsp"`
	Data        json.RawMessage   `json:"data,omitempty"`
	Id          *uint64           `json:"id,omitempty"`
	Attachments *uint64           `json:"attachments,omitempty"`
}

// decodeRedisPacket decodes the [uid, packet, opts] array RedisPacket
// encodes itself as.
func decodeRedisPacket(data []byte) (*redisad.RedisPacket, error) {
	var parts []json.RawMessage
	if err := json.Unmarshal(data, &parts); err != nil || len(parts) < 1 {
		return nil, fmt.Errorf("redis adapter: decode packet: not a [uid, packet, opts] array: %v", err)
	}
	out := &redisad.RedisPacket{}
	if err := json.Unmarshal(parts[0], &out.Uid); err != nil {
		return nil, fmt.Errorf("redis adapter: decode packet uid: %w", err)
	}
	if len(parts) > 1 && !isNull(parts[1]) {
		var wp wirePacket
		if err := json.Unmarshal(parts[1], &wp); err != nil {
			return nil, fmt.Errorf("redis adapter: decode packet: %w", err)
		}
		out.Packet = &parser.Packet{Type: wp.Type, Nsp: wp.Nsp, Id: wp.Id, Attachments: wp.Attachments,
			Data: rawArgs(wp.Type, wp.Data)}
	}
	if len(parts) > 2 && !isNull(parts[2]) {
		if err := json.Unmarshal(parts[2], &out.Opts); err != nil {
			return nil, fmt.Errorf("redis adapter: decode packet options: %w", err)
		}
	}
	return out, nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// rawArgs turns a packet's JSON data array into the form the raw parser
// encodes: an event's name as a string, every argument json.RawMessage.
func rawArgs(t parser.PacketType, data json.RawMessage) any {
	var args []json.RawMessage
	if len(data) == 0 || json.Unmarshal(data, &args) != nil {
		return nil
	}
	out := make([]any, len(args))
	for i, a := range args {
		if i == 0 && (t == parser.EVENT || t == parser.BINARY_EVENT) {
			var name string
			if json.Unmarshal(a, &name) == nil {
				out[i] = name
				continue
			}
		}
		out[i] = a
	}
	return out
}

// Room is the Socket.IO room of a name; rooms of the Server are prefixed
// so that none can be mistaken for a session's own room (its sid).
func room(name string) socket.Room { return socket.Room("r:" + name) }

// Join puts the socket in the room name (on this node; the Redis adapter
// makes broadcasts to it reach every node's members).
func (s *Socket) Join(name string) { s.s.Join(room(name)) }

// Leave takes the socket out of the room name.
func (s *Socket) Leave(name string) { s.s.Leave(room(name)) }

// Broadcast sends event with payload to every member of the room name on
// every node, except the session exceptSID (none when ""). A payload that
// is not json.RawMessage is encoded here, so that it crosses nodes as JSON.
func (s *Server) Broadcast(name, exceptSID, event string, payload any) error {
	raw, ok := payload.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(payload)
		if err != nil {
			return fmt.Errorf("broadcast %s: %w", event, err)
		}
		raw = b
	}
	op := s.io.Of(protocol.Namespace, nil).To(room(name))
	if exceptSID != "" {
		op = op.Except(socket.Room(exceptSID))
	}
	if err := op.Emit(event, raw); err != nil {
		return fmt.Errorf("broadcast %s: %w", event, err)
	}
	return nil
}

// DisconnectLocal disconnects every client of this node (only this node,
// whatever the adapter).
func (s *Server) DisconnectLocal() {
	s.io.Of(protocol.Namespace, nil).Local().DisconnectSockets(true)
}
