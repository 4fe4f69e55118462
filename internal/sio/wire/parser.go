package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/zishang520/socket.io/parsers/socket/v3/parser"
	"github.com/zishang520/socket.io/v3/pkg/types"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// rawParser is the Socket.IO parser of both sides. It differs from the
// library's in two ways:
//
//   - Event and ack arguments stay raw JSON. The library decodes every
//     argument into map[string]any and encodes it again on the way out,
//     which was a third of the Server's CPU; here a decoded EVENT's data is
//     [name, json.RawMessage...] and an ACK's [json.RawMessage...], and
//     the encoder writes json.RawMessage arguments as they are. A
//     json.RawMessage is not binary: the library's binary detection
//     matches []byte by type, and RawMessage is its own type, so only real
//     []byte arguments become attachments. Binary packets (rare here) go
//     through the library's own decoder and encoder.
//   - It is lenient: a packet that does not decode (broken JSON, a bad
//     attachment count, text where an attachment was due) is dropped with
//     a log line instead of closing the whole connection, so one bad
//     message never costs a client its other requests.
type rawParser struct {
	log *slog.Logger
}

// NewParser returns the parser; what it drops is logged to log.
func NewParser(log *slog.Logger) parser.Parser { return rawParser{log: log} }

// NewDecoder returns a decoder of the parser's, for a caller that feeds it
// messages itself (Decode) rather than through the library.
func NewDecoder(log *slog.Logger) *Decoder {
	return &Decoder{EventEmitter: types.NewEventEmitter(), log: log}
}

func (p rawParser) NewEncoder() parser.Encoder { return rawEncoder{} }

func (p rawParser) NewDecoder() parser.Decoder { return NewDecoder(p.log) }

// Errors of the decoder (logged, never returned).
var (
	errBadType    = errors.New("unknown packet type")
	errBadNsp     = errors.New("illegal namespace")
	errBadID      = errors.New("illegal id")
	ErrBadPayload = errors.New("invalid payload")
)

// Limits the library's decoder applies too.
const (
	maxNamespaceLen = 512
	maxIDLen        = 20
)

// reservedEvents cannot be sent as events (as in the library and Node).
var reservedEvents = map[string]bool{
	"connect": true, "connect_error": true, "disconnect": true,
	"disconnecting": true, "newListener": true, "removeListener": true,
}

// Decoder decodes text packets itself and hands binary ones to a
// library decoder for their reconstruction.
//
// It never emits while holding its lock: the library answers an
// out-of-order packet (a DISCONNECT or event for a namespace never
// connected, a second CONNECT) by closing the connection from inside its
// "decoded" listener, and the close destroys this decoder on the same
// goroutine. Emitting under the lock made that Destroy wait for the lock
// its own caller held, and the session (its fd and goroutines) hung for
// ever (issue 17.1).
type Decoder struct {
	types.EventEmitter
	log *slog.Logger

	mu      sync.Mutex
	binary  parser.Decoder // reconstructing a binary packet, else nil
	decoded []*parser.Packet
}

// Add decodes data and emits the packet it completes, after releasing the
// lock; errors are logged, never returned.
func (d *Decoder) Add(data any) error {
	text, isText := textOf(data)
	for _, p := range d.Decode(text, isText, data) {
		d.Emit("decoded", p)
	}
	return nil
}

// decode decodes one engine.io message (text, or the binary data) and
// returns the packets it completes; errors are logged.
func (d *Decoder) Decode(text []byte, isText bool, data any) []*parser.Packet {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.add(text, isText, data); err != nil {
		d.log.Warn("dropped a Socket.IO packet that does not decode", "err", err)
	}
	out := d.decoded
	d.decoded = nil
	return out
}

// reconstructing reports whether a binary packet waits for attachments.
func (d *Decoder) Reconstructing() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.binary != nil
}

// add decodes one engine.io message. d.mu is held.
func (d *Decoder) add(text []byte, isText bool, data any) error {
	if d.binary != nil {
		if isText {
			// The binary packet still waiting for its attachments is
			// broken; this text packet may be fine on its own.
			d.dropBinary()
			err := d.add(text, isText, data)
			return errors.Join(parser.ErrPlaintextDuringReconstruction, err)
		}
		if err := d.binary.Add(data); err != nil {
			d.dropBinary()
			return err
		}
		return nil
	}
	if !isText {
		return parser.ErrBinaryWithoutReconstruction
	}
	if len(text) > 0 && (text[0] == '0'+byte(parser.BINARY_EVENT) || text[0] == '0'+byte(parser.BINARY_ACK)) {
		return d.startBinary(text)
	}
	p, err := decodeText(text)
	if err != nil {
		return err
	}
	d.decoded = append(d.decoded, p)
	return nil
}

// textOf returns the bytes of a text message.
func textOf(data any) ([]byte, bool) {
	switch v := data.(type) {
	case string:
		return []byte(v), true
	case *types.StringBuffer:
		return v.Bytes(), true
	case *strings.Reader:
		b, _ := io.ReadAll(v)
		return b, true
	}
	return nil, false
}

// startBinary hands a binary packet's header to a library decoder that
// collects its attachments.
func (d *Decoder) startBinary(text []byte) error {
	in := parser.NewDecoder()
	_ = in.On("decoded", func(args ...any) {
		// Called by in.Add, under d.mu.
		if p, ok := FirstArg(args).(*parser.Packet); ok {
			d.decoded = append(d.decoded, rawBinary(p))
		}
		d.binary = nil
	})
	d.binary = in
	if err := in.Add(string(text)); err != nil {
		d.dropBinary()
		return err
	}
	return nil
}

func (d *Decoder) dropBinary() {
	if d.binary != nil {
		d.binary.Destroy()
		d.binary = nil
	}
}

// rawBinary turns the arguments of a reconstructed binary packet into the
// raw form: a top-level []byte stays binary, anything else is encoded as
// JSON (nested attachments become base64 strings).
func rawBinary(p *parser.Packet) *parser.Packet {
	args, ok := p.Data.([]any)
	if !ok {
		return p
	}
	out := make([]any, len(args))
	for i, a := range args {
		if _, isName := a.(string); i == 0 && (p.Type == parser.BINARY_EVENT) && isName {
			out[i] = a
			continue
		}
		a = unbuffer(a)
		if b, isBytes := a.([]byte); isBytes {
			out[i] = b
			continue
		}
		raw, err := json.Marshal(a)
		if err != nil {
			raw = []byte("null")
		}
		out[i] = json.RawMessage(raw)
	}
	q := *p
	q.Data = out
	return &q
}

// unbuffer replaces the attachment buffers in v with their bytes.
func unbuffer(v any) any {
	switch x := v.(type) {
	case types.BufferInterface:
		return x.Bytes()
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = unbuffer(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = unbuffer(e)
		}
		return out
	}
	return v
}

// Destroy drops a half-built binary packet.
func (d *Decoder) Destroy() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dropBinary()
}

// decodeText decodes a text packet: <type>[<nsp>,][<id>][<json>].
func decodeText(text []byte) (*parser.Packet, error) {
	if len(text) == 0 {
		return nil, ErrBadPayload
	}
	p := &parser.Packet{Type: parser.PacketType(int(text[0]) - '0'), Nsp: "/"}
	if !p.Type.Valid() {
		return nil, fmt.Errorf("%w %q", errBadType, text[0])
	}
	rest := text[1:]
	if len(rest) > 0 && rest[0] == '/' {
		end := bytes.IndexByte(rest, ',')
		if end < 0 {
			end = len(rest)
		}
		if end > maxNamespaceLen {
			return nil, errBadNsp
		}
		if string(rest[:end]) == protocol.Namespace {
			p.Nsp = protocol.Namespace // no copy for the one served
		} else {
			p.Nsp = string(rest[:end])
		}
		rest = rest[min(end+1, len(rest)):]
	}
	id, hasID, rest, err := ParseID(rest)
	if err != nil {
		return nil, err
	}
	if hasID {
		p.Id = &id
	}
	if err := decodePayload(p, rest); err != nil {
		return nil, err
	}
	return p, nil
}

// ParseID reads the packet id that may start rest (decimal, at most
// maxIDLen digits, no overflow) and returns what follows it.
func ParseID(rest []byte) (id uint64, ok bool, after []byte, err error) {
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 {
		return 0, false, rest, nil
	}
	if n > maxIDLen {
		return 0, false, nil, errBadID
	}
	for _, c := range rest[:n] {
		d := uint64(c - '0')
		if id > (math.MaxUint64-d)/10 {
			return 0, false, nil, errBadID
		}
		id = id*10 + d
	}
	return id, true, rest[n:], nil
}

// EventName reads the first element of an EVENT: a string (not a name
// Socket.IO reserves), or a number, which the library also accepts
// (name is then "").
func EventName(elem json.RawMessage) (name string, num float64, ok bool) {
	switch elem[0] {
	case '"':
		if name, ok = knownEvent(elem); ok {
			return name, 0, true
		}
		name, plain := plainJSONString(elem)
		if !plain && json.Unmarshal(elem, &name) != nil || reservedEvents[name] {
			return "", 0, false
		}
		return name, 0, true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if json.Unmarshal(elem, &num) != nil {
			return "", 0, false
		}
		return "", num, true
	}
	return "", 0, false
}

// knownEvents maps every SMCP event name (protocol.Events) to itself: the
// name a decoded EVENT carries, without allocating one per packet. It is
// written once, at start-up, and only read after.
var knownEvents = func() map[string]string {
	m := map[string]string{}
	for _, e := range protocol.Events() {
		m[e] = e
	}
	return m
}()

// knownEvent returns the SMCP event name elem (a JSON string) spells
// without escapes, without allocating.
func knownEvent(elem []byte) (string, bool) {
	if len(elem) < 2 {
		return "", false
	}
	name, ok := knownEvents[string(elem[1:len(elem)-1])]
	return name, ok
}

// decodePayload checks and stores the JSON of p by its type.
func decodePayload(p *parser.Packet, raw []byte) error {
	if (p.Type == parser.CONNECT || p.Type == parser.DISCONNECT) && string(raw) == "null" {
		raw = nil // as the library's decoder, which decodes it to nil
	}
	switch p.Type {
	case parser.DISCONNECT:
		if len(raw) != 0 {
			return ErrBadPayload
		}
		return nil
	case parser.CONNECT, parser.CONNECT_ERROR:
		if len(raw) == 0 {
			if p.Type == parser.CONNECT {
				return nil
			}
			return ErrBadPayload
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return ErrBadPayload
		}
		switch v.(type) {
		case map[string]any:
		case string:
			if p.Type == parser.CONNECT {
				return ErrBadPayload
			}
		default:
			return ErrBadPayload
		}
		p.Data = v
		return nil
	}
	// EVENT or ACK: a JSON array, kept raw element by element.
	if len(raw) == 0 || raw[0] != '[' {
		return ErrBadPayload
	}
	elems, ok := splitValidArray(raw)
	if !ok {
		return ErrBadPayload
	}
	args := make([]any, len(elems))
	for i, e := range elems {
		args[i] = e
	}
	if p.Type == parser.EVENT {
		if len(elems) == 0 {
			return ErrBadPayload
		}
		name, num, ok := EventName(elems[0])
		switch {
		case !ok:
			return ErrBadPayload
		case elems[0][0] == '"':
			args[0] = name
		default:
			args[0] = num
		}
	}
	p.Data = args
	return nil
}

// rawEncoder writes text packets itself and hands packets carrying []byte
// to the library's encoder.
type rawEncoder struct{}

var libEncoder = parser.NewEncoder()

// Encode encodes p.
func (rawEncoder) Encode(p *parser.Packet) []types.BufferInterface {
	if (p.Type == parser.EVENT || p.Type == parser.ACK || p.Type == parser.BINARY_EVENT || p.Type == parser.BINARY_ACK) && parser.HasBinary(p.Data) {
		return libEncoder.Encode(p)
	}
	buf := make([]byte, 0, 64+rawSize(p.Data))
	buf = append(buf, '0'+byte(p.Type))
	if p.Nsp != "" && p.Nsp != "/" {
		buf = append(buf, p.Nsp...)
		buf = append(buf, ',')
	}
	if p.Id != nil {
		buf = strconv.AppendUint(buf, *p.Id, 10)
	}
	if p.Data != nil && !isNilMap(p.Data) {
		buf = AppendJSON(buf, p.Data)
	}
	return []types.BufferInterface{types.NewStringBuffer(buf)}
}

// isNilMap reports a nil map in an interface (a client's CONNECT without
// auth), which is no payload rather than "null".
func isNilMap(v any) bool {
	m, ok := v.(map[string]any)
	return ok && m == nil
}

// rawSize is the size of the raw arguments of an event or ack.
func rawSize(data any) int {
	args, _ := data.([]any)
	n := 0
	for _, a := range args {
		if r, ok := a.(json.RawMessage); ok {
			n += len(r) + 1
		}
	}
	return n
}

// AppendJSON appends v as JSON; json.RawMessage values (also inside a
// []any) are copied as they are, anything else is encoded.
func AppendJSON(buf []byte, v any) []byte {
	switch x := v.(type) {
	case json.RawMessage:
		if len(x) == 0 {
			return append(buf, "null"...)
		}
		return append(buf, x...)
	case []any:
		buf = append(buf, '[')
		for i, e := range x {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = AppendJSON(buf, e)
		}
		return append(buf, ']')
	case string:
		if plainString(x) {
			buf = append(buf, '"')
			buf = append(buf, x...)
			return append(buf, '"')
		}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return append(buf, "null"...)
	}
	return append(buf, raw...)
}

// AppendJSONString appends s as a JSON string.
func AppendJSONString(buf []byte, s string) []byte {
	if plainString(s) {
		buf = append(buf, '"')
		buf = append(buf, s...)
		return append(buf, '"')
	}
	raw, _ := json.Marshal(s) // a string always encodes
	return append(buf, raw...)
}

// plainString reports whether s is printable ASCII needing no JSON escape.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
