package docserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// readAllLevel1 lists the folder and reads every document's Level 1, as
// the Computer does to build its catalog.
func readAllLevel1(t *testing.T, s *Server) map[string]protocol.DPEDocument {
	t.Helper()
	c, _ := connect(t, s.InProcessTransport())
	all, _ := listAll(t, c)
	out := map[string]protocol.DPEDocument{}
	for _, r := range all {
		var d protocol.DPEDocument
		readJSON(t, c, r.URI, &d)
		out[r.Meta.AdditionalFields["path"].(string)] = d
	}
	return out
}

// A second start over an unchanged folder re-extracts nothing: listing and
// Level 1 reads come from the on-disk index cache (keyed by path, size
// and modification time). A changed file is extracted again; a corrupt
// cache file is ignored.
func TestSecondStartReextractsNothing(t *testing.T) {
	dir := copyCorpus(t)
	cache := t.TempDir()
	opts := Options{Host: testHost, CacheDir: cache, Logger: testLogger(t)}
	s1, err := New(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	first := readAllLevel1(t, s1)
	if s1.parsesRun.Load() == 0 || s1.peeksRun.Load() == 0 {
		t.Fatalf("first start: %d peeks, %d parses", s1.peeksRun.Load(), s1.parsesRun.Load())
	}
	t.Logf("first start: %d documents, %d peeks, %d parses", len(first), s1.peeksRun.Load(), s1.parsesRun.Load())
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}

	s2, err := New(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	second := readAllLevel1(t, s2)
	if n, m := s2.peeksRun.Load(), s2.parsesRun.Load(); n != 0 || m != 0 {
		t.Errorf("second start over an unchanged folder: %d peeks, %d parses", n, m)
	}
	if len(second) != len(first) {
		t.Fatalf("second start lists %d documents, first %d", len(second), len(first))
	}
	for rel, d := range first {
		if g := second[rel]; g.Title != d.Title || g.PageCount != d.PageCount || g.Summary != d.Summary || strings.Join(g.Keywords, ",") != strings.Join(d.Keywords, ",") {
			t.Errorf("%s: second start %+v, first %+v", rel, g, d)
		}
	}
	// A changed file is extracted again, and only it.
	md := filepath.Join(dir, "reports", "q3-report.md")
	later := fixedTime.Add(time.Hour)
	if err := os.WriteFile(md, []byte("# Changed\n\nNew text.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(md, later, later)
	s2.Close()
	s3, err := New(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	third := readAllLevel1(t, s3)
	if third["reports/q3-report.md"].Title != "Changed" {
		t.Errorf("changed file read as %+v", third["reports/q3-report.md"])
	}
	if n, m := s3.peeksRun.Load(), s3.parsesRun.Load(); n != 1 || m != 1 {
		t.Errorf("after one change: %d peeks, %d parses", n, m)
	}
	s3.Close()

	// A corrupt cache file: the server starts as if it had none.
	files, _ := filepath.Glob(filepath.Join(cache, "*.json"))
	if len(files) != 1 {
		t.Fatalf("cache files: %v", files)
	}
	os.WriteFile(files[0], []byte(`{"version": 2, "entries": {"x": [}`), 0o644)
	s4, err := New(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s4.Close()
	fourth := readAllLevel1(t, s4)
	if len(fourth) != len(first) || s4.parsesRun.Load() == 0 {
		t.Errorf("after a corrupt cache: %d documents, %d parses", len(fourth), s4.parsesRun.Load())
	}
}

// The catalog cache files of folders that are gone (a demo's temporary
// corpus, a deleted folder) are removed when another folder is served from
// the same cache directory, as stale search indexes are; the files of
// folders that still exist, files that cannot be told apart and a save's
// fresh temporary file are kept.
func TestStaleCatalogCachesAreRemoved(t *testing.T) {
	cache := t.TempDir()
	gone, kept := t.TempDir(), t.TempDir()
	for _, d := range []string{gone, kept} {
		if err := os.WriteFile(filepath.Join(d, "notes.md"), []byte("# Notes\n\nText.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := Options{Host: testHost, CacheDir: cache, Logger: testLogger(t)}
	cacheFile := func(root string) string {
		abs, err := filepath.Abs(root)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Join(cache, cacheName(abs, testHost)+".json")
	}
	for _, d := range []string{gone, kept} {
		s, err := New(d, opts)
		if err != nil {
			t.Fatal(err)
		}
		readAllLevel1(t, s)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(cacheFile(d)); err != nil {
			t.Fatalf("no catalog cache written for %s: %v", d, err)
		}
	}
	other := map[string]string{
		"0123456789abcdef01234567.json": "not JSON",                                    // cannot be told: kept
		"89abcdef0123456789abcdef.json": `{"version":5,"entries":{},"root":"/gone/x"}`, // entries first: kept
		".tmp-fresh":                    "{",
		".tmp-old":                      "{",
	}
	for name, body := range other {
		if err := os.WriteFile(filepath.Join(cache, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(filepath.Join(cache, ".tmp-old"), old, old)
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}

	s, err := New(kept, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := s.Start(ctx); err != nil { // the watcher and the search index, which cleans up
		t.Fatal(err)
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	testutil.Eventually(t, 20*time.Second, "the gone folder's catalog cache and the old temporary file removed", func() bool {
		return !exists(cacheFile(gone)) && !exists(filepath.Join(cache, ".tmp-old"))
	})
	for _, p := range []string{cacheFile(kept), filepath.Join(cache, "0123456789abcdef01234567.json"), filepath.Join(cache, "89abcdef0123456789abcdef.json"), filepath.Join(cache, ".tmp-fresh")} {
		if !exists(p) {
			t.Errorf("%s was removed", filepath.Base(p))
		}
	}
}
