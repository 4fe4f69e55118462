package docserver

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// Start watches the folders New's scan found without walking the tree
// again, and catches up in the background with what changed in between:
// a file written, a file removed and a folder created after New are all
// reflected, and a file written into that new folder afterwards is seen
// (so the new folder is watched).
func TestStartCatchesUpWithChangesSinceNew(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/kept.md", "# Kept\n")
	write("a/removed.md", "# Removed\n")
	s, err := New(dir, Options{Host: testHost, CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	write("a/added.md", "# Added\n")
	write("b/new-folder.md", "# In a folder made after New\n")
	if err := os.Remove(filepath.Join(dir, "a", "removed.md")); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	indexed := func() map[string]bool {
		got := map[string]bool{}
		for _, e := range s.index.snapshot() {
			got[e.rel] = true
		}
		return got
	}
	waitIndex := func(want map[string]bool) {
		t.Helper()
		var got map[string]bool
		if !testutil.WaitUntil(10*time.Second, func() bool {
			got = indexed()
			ok := len(got) == len(want)
			for rel := range want {
				ok = ok && got[rel]
			}
			return ok
		}) {
			t.Fatalf("index %v, want %v", got, want)
		}
	}
	waitIndex(map[string]bool{"a/kept.md": true, "a/added.md": true, "b/new-folder.md": true})
	write("b/later.md", "# Written after Start\n")
	waitIndex(map[string]bool{"a/kept.md": true, "a/added.md": true, "b/new-folder.md": true, "b/later.md": true})
}
