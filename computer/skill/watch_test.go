package skill

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWatchSeesNewAndEditedSkills: a SKILL folder added under a watched
// root, then its SKILL.md edited, each lead to a call of onChange (after
// the window), and a rescan then sees the change.
func TestWatchSeesNewAndEditedSkills(t *testing.T) {
	root := t.TempDir()
	changed := make(chan struct{}, 16)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	started := make(chan struct{})
	go func() {
		close(started)
		done <- Watch(ctx, []string{root}, 10*time.Millisecond, slog.New(slog.DiscardHandler), func() { changed <- struct{}{} })
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Watch: %v", err)
		}
	}()
	<-started
	wait := func(what string, check func() bool) {
		t.Helper()
		deadline := time.After(20 * time.Second)
		for {
			select {
			case <-changed:
				if check() {
					return
				}
			case <-deadline:
				t.Fatalf("no change seen after %s", what)
			}
		}
	}
	// The watcher may not be armed yet: make the folder, then touch a file
	// in the root until a change is reported; then let things go quiet.
	dir := filepath.Join(root, "late")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for seen := false; !seen; {
		write(t, filepath.Join(root, "probe"), time.Now().String())
		select {
		case <-changed:
			seen = true
		case <-time.After(200 * time.Millisecond):
		}
	}
	for quiet := false; !quiet; {
		select {
		case <-changed:
		case <-time.After(300 * time.Millisecond):
			quiet = true
		}
	}
	// A SKILL.md written into the folder made after the start is seen
	// only if that folder was added to the watch.
	write(t, filepath.Join(dir, File), "---\ndescription: first\n---\nbody\n")
	wait("a SKILL.md in a new folder", func() bool {
		refs, _ := ScanDirs([]string{root})
		return len(refs) == 1 && refs[0].Description == "first"
	})
	if err := os.WriteFile(filepath.Join(dir, File), []byte("---\ndescription: second\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wait("the edit", func() bool {
		refs, _ := ScanDirs([]string{root})
		return len(refs) == 1 && refs[0].Description == "second"
	})
}
