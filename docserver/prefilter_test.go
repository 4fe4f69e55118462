package docserver

import (
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
	"github.com/smcp-browse/smcp-browse/docserver/fulltext"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// prefilterLibrary is realLibrary with more real text files nobody here
// wrote: GOROOT/doc (HTML and Markdown), the sources of net/http, the
// Markdown files of the module cache and the npm test peers' READMEs.
func prefilterLibrary(t *testing.T) string {
	t.Helper()
	dir := realLibrary(t)
	goroot := goDir(t, "env", "GOROOT")
	files := map[string]string{}
	for _, pattern := range []string{"doc/*", "src/net/http/*.go", "src/net/http/*/*.go"} {
		matches, _ := filepath.Glob(filepath.Join(goroot, pattern))
		for _, m := range matches {
			if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() {
				rel, _ := filepath.Rel(goroot, m)
				files["goroot/"+rel] = m
			}
		}
	}
	mod := goDir(t, "env", "GOMODCACHE")
	n := 0
	filepath.WalkDir(mod, func(p string, d fs.DirEntry, err error) error {
		if err != nil || n >= 2000 || d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".md") {
			return nil
		}
		rel, _ := filepath.Rel(mod, p)
		files["modcache/"+rel] = p
		n++
		return nil
	})
	// The READMEs of the npm test peers, when make node-deps installed them.
	npm := filepath.Join(testutil.RepoRoot(t), "test", "node", "node_modules")
	filepath.WalkDir(npm, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasPrefix(strings.ToLower(d.Name()), "readme") {
			rel, _ := filepath.Rel(npm, p)
			files["npm/"+rel] = p
		}
		return nil
	})
	copyInto(t, dir, files)
	return dir
}

// TestRawPrefilterKeepsEveryWord: on real files, every word of a text
// format file's extracted text (its pages' bodies and headings, and its
// title) passes the raw-bytes test a scan makes before parsing (so no
// word search skips a file that holds the word), while a word in no file
// fails it for nearly every file (so the test saves the parses).
func TestRawPrefilterKeepsEveryWord(t *testing.T) {
	sizeTests.Start(t) // parses hundreds of files: see sizeTests
	dir := prefilterLibrary(t)
	s, _, _ := startInProcess(t, dir, Options{})
	ctx := context.Background()
	checked, words, kinds := 0, 0, map[extract.Kind]int{}
	rejected := 0
	for _, e := range s.index.snapshot() {
		if !prefilterKind(e.kind) {
			continue
		}
		doc, err := s.wholeDocument(ctx, e, false)
		if err != nil {
			continue // unreadable: scanned as such, not prefiltered away
		}
		terms := map[string]bool{}
		add := func(text string) {
			fulltext.Words(text, func(w fulltext.Word) { terms[w.Term] = true })
		}
		add(extract.SearchForm(doc.Title))
		for _, pg := range doc.Pages {
			pt := textOfPage(pg)
			add(pt.body)
			add(pt.headings)
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(e.rel)))
		if err != nil {
			t.Fatal(err)
		}
		all := make([]string, 0, len(terms))
		for w := range terms {
			all = append(all, w)
		}
		slices.Sort(all)
		if !rawMayHold(e.rel, e.kind, data, all) {
			var missing []string
			for _, w := range all {
				if !rawMayHold(e.rel, e.kind, data, []string{w}) {
					missing = append(missing, w)
				}
			}
			t.Errorf("%s (%v): the raw test would skip it for %d of its words: %q", e.rel, e.kind, len(missing), missing[:min(len(missing), 10)])
		}
		if !rawMayHold(e.rel, e.kind, data, []string{"zeppelinqx"}) {
			rejected++
		}
		checked++
		words += len(all)
		kinds[e.kind]++
	}
	if checked < 400 {
		t.Fatalf("only %d text files checked", checked)
	}
	for _, k := range []extract.Kind{extract.KindMarkdown, extract.KindHTML, extract.KindCode, extract.KindText} {
		if kinds[k] == 0 {
			t.Errorf("no %v file checked", k)
		}
	}
	if rejected < checked*99/100 {
		t.Errorf("a word in no file passes the raw test of %d of %d files", checked-rejected, checked)
	}
	t.Logf("%d files (%v), %d words in all (each file's distinct ones): none lost; a word in no file skips %d of them", checked, kinds, words, rejected)
}

// parseLog records the paths of the documents a server parses for reads
// and scans (its "parsed document" debug records).
type parseLog struct {
	mu    sync.Mutex
	paths []string
}

func (l *parseLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *parseLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *parseLog) WithGroup(string) slog.Handler            { return l }
func (l *parseLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "parsed document" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "path" {
			l.mu.Lock()
			l.paths = append(l.paths, a.Value.String())
			l.mu.Unlock()
		}
		return true
	})
	return nil
}

// TestWordSearchParsesOnlyCandidates: without an index, a word search
// scans the folder; the text files whose bytes cannot hold the word are
// not parsed (the scan runs at the speed of reading them), and the files
// that hold it are still found.
func TestWordSearchParsesOnlyCandidates(t *testing.T) {
	dir := copyCorpus(t)
	goroot := goDir(t, "env", "GOROOT")
	files := map[string]string{}
	matches, _ := filepath.Glob(filepath.Join(goroot, "src/net/http/*.go"))
	for _, m := range matches {
		files["http/"+filepath.Base(m)] = m
	}
	copyInto(t, dir, files)
	writeFile(t, filepath.Join(dir, "notes/split.md"), "# Notes\n\nA word split by markup: zeppe**linqx**.\n")
	parses := &parseLog{}
	s, c, _ := startInProcess(t, dir, Options{CacheDir: "off", Logger: slog.New(parses)})
	kinds := map[string]extract.Kind{}
	for _, e := range s.index.snapshot() {
		kinds[e.rel] = e.kind
	}
	found, res := searchAll(t, c, map[string]any{"query": "zeppelinqx"})
	if res.Scanned != res.Total || len(found) != 1 || found[0].Path != "notes/split.md" {
		t.Fatalf("search: %d matches (%+v), %d of %d scanned", len(found), found, res.Scanned, res.Total)
	}
	parses.mu.Lock()
	defer parses.mu.Unlock()
	text := 0
	for _, p := range parses.paths {
		if prefilterKind(kinds[p]) && p != "notes/split.md" {
			t.Errorf("the search parsed %s, whose bytes do not hold the word", p)
		}
		if prefilterKind(kinds[p]) {
			text++
		}
	}
	if text != 1 {
		t.Errorf("%d text files parsed, want the one that holds the word", text)
	}
	t.Logf("%d documents scanned; parsed: %q", res.Total, parses.paths)
}
