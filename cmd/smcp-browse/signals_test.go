package main

import (
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// TestSIGQUITDumpsGoroutines: Ctrl-\ keeps its Go meaning — dump every
// goroutine and exit 2 — although the Socket.IO client library installs
// its own handler for SIGINT, SIGTERM and SIGQUIT in every binary.
func TestSIGQUITDumpsGoroutines(t *testing.T) {
	proc := testutil.StartServer(t, "--log-level", "error")
	stderr, exited := proc.Stderr, proc.Exited
	if err := proc.Cmd.Process.Signal(syscall.SIGQUIT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "SIGQUIT: quit") {
			t.Fatalf("after SIGQUIT: %v; stderr:\n%.2000s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("still running 20 s after SIGQUIT")
	}
}
