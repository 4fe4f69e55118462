package main

import (
	"bufio"
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
	cmd := exec.Command(testutil.Binary(t), "server", "--listen", "127.0.0.1:0", "--log-level", "error")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr testutil.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	listening := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		listening <- sc.Scan() && strings.Contains(sc.Text(), "listening on")
		for sc.Scan() {
		}
	}()
	select {
	case ok := <-listening:
		if !ok {
			t.Fatalf("the server did not start; stderr:\n%s", stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not start within 30 s")
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if err := cmd.Process.Signal(syscall.SIGQUIT); err != nil {
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
