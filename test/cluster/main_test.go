package cluster_test

import (
	"os"
	"testing"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// TestMain runs every test of the package at once: they wait on leases,
// Redis restarts and child processes (a few seconds of CPU in all, half a
// minute of waiting when they run two at a time).
func TestMain(m *testing.M) {
	testutil.ParallelWaits(8)
	os.Exit(m.Run())
}
