package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// TestDescribeInteropErrors checks the lines shown when a catalog or a
// document is opened through peers built on the official a2c-smcp SDK: its
// Computer has no Finder (our Server answers 404 "not supported"), its
// Server does not route Finder requests (the agent's ErrNotRouted).
func TestDescribeInteropErrors(t *testing.T) {
	unsupported := func(event string) error {
		return protocol.Errorf(protocol.CodeNotFound, "%s is not supported by computer 'pyc' (it answered with an empty acknowledgement)", event)
	}
	cases := []struct {
		err  error
		op   operation
		want string
	}{
		{unsupported("client:get_finder"), opFinder, "404 · not supported by this computer — client:get_finder is not supported by computer 'pyc'"},
		{unsupported("client:read_resource"), opDocument, "404 · not supported by this computer — client:read_resource is not supported by computer 'pyc'"},
		{fmt.Errorf("this server does not route Finder requests (client:get_finder): it answered with an empty acknowledgement instead of asking the computer: %w", agent.ErrNotRouted),
			opFinder, "this server does not route Finder requests (client:get_finder)"},
	}
	for _, tc := range cases {
		if got := describeError(tc.err, tc.op); !strings.HasPrefix(got, tc.want) {
			t.Errorf("describeError(%v) = %q, want it to start with %q", tc.err, got, tc.want)
		}
	}
}
