package sio

import (
	"encoding/json"
	"testing"
)

// TestMayBeError: only objects with an error payload's top-level members
// are decoded as a possible error.
func TestMayBeError(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"code":4201,"message":"x"}`:                 true,
		`{"error":{"code":1,"message":"m"}}`:          true,
		`{"contents":[{"code":1,"message":"inner"}]}`: false,
		`{"code":1}`: false,
		`[1]`:        false,
		`"code"`:     false,
	} {
		if got := mayBeError(json.RawMessage(raw)); got != want {
			t.Errorf("mayBeError(%s) = %v", raw, got)
		}
	}
}
