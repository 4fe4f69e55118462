// Package testutil holds helpers shared by tests that run the real
// smcp-browse binary or the npm peers (socket.io-client, the MCP TypeScript
// SDK, server-everything). It is imported only from _test.go files.
package testutil

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// RepoRoot returns the module root (the directory holding go.mod).
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("getwd: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildOut  []byte
)

// Binary builds cmd/smcp-browse once per test process (with -race when the
// test binary has it) and returns the path of the executable. Every test
// process uses the same path (in the user's cache folder), replacing the
// file atomically, so that test runs leave one binary per flavour behind
// rather than one per package and run in the temporary folder.
func Binary(t testing.TB) string {
	t.Helper()
	root := RepoRoot(t)
	buildOnce.Do(func() {
		dir, err := binDir(root)
		if err != nil {
			buildErr = err
			return
		}
		name := "smcp-browse"
		if raceEnabled {
			name += "-race"
		}
		binPath = filepath.Join(dir, name)
		tmp, err := os.CreateTemp(dir, ".build-*")
		if err != nil {
			buildErr = err
			return
		}
		tmp.Close()
		defer os.Remove(tmp.Name()) // gone after the rename; removed if the build failed
		args := []string{"build", "-o", tmp.Name()}
		if raceEnabled {
			args = append(args, "-race")
		}
		args = append(args, "./cmd/smcp-browse")
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		if buildOut, buildErr = cmd.CombinedOutput(); buildErr != nil {
			return
		}
		buildErr = os.Rename(tmp.Name(), binPath)
	})
	if buildErr != nil {
		t.Fatalf("build smcp-browse: %v\n%s", buildErr, buildOut)
	}
	return binPath
}

// binDir is where Binary builds for the checkout at root: a folder of the
// user's cache folder (or of the temporary one) named after the checkout,
// so that two checkouts tested at once never run each other's binary.
// Build leftovers of processes that died over an hour ago are removed.
func binDir(root string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(base, "smcp-browse-test-bin", hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("test binary folder: %w", err)
	}
	if old, _ := filepath.Glob(filepath.Join(dir, ".build-*")); len(old) > 0 {
		for _, p := range old {
			if st, err := os.Stat(p); err == nil && time.Since(st.ModTime()) > time.Hour {
				_ = os.Remove(p)
			}
		}
	}
	return dir, nil
}

// NodeModules returns test/node/node_modules. When node or the modules are
// missing the test is skipped, unless SMCP_REQUIRE_NODE=1 (set by make test
// and CI), in which case it fails.
func NodeModules(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), "test", "node", "node_modules")
	_, nodeErr := exec.LookPath("node")
	_, modErr := os.Stat(dir)
	if nodeErr == nil && modErr == nil {
		return dir
	}
	msg := "node or test/node/node_modules missing (run make node-deps)"
	if os.Getenv("SMCP_REQUIRE_NODE") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Buffer is a bytes.Buffer that a child process may write to while the
// test reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// ServerProcess is `smcp-browse server` running as a child process.
type ServerProcess struct {
	Cmd    *exec.Cmd
	URL    string       // from the "listening on" line it prints first
	Stderr *Buffer      // its logs
	Exited <-chan error // the result of Wait, once it has exited
}

// serverBanner starts the first line `smcp-browse server` prints.
const serverBanner = "smcp-browse server listening on "

// StartServer runs `smcp-browse server --listen 127.0.0.1:0 args...` and
// waits (up to 30 s) for the URL it prints first; the process is killed
// when the test ends.
func StartServer(t testing.TB, args ...string) *ServerProcess {
	t.Helper()
	cmd := exec.Command(Binary(t), append([]string{"server", "--listen", "127.0.0.1:0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &ServerProcess{Cmd: cmd, Stderr: &Buffer{}}
	cmd.Stderr = p.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	p.Exited = exited
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		line := ""
		if sc.Scan() {
			line = sc.Text()
		}
		first <- line
		for sc.Scan() {
		}
	}()
	select {
	case line := <-first:
		if !strings.HasPrefix(line, serverBanner) {
			t.Fatalf("smcp-browse server: first line %q; stderr:\n%s", line, p.Stderr.String())
		}
		p.URL = strings.TrimPrefix(line, serverBanner)
	case <-time.After(30 * time.Second):
		t.Fatalf("smcp-browse server printed no URL within 30 s; stderr:\n%s", p.Stderr.String())
	}
	return p
}

// GOROOT returns the Go installation's root as `go env GOROOT` reports it
// (Go's own sources and docs are real files nobody here wrote).
func GOROOT(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out))
}
