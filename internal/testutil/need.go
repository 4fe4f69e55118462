package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// Required reports whether a test's requirements must be met here: in CI
// (CI set) and under make test (SMCP_REQUIRE_TOOLS=1), where what make
// test-deps installs is there.
func Required() bool {
	return os.Getenv("CI") != "" || os.Getenv("SMCP_REQUIRE_TOOLS") == "1"
}

// Missing stops a test that cannot run here, saying why: it is skipped,
// except where its requirements must be met (CI, make test), where it
// fails instead of hiding what it checks.
func Missing(t testing.TB, why string) {
	t.Helper()
	if Required() {
		t.Fatal(why)
	}
	t.Skip(why)
}

// installHints says how to get the tools tests need.
var installHints = map[string]string{
	"pdftotext":    "apt-get install poppler-utils (make test-deps installs it as root)",
	"pdftohtml":    "apt-get install poppler-utils (make test-deps installs it as root)",
	"script":       "apt-get install bsdutils (util-linux's script(1))",
	"tmux":         "apt-get install tmux",
	"redis-server": "apt-get install redis-server (make redis-deps installs it as root)",
	"node":         "install Node.js >= 20 and run make node-deps",
}

// Need returns the path of tool, a program the test cannot do without.
// When it is missing, the test stops through Missing, saying how to
// install it.
func Need(t testing.TB, tool string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err == nil {
		return p
	}
	hint := installHints[tool]
	if hint == "" {
		hint = "install it"
	}
	Missing(t, fmt.Sprintf("%s is needed and not installed (%s)", tool, hint))
	return ""
}

// NeedProc stops (through Missing) a test that reads /proc, on a system
// without one. Where /proc exists, what the test looks for in it must be
// there: a missing process is a failure, not a skip.
func NeedProc(t testing.TB) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		Missing(t, "this system has no /proc: "+err.Error())
	}
}
