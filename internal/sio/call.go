package sio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/sio/wire"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// ackSlack is added to the library's own ack timer so that the caller's
// context, not the library, decides when a Call times out; the library timer
// only frees the ack slot.
const ackSlack = time.Second

type ackResult struct {
	args []any
	err  error
}

// Call emits event with payload and waits for the ack. The ack's first
// argument is returned as JSON ("null" for an empty ack). An error payload
// in the ack (flat or nested) is returned as a *protocol.Error, as is the
// legacy (false, "message") ack (code 400). The context's deadline (or
// CallTimeout when it has none) bounds the wait: running out is a
// *protocol.Error with code 408; a context already done sends nothing. A
// connection that drops before the ack arrives returns an error wrapping
// ErrNotConnected at once.
func (c *Conn) Call(ctx context.Context, event string, payload any) (json.RawMessage, error) {
	body, err := json.Marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("%s: encode payload: %w", event, err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.CallTimeout)
		defer cancel()
	}
	dl, _ := ctx.Deadline()
	wait := time.Until(dl)
	if wait <= 0 {
		return nil, protocol.Errorf(protocol.CodeTimeout, "%s: deadline passed before sending", event)
	}
	// A call whose context is already done is not sent: sent, its answer
	// could arrive before the wait below looks at the context and be
	// returned as if the caller still wanted it.
	if ctx.Err() != nil {
		return nil, ctxError(ctx, event, wait)
	}
	s, err := c.current()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", event, err)
	}
	ch := make(chan ackResult, 1)
	ack := func(args []any, err error) {
		select {
		case ch <- ackResult{args, err}:
		default:
		}
	}
	c.emitMu.Lock()
	err = s.Timeout(wait+ackSlack).Emit(event, json.RawMessage(body), ack)
	c.emitMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", event, err)
	}
	select {
	case r := <-ch:
		if r.err != nil {
			if ctx.Err() != nil {
				return nil, ctxError(ctx, event, wait)
			}
			return nil, fmt.Errorf("%s: connection lost before the answer arrived (%v): %w", event, r.err, ErrNotConnected)
		}
		return DecodeAck(r.args)
	case <-ctx.Done():
		return nil, ctxError(ctx, event, wait)
	}
}

func ctxError(ctx context.Context, event string, wait time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return protocol.Errorf(protocol.CodeTimeout, "%s: no answer within %s", event, wait.Round(time.Millisecond))
	}
	return fmt.Errorf("%s: %w", event, ctx.Err())
}

// DecodeAck interprets the arguments of an ack: none is a success with a
// JSON null; (bool, x) is the base protocol's tuple of server:join_office —
// true succeeds with x, false fails with x as the message, or with the
// error payload a third value carries (as this project's Server sends);
// otherwise the first argument is the answer, or a *protocol.Error when it
// is an error payload. The answer is returned as it came, never encoded
// again.
func DecodeAck(args []any) (json.RawMessage, error) {
	if len(args) == 0 {
		return json.RawMessage("null"), nil
	}
	first, err := argJSON(args[0])
	if err != nil {
		return nil, err
	}
	if ok, isBool := boolOf(first); isBool && (len(args) == 2 || len(args) == 3) {
		if ok {
			return argJSON(args[1])
		}
		if len(args) == 3 {
			if raw, err := argJSON(args[2]); err == nil {
				if pe, isErr := protocol.DecodeError(raw); isErr {
					return nil, pe
				}
			}
		}
		var msg string
		if raw, err := argJSON(args[1]); err == nil {
			_ = json.Unmarshal(raw, &msg)
		}
		if msg == "" {
			msg = "request refused"
		}
		return nil, protocol.NewError(protocol.CodeBadRequest, msg)
	}
	if mayBeError(first) {
		if pe, ok := protocol.DecodeError(first); ok {
			return nil, pe
		}
	}
	return first, nil
}

// mayBeError reports whether raw is an object with the members an error
// payload has at its top level (code and message, or error). It walks the
// members without decoding them, so a success answer (a page body of
// megabytes) is not decoded, copied or allocated for just to learn that
// it is not an error.
func mayBeError(raw json.RawMessage) bool {
	var code, msg, nested bool
	err := wire.ObjectFields(raw, func(key, _ []byte) bool {
		switch {
		case wire.KeyIs(key, "code"):
			code = true
		case wire.KeyIs(key, "message"):
			msg = true
		case wire.KeyIs(key, "error"):
			nested = true
		}
		return true
	})
	return err == nil && (code && msg || nested)
}

// boolOf reports the value of a JSON true or false.
func boolOf(raw json.RawMessage) (value, ok bool) {
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// argJSON returns an ack argument as JSON: raw as it came from the parser,
// anything else (a value built in process, a binary attachment) encoded.
func argJSON(v any) (json.RawMessage, error) {
	if raw, ok := v.(json.RawMessage); ok {
		return raw, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("ack is not JSON: %w", err)
	}
	return raw, nil
}

// Emit sends event with payload and no ack.
func (c *Conn) Emit(event string, payload any) error {
	body, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("%s: encode payload: %w", event, err)
	}
	s, err := c.current()
	if err != nil {
		return fmt.Errorf("%s: %w", event, err)
	}
	c.emitMu.Lock()
	defer c.emitMu.Unlock()
	if err := s.Emit(event, json.RawMessage(body)); err != nil {
		return fmt.Errorf("%s: %w", event, err)
	}
	return nil
}
