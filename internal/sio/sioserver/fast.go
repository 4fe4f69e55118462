package sioserver

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/zishang520/socket.io/parsers/engine/v3/packet"
	"github.com/zishang520/socket.io/parsers/socket/v3/parser"
	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/smcp-browse/smcp-browse/internal/sio/wire"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// fastSocket is the hot path of one /smcp session on the Server's own
// WebSocket transport (wsTransport), once the namespace is joined.
//
// The library delivers an event by emitting it through the transport, the
// engine socket, the client's decoder and the namespace socket, the last
// of which queues it for a goroutine of its own; it sends by encoding the
// packet into the engine socket's buffer, which its transport queues for
// a write goroutine. For a profile of the Server under load that machinery
// (emitters, two hand-offs, per-packet allocations) cost more than the
// routing and the socket writes together. Here the gate hands the events
// and acks of the session to dispatch on the goroutine that read them (in
// arrival order, one at a time), and outgoing events and acks are encoded
// once into a frame that the session's writer writes at once.
//
// What stays with the library: the handshake, heartbeat, namespace CONNECT
// and DISCONNECT, out-of-order packets (which close the session as
// before), sessions on polling (also once upgraded), and the Redis
// adapter. Binary packets are rebuilt by the library's decoder here too,
// so that they keep their place in the session's order.
type fastSocket struct {
	g       *gatedTransport
	log     *slog.Logger
	dec     *wire.Decoder // used by one delivery at a time (the gate's drain)
	onEvent atomic.Pointer[eventHandler]

	closed atomic.Bool // the namespace socket disconnected

	mu     sync.Mutex
	acks   map[uint64]AckHandler // EmitWithAck waiting
	nextID uint64
}

// eventHandler is what OnEvent registers.
type eventHandler func(event string, payload any, ack Ack)

func newFastSocket(g *gatedTransport, log *slog.Logger) *fastSocket {
	return &fastSocket{g: g, log: log, dec: wire.NewDecoder(log)}
}

// isFastText reports whether an engine.io text message is a Socket.IO
// event or ack (plain or binary) of namespace /smcp: "4" (MESSAGE), the
// Socket.IO type, for a binary one the attachment count and "-", then
// "/smcp,".
func isFastText(msg []byte) bool {
	const prefix = protocol.Namespace + ","
	if len(msg) < 2 || msg[0] != '4' {
		return false
	}
	rest := msg[2:]
	switch msg[1] {
	case '0' + byte(parser.EVENT), '0' + byte(parser.ACK):
	case '0' + byte(parser.BINARY_EVENT), '0' + byte(parser.BINARY_ACK):
		n := 0
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 0 || n >= len(rest) || rest[n] != '-' {
			return false
		}
		rest = rest[n+1:]
	default:
		return false
	}
	return len(rest) >= len(prefix) && string(rest[:len(prefix)]) == prefix
}

// deliverText decodes and dispatches a message isFastText accepted.
// borrowed: msg is the reader's buffer, which the plain path's handlers
// see only during their call; the library's decoder keeps a copy.
func (fs *fastSocket) deliverText(msg []byte, borrowed bool) {
	text := msg[1:]
	if (text[0] == '0'+byte(parser.EVENT) || text[0] == '0'+byte(parser.ACK)) && !fs.dec.Reconstructing() {
		fs.deliverPlain(text)
		return
	}
	if borrowed {
		text = bytes.Clone(text)
	}
	for _, p := range fs.dec.Decode(text, true, nil) {
		fs.dispatch(p)
	}
}

// deliverPlain decodes and dispatches an EVENT or ACK of /smcp without
// binary attachments, the common case, without building the library's
// packet: it accepts what decodeText accepts.
func (fs *fastSocket) deliverPlain(text []byte) {
	defer fs.recoverHandler()
	const head = len("2" + protocol.Namespace + ",")
	id, hasID, rest, err := wire.ParseID(text[head:])
	var small [4]json.RawMessage
	elems, ok := small[:0], err == nil && len(rest) > 0 && rest[0] == '['
	if ok {
		elems, ok = wire.AppendValidArray(elems, rest)
	}
	if text[0] == '0'+byte(parser.ACK) {
		if !ok {
			fs.dropped(err)
			return
		}
		if hasID {
			fs.answer(id, slices.Clone(elems))
		}
		return
	}
	var name string
	if ok = ok && len(elems) > 0; ok {
		name, _, ok = wire.EventName(elems[0])
	}
	if !ok {
		fs.dropped(err)
		return
	}
	h := fs.onEvent.Load()
	if h == nil || fs.closed.Load() {
		return
	}
	var payload any
	if len(elems) > 1 {
		payload = elems[1]
	}
	var ack Ack
	if hasID {
		ack = &fastAck{fs: fs, id: id}
	}
	(*h)(name, payload, ack)
}

// dropped logs a packet that does not decode, as the lenient decoder does.
func (fs *fastSocket) dropped(err error) {
	if err == nil {
		err = wire.ErrBadPayload
	}
	fs.log.Warn("dropped a Socket.IO packet that does not decode", "err", err)
}

// recoverHandler keeps a panicking handler from taking the reader (and
// the process) down, as the library's event loop does.
func (fs *fastSocket) recoverHandler() {
	if r := recover(); r != nil {
		fs.log.Error("socket.io handler panicked", "panic", r)
	}
}

// answer calls the function waiting for the client's ack id with args
// (which it keeps).
func (fs *fastSocket) answer(id uint64, args []json.RawMessage) {
	fs.mu.Lock()
	h := fs.acks[id]
	delete(fs.acks, id)
	fs.mu.Unlock()
	if h == nil {
		fs.log.Debug("ack for no request waiting", "id", id)
		return
	}
	h.Acked(args, nil)
}

// deliverBinary hands an attachment to the binary packet being rebuilt.
func (fs *fastSocket) deliverBinary(data []byte) {
	for _, p := range fs.dec.Decode(nil, false, types.NewBytesBuffer(data)) {
		fs.dispatch(p)
	}
}

// dropBinary forgets a binary packet still waiting for attachments (a
// text message came in between, as the library's decoder does).
func (fs *fastSocket) dropBinary() {
	fs.dec.Destroy()
}

// dispatch runs the handler of one decoded packet.
func (fs *fastSocket) dispatch(p *parser.Packet) {
	defer fs.recoverHandler()
	args, _ := p.Data.([]any)
	switch p.Type {
	case parser.EVENT, parser.BINARY_EVENT:
		h := fs.onEvent.Load()
		if h == nil || fs.closed.Load() {
			return
		}
		event, _ := wire.FirstArg(args).(string)
		var ack Ack
		if p.Id != nil {
			ack = &fastAck{fs: fs, id: *p.Id}
		}
		(*h)(event, wire.FirstArg(args[min(1, len(args)):]), ack)
	case parser.ACK, parser.BINARY_ACK:
		if p.Id == nil {
			return
		}
		fs.answer(*p.Id, toRawArgs(args))
	}
}

// fastAck answers the client's event id: sent once, later calls do
// nothing.
type fastAck struct {
	fs   *fastSocket
	id   uint64
	sent atomic.Bool
}

func (a *fastAck) Send(args ...any) {
	if !a.sent.Swap(true) {
		a.fs.send(parser.ACK, a.id, true, "", args)
	}
}

func (a *fastAck) SendRaw(args []json.RawMessage) {
	if !a.sent.Swap(true) {
		a.fs.sendRaw(a.id, args)
	}
}

// emit sends event with args.
func (fs *fastSocket) emit(event string, args []any) {
	fs.send(parser.EVENT, 0, false, event, args)
}

// emitWithAck sends event with payload and hands the client's answer to
// h. Nothing is sent once the session is closed.
func (fs *fastSocket) emitWithAck(event string, payload any, h AckHandler) {
	fs.mu.Lock()
	if fs.closed.Load() {
		fs.mu.Unlock()
		return
	}
	id := fs.nextID
	fs.nextID++
	if fs.acks == nil {
		fs.acks = map[uint64]AckHandler{}
	}
	fs.acks[id] = h
	fs.mu.Unlock()
	args := [1]any{payload}
	fs.send(parser.EVENT, id, true, event, args[:])
}

// close forgets the answers still awaited (as the library's socket does
// on disconnect: the caller bounds its waits itself).
func (fs *fastSocket) close() {
	fs.mu.Lock()
	fs.closed.Store(true)
	fs.acks = nil
	fs.mu.Unlock()
}

// send encodes a packet of namespace /smcp (an EVENT with event as its
// name, or an ACK; with id when hasID) into one frame and writes it.
// Arguments with binary data take the library's encoder. args is not kept.
func (fs *fastSocket) send(typ parser.PacketType, id uint64, hasID bool, event string, args []any) {
	for _, a := range args {
		if parser.HasBinary(a) {
			fs.sendBinary(typ, id, hasID, event, args)
			return
		}
	}
	b := newFrame()
	buf := appendHead(*b, typ, id, hasID)
	if typ == parser.EVENT {
		buf = wire.AppendJSONString(buf, event)
		if len(args) > 0 {
			buf = append(buf, ',')
		}
	}
	for i, a := range args {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = wire.AppendJSON(buf, a)
	}
	buf = append(buf, ']')
	*b = buf
	fs.g.writeFast(buf)
	freeFrame(b)
}

// sendRaw sends the ACK id with args, raw JSON each.
func (fs *fastSocket) sendRaw(id uint64, args []json.RawMessage) {
	b := newFrame()
	buf := appendHead(*b, parser.ACK, id, true)
	for i, a := range args {
		if i > 0 {
			buf = append(buf, ',')
		}
		if len(a) == 0 {
			a = json.RawMessage("null")
		}
		buf = append(buf, a...)
	}
	buf = append(buf, ']')
	*b = buf
	fs.g.writeFast(buf)
	freeFrame(b)
}

// appendHead appends a packet's start: engine.io MESSAGE, the Socket.IO
// type, the namespace, the id, and the arguments' opening bracket.
func appendHead(buf []byte, typ parser.PacketType, id uint64, hasID bool) []byte {
	buf = append(buf, '4', '0'+byte(typ))
	buf = append(buf, protocol.Namespace...)
	buf = append(buf, ',')
	if hasID {
		buf = strconv.AppendUint(buf, id, 10)
	}
	return append(buf, '[')
}

// libEncoder is the library's Socket.IO encoder, for binary packets.
var libEncoder = parser.NewEncoder()

// sendBinary sends a packet with binary attachments through the library's
// encoder and the engine's packet path.
func (fs *fastSocket) sendBinary(typ parser.PacketType, id uint64, hasID bool, event string, args []any) {
	data := make([]any, 0, len(args)+1)
	if typ == parser.EVENT {
		data = append(data, event)
	}
	data = append(data, args...)
	pkt := &parser.Packet{Type: typ, Nsp: protocol.Namespace, Data: data}
	if hasID {
		pkt.Id = &id
	}
	bufs := libEncoder.Encode(pkt)
	pkts := make([]*packet.Packet, len(bufs))
	for i, b := range bufs {
		pkts[i] = &packet.Packet{Type: packet.MESSAGE, Data: b}
	}
	fs.g.Send(pkts)
}
