package docserver

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime(t testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Skipf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// The watcher applied a batch of changes by looping over every indexed
// file for every changed path: one line appended to each of 55,000 files
// kept a core busy for 113 s. A batch now costs about its size (plus one
// pass over the index). This applies a batch naming each of 20,000 files,
// as the watcher does after they all changed, and reports its CPU time.
func TestWatcherBatchScalesWithItsSize(t *testing.T) {
	sizeTests.Start(t)
	const n = 20_000
	dir := t.TempDir()
	for i := range n {
		sub := filepath.Join(dir, fmt.Sprintf("d%02d", i%50))
		if i < 50 {
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%05d.txt", i)), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(dir, Options{Host: testHost})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w := &watcher{s: s}
	changed := map[string]bool{}
	for _, e := range s.index.snapshot() {
		changed[e.rel] = true
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(e.rel)), []byte("x\ny\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(changed) != n {
		t.Fatalf("%d files indexed", len(changed))
	}
	// A removed directory is one path standing for many files.
	if err := os.RemoveAll(filepath.Join(dir, "d07")); err != nil {
		t.Fatal(err)
	}
	changed["d07"] = true
	before := cpuTime(t)
	w.apply(changed)
	used := cpuTime(t) - before
	t.Logf("applying %d changed paths over %d files took %s of CPU", len(changed), n, used)
	if got := len(s.index.snapshot()); got != n-n/50 {
		t.Errorf("%d documents after the batch, want %d", got, n-n/50)
	}
	for _, e := range s.index.snapshot() {
		if e.size != 4 {
			t.Fatalf("%s: size %d after the change", e.rel, e.size)
		}
	}
	// Quadratic work is about 400 million path comparisons here (over
	// 10 s); the bound is generous for a loaded machine.
	if used > 8*time.Second {
		t.Errorf("a batch of %d paths took %s of CPU", n, used)
	}
}
