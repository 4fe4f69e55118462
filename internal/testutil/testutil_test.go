package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBinaryHasOnePlace: every test process builds the binary to the same
// path (one file per flavour, replaced), not to a new temporary folder
// each time: test runs used to leave a ~50 MB binary per package behind.
func TestBinaryHasOnePlace(t *testing.T) {
	p := Binary(t)
	dir, err := binDir(RepoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "smcp-browse")
	if raceEnabled {
		want += "-race"
	}
	if p != want {
		t.Fatalf("binary at %s, want %s", p, want)
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode()&0o111 == 0 {
		t.Fatalf("not an executable: %v %v", st, err)
	}
}

// TestCheckoutsDoNotShareABinary: two checkouts of the project tested at
// once (worktrees, a second clone) must not run each other's binary.
func TestCheckoutsDoNotShareABinary(t *testing.T) {
	a, err := binDir("/src/one/smcp-browse")
	if err != nil {
		t.Fatal(err)
	}
	b, err := binDir("/src/two/smcp-browse")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(a); os.Remove(b) })
	if a == b {
		t.Fatalf("both checkouts build into %s", a)
	}
}
