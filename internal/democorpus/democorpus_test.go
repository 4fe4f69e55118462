package democorpus

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// contents lists the regular files of fsys with their contents.
func contents(t *testing.T, fsys fs.FS) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		out[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEmbedsTheCorpus checks that the embedded corpus is testdata/corpus,
// file for file.
func TestEmbedsTheCorpus(t *testing.T) {
	want := contents(t, os.DirFS(filepath.Join(testutil.RepoRoot(t), "testdata", "corpus")))
	got := contents(t, FS())
	if len(want) == 0 {
		t.Fatal("testdata/corpus is empty")
	}
	for p, b := range want {
		if g, ok := got[p]; !ok || !bytes.Equal(g, b) {
			t.Errorf("%s: embedded %v, same bytes %v", p, ok, bytes.Equal(g, b))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d files embedded, %d in testdata/corpus", len(got), len(want))
	}
}

func TestExtract(t *testing.T) {
	dir := t.TempDir()
	n, err := Extract(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := contents(t, FS())
	if n != len(want) {
		t.Errorf("Extract wrote %d files, the corpus has %d", n, len(want))
	}
	got := contents(t, os.DirFS(dir))
	keys := func(m map[string][]byte) []string {
		var k []string
		for p := range m {
			k = append(k, p)
		}
		slices.Sort(k)
		return k
	}
	if !slices.Equal(keys(got), keys(want)) {
		t.Fatalf("extracted %v, want %v", keys(got), keys(want))
	}
	for p, b := range want {
		if !bytes.Equal(got[p], b) {
			t.Errorf("%s: extracted bytes differ", p)
		}
		st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		if !st.ModTime().Equal(Modified()) {
			t.Errorf("%s: mtime %v, want %v", p, st.ModTime(), Modified())
		}
	}
	// Extracting again over the same folder replaces, never fails.
	if _, err := Extract(dir); err != nil {
		t.Errorf("second Extract: %v", err)
	}
}

func TestExtractIntoUnwritableFolder(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Extract(file); err == nil {
		t.Fatal("Extract into a file: no error")
	}
}
