package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

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

// TestSIGHUPRemovesTheDemoCorpus: closing the terminal (SIGHUP) stops the
// browser like q does: the demo's extracted corpus is removed. The browser
// runs in a pseudo-terminal made by script(1).
func TestSIGHUPRemovesTheDemoCorpus(t *testing.T) {
	scriptBin := testutil.Need(t, "script") // gives the browser a terminal
	bin := testutil.Binary(t)
	tmp := t.TempDir()
	cmd := exec.Command(scriptBin, "-qfec", bin+" --demo", "/dev/null")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "XDG_STATE_HOME="+t.TempDir(), "TERM=xterm-256color",
		"SMCP_SERVER=", "SMCP_OFFICE=", "SMCP_TOKEN=")
	out := &testutil.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	if !testutil.WaitUntil(60*time.Second, func() bool { return strings.Contains(ansi.Strip(out.String()), "of 12") }) {
		t.Fatalf("the browser did not show the catalog; output:\n%.3000s", ansi.Strip(out.String()))
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "smcp-browse-demo-*"))
	if len(left) != 1 {
		t.Fatalf("demo folders while running: %v", left)
	}
	pid := descendant(t, cmd.Process.Pid, bin)
	if err := syscall.Kill(pid, syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatal("still running 30 s after SIGHUP")
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "smcp-browse-demo-*")); len(left) != 0 {
		t.Fatalf("SIGHUP left the demo corpus behind: %v", left)
	}
}

// descendant returns the pid of the process under root (children first)
// whose executable is exe.
func descendant(t *testing.T, root int, exe string) int {
	t.Helper()
	testutil.NeedProc(t)
	found := 0
	if testutil.WaitUntil(10*time.Second, func() bool {
		queue := []int{root}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			if target, err := os.Readlink("/proc/" + strconv.Itoa(p) + "/exe"); err == nil && target == exe {
				found = p
				return true
			}
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/task/" + strconv.Itoa(p) + "/children")
			for _, f := range strings.Fields(string(b)) {
				if c, err := strconv.Atoi(f); err == nil {
					queue = append(queue, c)
				}
			}
		}
		return false
	}) {
		return found
	}
	t.Fatalf("no %s process under %d", exe, root)
	return 0
}
