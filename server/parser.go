package server

import (
	"errors"
	"log/slog"
	"sync"

	"github.com/zishang520/socket.io/parsers/socket/v3/parser"
	"github.com/zishang520/socket.io/v3/pkg/types"
)

// lenientParser is the Socket.IO parser with one change: a packet that does
// not decode (broken JSON, a bad attachment count, text where a binary
// attachment was due) is dropped with a log line instead of closing the
// whole connection, so one bad message never costs a client its other
// requests.
type lenientParser struct {
	log *slog.Logger
}

func (p lenientParser) NewEncoder() parser.Encoder { return parser.NewEncoder() }

func (p lenientParser) NewDecoder() parser.Decoder {
	d := &lenientDecoder{EventEmitter: types.NewEventEmitter(), log: p.log}
	d.inner = d.fresh()
	return d
}

// lenientDecoder forwards the packets of an inner decoder and replaces the
// inner decoder after an error, which also discards a half-built binary
// packet.
//
// It never emits while holding its lock: the library answers an
// out-of-order packet (a DISCONNECT or event for a namespace never
// connected, a second CONNECT) by closing the connection from inside its
// "decoded" listener, and the close destroys this decoder on the same
// goroutine. Emitting under the lock made that Destroy wait for the lock
// its own caller held, and the session (its fd and goroutines) hung for
// ever.
type lenientDecoder struct {
	types.EventEmitter
	log *slog.Logger

	mu      sync.Mutex
	inner   parser.Decoder
	decoded []any // packets the inner decoder produced during one Add
}

func (d *lenientDecoder) fresh() parser.Decoder {
	in := parser.NewDecoder()
	// Called by in.Add, under d.mu.
	_ = in.On("decoded", func(args ...any) {
		if len(args) > 0 {
			d.decoded = append(d.decoded, args[0])
		}
	})
	return in
}

// Add decodes data and emits the packets it completes, after releasing the
// lock; errors are logged, never returned.
func (d *lenientDecoder) Add(data any) error {
	d.mu.Lock()
	d.add(data)
	out := d.decoded
	d.decoded = nil
	d.mu.Unlock()
	for _, p := range out {
		d.Emit("decoded", p)
	}
	return nil
}

// add feeds the inner decoder. d.mu is held.
func (d *lenientDecoder) add(data any) {
	err := d.inner.Add(data)
	if err == nil {
		return
	}
	d.log.Warn("dropped a Socket.IO packet that does not decode", "err", err)
	d.inner.Destroy()
	d.inner = d.fresh()
	if errors.Is(err, parser.ErrPlaintextDuringReconstruction) {
		// The broken one was the binary packet still waiting for its
		// attachments; this text packet may be fine on its own.
		if err := d.inner.Add(data); err != nil {
			d.log.Warn("dropped a Socket.IO packet that does not decode", "err", err)
			d.inner.Destroy()
			d.inner = d.fresh()
		}
	}
}

// Destroy releases the inner decoder.
func (d *lenientDecoder) Destroy() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.inner.Destroy()
}
