package docserver

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSearchIndexAfterKill9: serve-docs killed with SIGKILL in the middle
// of building its index leaves an index that the next start opens (or
// builds again), and no search, during or after the rebuild, answers
// anything but the truth.
func TestSearchIndexAfterKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an index of 2,000 files twice")
	}
	dir := t.TempDir()
	const files = 2000
	filler := strings.Repeat("lorem ipsum dolor sit amet consectetur adipiscing elit ", 40)
	for i := range files {
		body := fmt.Sprintf("# Note %d\n\nmarker%04d group%d common\n\n%s\n", i, i, i%7, filler)
		writeFile(t, filepath.Join(dir, fmt.Sprintf("d%02d", i%30), fmt.Sprintf("n%04d.md", i)), body)
	}
	cache := t.TempDir()
	logFile := filepath.Join(t.TempDir(), "serve-docs.log")

	env, args := []string{"XDG_CACHE_HOME=" + cache}, []string{"--log-file", logFile, "--log-level", "info"}
	c, proc := startServeDocs(t, dir, env, args...)
	callSearch(t, c, map[string]any{"query": "common", "maxMatches": 1})
	deadline := time.Now().Add(3 * time.Minute)
	var at IndexStatus
	for {
		res, _ := callSearch(t, c, map[string]any{"query": "marker0001"})
		at = res.Index
		if at.State == IndexBuilding && at.Indexed > files/10 && at.Indexed < files*8/10 {
			break
		}
		if at.Indexed >= files*8/10 || time.Now().After(deadline) {
			t.Fatalf("never caught the build in the middle: %+v", at)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	proc.Wait()
	t.Logf("killed with SIGKILL at %d/%d files indexed", at.Indexed, at.Total)

	c2, proc2 := startServeDocs(t, dir, env, args...)
	defer proc2.Kill()
	check := func(when string) IndexStatus {
		t.Helper()
		matches, res := searchAll(t, c2, map[string]any{"query": "group3 common", "maxMatches": 500})
		var got []string
		for _, m := range matches {
			got = append(got, m.Path)
		}
		slices.Sort(got)
		var want []string
		for i := 3; i < files; i += 7 {
			want = append(want, fmt.Sprintf("d%02d/n%04d.md", i%30, i))
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("%s (index %+v): %d pages found, want %d", when, res.Index, len(got), len(want))
		}
		one, _ := searchAll(t, c2, map[string]any{"query": "marker0042"})
		if len(one) != 1 || one[0].Path != "d12/n0042.md" {
			t.Fatalf("%s: marker0042 found in %+v", when, one)
		}
		return res.Index
	}
	probe, _ := callSearch(t, c2, map[string]any{"query": "marker0001", "maxMatches": 1, "maxDocuments": 1})
	t.Logf("the restarted server opened an index of %d/%d files", probe.Index.Indexed, probe.Index.Total)
	check("right after the restart")
	// Each check scans what is not indexed yet, competing with the
	// rebuild: check every second, and give the rebuild time (the race
	// detector makes it several times slower).
	rebuilt := time.Now().Add(10 * time.Minute)
	for {
		st := check("while the index is rebuilt")
		if st.State == IndexReady && st.Indexed == st.Total {
			break
		}
		if time.Now().After(rebuilt) {
			t.Fatalf("index not rebuilt: %+v", st)
		}
		time.Sleep(time.Second)
	}
	log, _ := os.ReadFile(logFile)
	if strings.Contains(string(log), "panic") {
		t.Errorf("serve-docs panicked:\n%s", log)
	}
	if strings.Contains(string(log), "does not open") {
		t.Log("the killed index did not open: it was built again")
	} else if probe.Index.Indexed == 0 {
		t.Log("the killed index opened, empty (nothing had been persisted)")
	}
}
