package main

import (
	"bytes"
	"testing"
)

// The line shown while the browser starts says what it waits for, and is
// written only to a terminal (never into a pipe or a log).
func TestStartingLine(t *testing.T) {
	for _, tc := range []struct {
		cf   connFlags
		want string
	}{
		{connFlags{demo: true}, "smcp-browse: starting the demo…"},
		{connFlags{demo: true, docs: "/srv/docs"}, "smcp-browse: starting the demo; the document server reads /srv/docs…"},
		{connFlags{server: "http://10.0.0.5:9000"}, "smcp-browse: connecting to http://10.0.0.5:9000…"},
	} {
		if got := startingText(&tc.cf); got != tc.want {
			t.Errorf("startingText = %q, want %q", got, tc.want)
		}
	}
	var buf bytes.Buffer
	startingLine(&buf, &connFlags{demo: true})()
	if buf.Len() != 0 {
		t.Errorf("wrote %q to a non-terminal", buf.String())
	}
}
