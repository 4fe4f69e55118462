package testutil

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	// The -update flag is golden's (teatest registers it through this
	// package, and a second flag of that name would panic at start):
	// importing it here makes it registered before any Golden call, in
	// every test binary, with or without teatest.
	_ "github.com/charmbracelet/x/exp/golden"
)

// updating reports whether the test binary runs with -update.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// Golden compares got with the golden file at path (relative to the test's
// package directory) byte for byte. With -update (go test ./pkg -run
// TestX -update) it writes got there instead, making the directories it
// needs, and the test passes.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file: %v (run the test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file, first at line %d (run the test with -update after checking the change):\n--- got\n%s\n--- want\n%s",
			path, firstDiffLine(got, want), clip(got), clip(want))
	}
}

// firstDiffLine is the 1-based number of the first line where a and b
// differ.
func firstDiffLine(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return bytes.Count(a[:i], []byte("\n")) + 1
}

// clip shortens b for a failure message.
func clip(b []byte) string {
	const most = 4000
	if len(b) > most {
		return fmt.Sprintf("%s\n… (%d more bytes)", b[:most], len(b)-most)
	}
	return string(b)
}
