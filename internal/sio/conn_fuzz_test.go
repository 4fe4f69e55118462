package sio

import (
	"encoding/json"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// FuzzDecodeAck checks that any ack decodes to valid JSON or a protocol
// error, without panicking.
func FuzzDecodeAck(f *testing.F) {
	for _, s := range []string{
		`[]`, `[true,null]`, `[false,"full"]`, `[false,"taken",{"code":4105,"message":"taken"}]`, `[{"code":4101,"message":"x"}]`, `[{"error":{"code":404,"message":"m"}}]`,
		`[{"code":1.5,"message":"m"}]`, `[{"code":-3,"message":"m"}]`, `[{"error":{"error":{"code":400,"message":"deep"}}}]`, `[1,2,3]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var args []any
		if json.Unmarshal([]byte(raw), &args) != nil {
			return
		}
		out, err := DecodeAck(args)
		if err != nil {
			if protocol.CodeOf(err) == 0 {
				t.Fatalf("%s: error without a code: %v", raw, err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%s: invalid JSON %s", raw, out)
		}
	})
}
