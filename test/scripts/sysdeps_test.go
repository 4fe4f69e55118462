// Package scripts tests the project's shell scripts as make runs them.
package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeBin makes a PATH of the real tools sysdeps.sh uses, without the
// tools it checks for, plus fake id and apt-get: id prints uid, apt-get
// records its arguments in the returned log.
func fakeBin(t *testing.T, uid string) (dir, log string) {
	t.Helper()
	dir = t.TempDir()
	log = filepath.Join(dir, "apt-get.log")
	for _, tool := range []string{"bash", "sort", "grep"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!"+filepath.Join(dir, "bash")+"\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("id", "echo "+uid+"\n")
	write("apt-get", `echo "$*" >>`+log+"\n")
	return dir, log
}

func runSysdeps(t *testing.T, path string, suites ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(filepath.Join(path, "bash"), append([]string{"../../scripts/sysdeps.sh"}, suites...)...)
	cmd.Env = []string{"PATH=" + path, "HOME=" + t.TempDir()}
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("sysdeps.sh %v: %v in %v\n%s", suites, err, time.Since(start), out)
	return string(out), err
}

// Not root: it stops at once, naming the exact command, and installs nothing.
func TestSysdepsNotRootSaysTheCommand(t *testing.T) {
	path, log := fakeBin(t, "1000")
	out, err := runSysdeps(t, path, "test", "e2e")
	if err == nil {
		t.Fatal("sysdeps.sh exited 0 with pdftotext, redis-server and tmux missing")
	}
	for _, want := range []string{"sudo apt-get install -y ", "poppler-utils", "redis-server", "tmux", "bsdutils"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if _, err := os.Stat(log); err == nil {
		t.Error("apt-get ran without root")
	}
}

// Root, with or without CI: apt-get installs every missing package in one
// call; what is still missing afterwards is an error, not a skip later.
func TestSysdepsRootInstallsWithoutCI(t *testing.T) {
	path, log := fakeBin(t, "0")
	out, err := runSysdeps(t, path, "test")
	data, rerr := os.ReadFile(log)
	if rerr != nil {
		t.Fatalf("apt-get never ran as root: %v", rerr)
	}
	calls := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(calls) != 2 || calls[0] != "update -qq" || !strings.HasPrefix(calls[1], "install -y -qq --no-install-recommends --reinstall ") {
		t.Fatalf("apt-get calls = %q, want update then one install", calls)
	}
	for _, pkg := range []string{"poppler-utils", "redis-server", "bsdutils"} {
		if !strings.Contains(calls[1], " "+pkg) {
			t.Errorf("install %q lacks %s", calls[1], pkg)
		}
	}
	// The fake apt-get installs nothing, so the tools are still missing.
	if err == nil || !strings.Contains(out, "still missing after apt-get install") {
		t.Errorf("a failed install was not an error: %v", err)
	}
}

// Nothing missing: it exits 0 and says nothing.
func TestSysdepsNothingMissing(t *testing.T) {
	path, log := fakeBin(t, "1000")
	if err := os.WriteFile(filepath.Join(path, "tmux"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := runSysdeps(t, path, "e2e")
	if err != nil || out != "" {
		t.Errorf("with tmux present: %v, %q", err, out)
	}
	if _, err := os.Stat(log); err == nil {
		t.Error("apt-get ran with nothing missing")
	}
}
