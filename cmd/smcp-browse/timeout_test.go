package main

import (
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/docserver"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// A 408 says which flag raises the deadline it hit: the command's own
// --timeout (always with --demo, whose Server and Computer wait longer
// than the agent), or the --request-timeout of the Server or Computer that
// gave up. It used to print "context deadline exceeded" alone.
func TestTimeoutErrorsNameTheFlag(t *testing.T) {
	for _, tc := range []struct {
		demo bool
		msg  string
		want string
	}{
		{false, "client:read_resource: no answer within 1m30s", "raise --timeout, now 1m30s"},
		{true, "client:read_resource: no answer within 1m30s", "raise --timeout, now 1m30s"},
		{false, "computer 'laptop' did not answer client:read_resource within 30s", "the Server gave up waiting for the computer: its --request-timeout"},
		{true, "computer 'laptop' did not answer client:read_resource within 30s", "raise --timeout"},
		{false, "MCP server docs did not answer the read of dpe://h/d in time", "the computer's --request-timeout"},
		{false, "the catalog is not settled after 3s (…): raise --timeout to wait longer", "raise --timeout to wait longer"},
	} {
		cmd := newCatCmd()
		args := []string{"--timeout", "90s"}
		if tc.demo {
			args = append(args, "--demo")
		}
		if err := cmd.ParseFlags(args); err != nil {
			t.Fatal(err)
		}
		got := withTimeoutAdvice(protocol.NewError(protocol.CodeTimeout, tc.msg), cmd).Message
		if !strings.Contains(got, tc.want) || strings.Count(got, "--timeout")+strings.Count(got, "--request-timeout") != 1 {
			t.Errorf("demo=%v %q → %q; want it to say %q once", tc.demo, tc.msg, got, tc.want)
		}
	}
	if defaultTimeout < docserver.DefaultParseTimeout+10*time.Second {
		t.Errorf("the default --timeout (%s) does not cover the document server's 60 s bound on one read", defaultTimeout)
	}
}
