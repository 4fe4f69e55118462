package server

import (
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// FuzzLenientDecoder feeds arbitrary frames to the Socket.IO decoder: it
// never panics or fails, and a valid packet after the junk still decodes.
func FuzzLenientDecoder(f *testing.F) {
	for _, s := range []string{
		`42/smcp,1["client:get_tools",{"computer":"pc"}]`, `42/smcp,["x",{`, `451-/smcp,2["x",{"_placeholder":true,"num":0}]`,
		`49garbage`, `0/smcp,{}`, `3/smcp,7[]`, `461-/smcp,1[{"_placeholder":true,"num":5}]`, ``, `4`, `299999999999999999999999[]`,
	} {
		f.Add(s, []byte{1, 2, 3})
	}
	f.Fuzz(func(t *testing.T, text string, bin []byte) {
		d := lenientParser{log: slog.New(slog.DiscardHandler)}.NewDecoder()
		var n int
		_ = d.On("decoded", func(...any) { n++ })
		for _, frame := range []any{text, bin, text} {
			if err := d.Add(frame); err != nil {
				t.Fatalf("Add returned %v", err)
			}
		}
		before := n
		if err := d.Add(`2/smcp,["server:list_room",{}]`); err != nil {
			t.Fatal(err)
		}
		if n != before+1 {
			t.Fatalf("a valid packet after %q did not decode", text)
		}
	})
}

// FuzzCheckVersion checks that any a2c_version is either admitted or
// refused with 400 / 4008, never anything else.
func FuzzCheckVersion(f *testing.F) {
	for _, v := range []string{"0.2.0", "0.4.0", "0.1.9", "1.0.0", "", "x", "0.2", "0.2.0-dev", "00.02.00", "0.2.0.1", "9999999999.0.0"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		r := httptest.NewRequest("GET", "/socket.io/?EIO=4&transport=polling&a2c_version="+url.QueryEscape(v), nil)
		e := checkVersion(r)
		if e == nil {
			pv, err := protocol.ParseVersion(v)
			if err != nil || !Supported(pv) {
				t.Fatalf("%q admitted", v)
			}
			return
		}
		if e.Code != protocol.CodeBadRequest && e.Code != protocol.CodeVersionMismatch {
			t.Fatalf("%q refused with %d", v, e.Code)
		}
		if _, err := json.Marshal(e); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzDecodeRequest checks payload validation against every request shape:
// no panic, and either success or a 400.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"computer":"pc","req_id":"1"}`, `{"computer":5}`, `"x"`, `[1,2]`, `null`, `{"keywords":"a"}`,
		`{"timeout":"x","tool_name":"t","computer":"pc"}`, `{"offset":1e400}`, `{"desktop_size":-1}`,
	} {
		f.Add(s)
	}
	s := New(Options{MaxRequestBytes: 1 << 10})
	defer s.Close()
	f.Fuzz(func(t *testing.T, raw string) {
		var payload any
		if json.Unmarshal([]byte(raw), &payload) != nil {
			return
		}
		for _, ev := range append(protocol.ClientEvents(), protocol.EventJoinOffice) {
			req := &request{event: ev, payload: payload, log: slog.New(slog.DiscardHandler)}
			if e := s.decode(req, shapeOf(ev)); e != nil && e.Code != protocol.CodeBadRequest {
				t.Fatalf("%s %s: code %d", ev, raw, e.Code)
			}
		}
		if n := payloadSize(payload, 1<<10); n < 0 {
			t.Fatalf("size %d", n)
		}
	})
}
