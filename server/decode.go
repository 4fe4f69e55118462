package server

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/smcp-browse/smcp-browse/internal/sio/wire"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// decoder checks and decodes request payloads no bigger than maxBytes
// (Options.MaxRequestBytes).
type decoder struct{ maxBytes int }

// decode checks req's payload against the shape of out: it must be a JSON
// object no bigger than MaxRequestBytes whose fields (those out has) have
// the right types. Fields out does not name are not decoded.
func (d decoder) decode(req *request, out any) *protocol.Error {
	raw, perr := d.object(req)
	if perr != nil {
		return perr
	}
	if err := json.Unmarshal(raw, out); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return protocol.Errorf(protocol.CodeBadRequest, "%s: field %q must be %s, got %s", clip(req.event), te.Field, te.Type.Kind(), te.Value)
		}
		return protocol.Errorf(protocol.CodeBadRequest, "%s: malformed payload: %v", clip(req.event), err)
	}
	return nil
}

// object returns req's payload if it is a JSON object no bigger than
// MaxRequestBytes, and a 400 saying what it is otherwise.
func (d decoder) object(req *request) (json.RawMessage, *protocol.Error) {
	raw, ok := req.payload.(json.RawMessage)
	if !ok {
		return nil, protocol.Errorf(protocol.CodeBadRequest, "%s: payload must be a JSON object, got %s", clip(req.event), kindOf(req.payload))
	}
	if k := kindOf(raw); k != "an object" {
		return nil, protocol.Errorf(protocol.CodeBadRequest, "%s: payload must be a JSON object, got %s", clip(req.event), k)
	}
	if len(raw) > d.maxBytes {
		return nil, protocol.Errorf(protocol.CodeBadRequest, "%s: payload too large (%d bytes, limit %d)", clip(req.event), len(raw), d.maxBytes)
	}
	return raw, nil
}

// decodeFields is decode for the routing fields of a client:* request: the
// payload's other fields are left unread.
func (d decoder) decodeFields(req *request, fields []wire.Field) *protocol.Error {
	raw, perr := d.object(req)
	if perr != nil {
		return perr
	}
	if err := wire.DecodeFields(raw, fields); err != nil {
		return protocol.Errorf(protocol.CodeBadRequest, "%s: %v", clip(req.event), err)
	}
	return nil
}

// kindOf names the JSON kind of a payload for error messages.
func kindOf(v any) string {
	raw, ok := v.(json.RawMessage)
	if !ok {
		if v == nil {
			return "nothing"
		}
		return "binary data"
	}
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "nothing"
	}
	return "a number"
}
