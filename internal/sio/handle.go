package sio

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/sio/wire"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Handle registers h for server-to-client event (e.g. client:get_finder on
// a Computer). Each delivery runs h on its own goroutine; its result is
// sent back on the ack. A panic in h is recovered and answered with a 500
// error payload. Registering again replaces the handler.
func (c *Conn) Handle(event string, h Handler) {
	c.mu.Lock()
	c.handlers[event] = h
	c.mu.Unlock()
}

// Listen registers fn for a notification event (e.g. notify:enter_office).
// Deliveries of one event reach fn one at a time in arrival order, on a
// goroutine of the Conn; an ack the server asked for is sent at once.
func (c *Conn) Listen(event string, fn func(payload json.RawMessage)) {
	c.mu.Lock()
	c.listeners[event] = &listener{fn: fn}
	c.mu.Unlock()
}

// ackFunc is the ack callback the library appends to an event's arguments.
type ackFunc = func([]any, error)

// dispatch routes one incoming event. It runs on the library's read loop,
// so it never blocks.
func (c *Conn) dispatch(args []any) {
	event, _ := wire.FirstArg(args).(string)
	rest := args[min(1, len(args)):]
	var ack ackFunc
	if n := len(rest); n > 0 {
		if a, ok := rest[n-1].(ackFunc); ok {
			ack, rest = a, rest[:n-1]
		}
	}
	c.mu.Lock()
	h := c.handlers[event]
	l := c.listeners[event]
	c.mu.Unlock()

	var payload json.RawMessage
	var perr error
	if len(rest) == 0 {
		payload = json.RawMessage("null")
	} else {
		payload, perr = argJSON(rest[0])
	}
	log := c.log.With("event", event)
	switch {
	case h != nil:
		if perr != nil {
			log.Warn("payload is not JSON", "err", perr)
			c.reply(ack, nil, protocol.Errorf(protocol.CodeBadRequest, "%s: payload is not JSON", event))
			return
		}
		go c.serve(event, h, payload, ack)
	case l != nil:
		c.reply(ack, nil, nil)
		if perr != nil {
			log.Warn("notification payload is not JSON; dropped", "err", perr)
			return
		}
		l.q.push(func() {
			safeCall(log, "listener", func() { l.fn(payload) })
		})
	default:
		log.Debug("no handler for event")
		c.reply(ack, nil, protocol.Errorf(protocol.CodeNotFound, "event %q is not handled here", event))
	}
}

// serve runs a Handler and answers its ack.
func (c *Conn) serve(event string, h Handler, payload json.RawMessage, ack ackFunc) {
	start := time.Now()
	var (
		v   any
		err error
	)
	func() {
		defer func() {
			if r := recover(); r != nil {
				c.log.Error("handler panicked", "event", event, "panic", r)
				err = protocol.Errorf(protocol.CodeInternalError, "%s: internal error", event)
			}
		}()
		v, err = h(c.ctx, payload)
	}()
	c.log.Debug("handled", "event", event, "took", time.Since(start), "err", err)
	c.reply(ack, v, err)
}

// reply sends the ack for a handled event; a nil ack means the sender did
// not ask for one. Nothing is sent once Close has begun: a handler cut
// short by Close's cancellation would otherwise answer with what it had.
func (c *Conn) reply(ack ackFunc, v any, err error) {
	if ack == nil {
		return
	}
	args := ackArgs(v, err)
	c.emitMu.Lock()
	defer c.emitMu.Unlock()
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return
	}
	ack(args, nil)
}

// ackArgs encodes a handler's outcome as ack arguments. Values are encoded
// here so that an unencodable value becomes a 500 payload instead of an
// empty packet the peer cannot parse.
func ackArgs(v any, err error) []any {
	if err != nil {
		var pe *protocol.Error
		if !errors.As(err, &pe) {
			pe = protocol.NewError(protocol.CodeInternalError, err.Error())
		}
		raw, mErr := json.Marshal(pe)
		if mErr != nil {
			raw, _ = json.Marshal(protocol.NewError(pe.Code, pe.Message))
		}
		return []any{json.RawMessage(raw)}
	}
	if v == nil {
		return []any{}
	}
	if raw, ok := v.(json.RawMessage); ok && json.Valid(raw) {
		// Already encoded (a resource read): sent as it is, not compacted
		// into a copy by json.Marshal.
		return []any{raw}
	}
	raw, mErr := json.Marshal(v)
	if mErr != nil {
		raw, _ = json.Marshal(protocol.NewError(protocol.CodeInternalError, fmt.Sprintf("answer is not JSON: %v", mErr)))
	}
	return []any{json.RawMessage(raw)}
}
