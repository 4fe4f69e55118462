package server

import (
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// FuzzCheckVersion checks that any a2c_version is either admitted or
// refused with 400 / 4008, never anything else.
func FuzzCheckVersion(f *testing.F) {
	for _, v := range []string{"0.2.0", "0.4.0", "0.1.9", "1.0.0", "", "x", "0.2", "0.2.0-dev", "00.02.00", "0.2.0.1", "9999999999.0.0"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		r := httptest.NewRequest("GET", "/socket.io/?EIO=4&transport=polling&a2c_version="+url.QueryEscape(v), nil)
		sv, _ := protocol.ParseVersion(protocol.Version)
		e := checkVersion(r, sv)
		if e == nil {
			pv, err := protocol.ParseVersion(v)
			if err != nil || !pv.CompatibleWith(sv) {
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
		if !json.Valid([]byte(raw)) {
			return
		}
		req := &request{event: protocol.EventToolCall, payload: json.RawMessage(raw), base: slog.New(slog.DiscardHandler)}
		if e := s.decode(req, &routed{}); e != nil && e.Code != protocol.CodeBadRequest {
			t.Fatalf("%s: code %d", raw, e.Code)
		}
		req.event = protocol.EventJoinOffice
		if e := s.decode(req, &protocol.EnterOfficeReq{}); e != nil && e.Code != protocol.CodeBadRequest {
			t.Fatalf("%s: code %d", raw, e.Code)
		}
	})
}
