package server

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/sio/wire"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// TestFrameRoundTrip: requests and answers cross nodes with their fields
// and raw JSON bodies as they were (names with any bytes, an empty
// payload, errors encoded as their payload); the JSON frames of older
// nodes are still read.
func TestFrameRoundTrip(t *testing.T) {
	req := frame{Kind: "q", ID: 1 << 40, From: "node-a", SID: "s1", Office: "o \n\"1\"", Computer: "pc\x00é",
		Event: protocol.EventGetFinder, Timeout: 30 * time.Second, Payload: json.RawMessage(`{"computer":"pc","q":"é\u2028"}`)}
	got, err := parseFrame(appendRequest(nil, &req))
	if err != nil || !reflect.DeepEqual(got, req) {
		t.Fatalf("request %+v (%v), want %+v", got, err, req)
	}
	empty := req
	empty.Payload = nil
	if got, err := parseFrame(appendRequest(nil, &empty)); err != nil || len(got.Payload) != 0 || got.Event != req.Event {
		t.Fatalf("request without payload: %+v (%v)", got, err)
	}
	e := protocol.Errorf(protocol.CodeNotFound, "computer 'pc' disconnected")
	ans, err := parseFrame(appendAnswer(nil, 7, false, []json.RawMessage{json.RawMessage(`{"documents":[]}`), wire.AppendJSON(nil, e)}))
	want := frame{Kind: "r", ID: 7, Args: []json.RawMessage{json.RawMessage(`{"documents":[]}`), json.RawMessage(`{"code":404,"message":"computer 'pc' disconnected"}`)}}
	if err != nil || !reflect.DeepEqual(ans, want) {
		t.Fatalf("answer %+v (%v), want %+v", ans, err, want)
	}
	if stale, err := parseFrame(appendAnswer(nil, 8, true, nil)); err != nil || !stale.Stale || stale.ID != 8 || len(stale.Args) != 0 {
		t.Fatalf("stale answer %+v (%v)", stale, err)
	}
	old, _ := json.Marshal(frame{Kind: "r", ID: 9, Args: []json.RawMessage{json.RawMessage(`[1]`)}})
	if got, err := parseFrame(old); err != nil || got.Kind != "r" || got.ID != 9 || string(got.Args[0]) != "[1]" {
		t.Fatalf("JSON frame %+v (%v)", got, err)
	}
}

// FuzzParseFrame: any bytes from Redis decode to a frame or an error,
// never a panic or a field longer than the input.
func FuzzParseFrame(f *testing.F) {
	f.Add(appendRequest(nil, &frame{ID: 3, From: "n", SID: "s", Office: "o", Computer: "c", Event: "e", Payload: json.RawMessage(`{}`)}))
	f.Add(appendAnswer(nil, 3, false, []json.RawMessage{json.RawMessage(`{"a":1}`)}))
	f.Add([]byte(`{"k":"r","id":1,"args":[{}]}`))
	f.Add([]byte{frameAnswer, 1, 0, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, raw []byte) {
		fr, err := parseFrame(raw)
		if err != nil {
			return
		}
		n := len(fr.Payload) + len(fr.From) + len(fr.SID) + len(fr.Office) + len(fr.Computer) + len(fr.Event)
		for _, a := range fr.Args {
			n += len(a)
		}
		if raw[0] != '{' && n > len(raw) {
			t.Fatalf("fields of %d bytes out of a %d-byte frame", n, len(raw))
		}
	})
}
