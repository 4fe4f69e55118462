package server_test

import (
	"os"
	"testing"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// TestMain lets the tests that mostly wait (held requests, timeouts, a
// paused Redis), and both topologies of each, run at once.
func TestMain(m *testing.M) {
	testutil.ParallelWaits(6)
	os.Exit(m.Run())
}
