// Package testutil holds helpers shared by tests that run the real
// smcp-browse binary or the npm peers (socket.io-client, the MCP TypeScript
// SDK, server-everything). It is imported only from _test.go files.
package testutil

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
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
// test binary has it) and returns the path of the executable.
func Binary(t testing.TB) string {
	t.Helper()
	root := RepoRoot(t)
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "smcp-browse-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "smcp-browse")
		args := []string{"build", "-o", binPath}
		if raceEnabled {
			args = append(args, "-race")
		}
		args = append(args, "./cmd/smcp-browse")
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("build smcp-browse: %v\n%s", buildErr, buildOut)
	}
	return binPath
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
