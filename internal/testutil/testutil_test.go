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

// TestBinaryIsLinkedOnce: the packages of a test run share one build. A
// second build of an unchanged checkout, here two at once as from two
// test processes, leaves the executable as it is (the same file, not a
// relinked copy), so that only the first package pays for linking it.
func TestBinaryIsLinkedOnce(t *testing.T) {
	first := Binary(t)
	st, err := os.Stat(first)
	if err != nil {
		t.Fatal(err)
	}
	type built struct {
		path string
		out  []byte
		err  error
	}
	done := make(chan built, 2)
	for range 2 {
		go func() {
			p, out, err := buildBinary(RepoRoot(t))
			done <- built{p, out, err}
		}()
	}
	for range 2 {
		b := <-done
		if b.err != nil {
			t.Fatalf("build again: %v\n%s", b.err, b.out)
		}
		again, err := os.Stat(b.path)
		if err != nil {
			t.Fatal(err)
		}
		if b.path != first || !os.SameFile(st, again) {
			t.Errorf("an up-to-date binary was replaced: %s (%v) after %s (%v)", b.path, again.ModTime(), first, st.ModTime())
		}
	}
}
