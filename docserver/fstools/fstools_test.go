package fstools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// makeTree writes files (path → content) under a temp root and opens it.
func makeTree(t *testing.T, files map[string]string) (*FS, string) {
	t.Helper()
	dir := t.TempDir()
	for p, body := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(p, "/") {
			continue
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return New(r), dir
}

// shape renders a tree as nested names with markers, for comparisons:
// "name/" for an expanded dir, "name/+N" for a collapsed one with N
// entries.
func shape(n *TreeNode) string {
	var parts []string
	var walk func(prefix string, n *TreeNode)
	walk = func(prefix string, n *TreeNode) {
		names := make([]string, 0, len(n.Children))
		for k := range n.Children {
			names = append(names, k)
		}
		sortStrings(names)
		for _, k := range names {
			c := n.Children[k]
			switch {
			case c.Kind == "file":
				parts = append(parts, prefix+k)
			case c.Collapsed:
				parts = append(parts, fmt.Sprintf("%s%s/+%d", prefix, k, *c.Count))
			default:
				parts = append(parts, prefix+k+"/")
				walk(prefix+k+"/", c)
			}
		}
	}
	walk("", n)
	return strings.Join(parts, " ")
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func TestTreeBudgetAndDepth(t *testing.T) {
	files := map[string]string{
		"README.md": "x", "package.json": "{}",
		"src/index.ts": "x", "src/util.ts": "x",
		"src/services/a.ts": "", "src/services/b.ts": "", "src/services/c.ts": "",
		"docs/1.md": "", "docs/2.md": "", "docs/3.md": "", "docs/4.md": "",
		".git/config": "hidden",
	}
	f, _ := makeTree(t, files)
	ctx := context.Background()
	tests := []struct {
		name      string
		p         TreeParams
		want      string
		truncated bool
	}{
		// Root: 4 entries (docs, package.json, README.md, src); then docs (4)
		// and src (3) fit a budget of 11; src/services (3) does not fit the
		// remaining 0 and is collapsed, and the walk stops.
		{"budget", TreeParams{Depth: -1, MaxEntries: 11},
			"README.md docs/ docs/1.md docs/2.md docs/3.md docs/4.md package.json src/ src/index.ts src/services/+3 src/util.ts", true},
		// Budget 7: root (4) fits, docs (4) does not: docs and its sibling
		// src, still in the queue, are collapsed.
		{"budget stops the level", TreeParams{Depth: -1, MaxEntries: 7},
			"README.md docs/+4 package.json src/+3", true},
		{"all fits", TreeParams{Depth: -1, MaxEntries: 500},
			"README.md docs/ docs/1.md docs/2.md docs/3.md docs/4.md package.json src/ src/index.ts src/services/ src/services/a.ts src/services/b.ts src/services/c.ts src/util.ts", false},
		{"depth 1", TreeParams{Depth: 1, MaxEntries: 500}, "README.md docs/+4 package.json src/+3", false},
		{"depth 0", TreeParams{Depth: 0, MaxEntries: 500}, "", false},
		{"sub path", TreeParams{Path: "src", Depth: 3}, "index.ts services/ services/a.ts services/b.ts services/c.ts util.ts", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := f.Tree(ctx, tt.p)
			if err != nil {
				t.Fatal(err)
			}
			if got := shape(root); got != tt.want {
				t.Errorf("tree = %q\n want %q", got, tt.want)
			}
			if *root.Truncated != tt.truncated {
				t.Errorf("truncated = %v", *root.Truncated)
			}
		})
	}
	root, _ := f.Tree(ctx, TreeParams{Depth: 3})
	readme := root.Children["README.md"]
	if readme.Type != "text/markdown" || *readme.Size != 1 || !strings.HasPrefix(readme.Hash, "nod_") || len(readme.Hash) != 16 {
		t.Errorf("file node = %+v", readme)
	}
	if *root.Count != 4 {
		t.Errorf("root count = %d (hidden entries must not count)", *root.Count)
	}
	b, _ := json.Marshal(root.Children["docs"])
	if !strings.Contains(string(b), `"kind":"dir","count":4`) {
		t.Errorf("dir JSON = %s", b)
	}
	again, _ := f.Tree(ctx, TreeParams{Depth: 3})
	if again.Children["README.md"].Hash != readme.Hash {
		t.Error("hash not stable for an unchanged file")
	}
}

func TestFind(t *testing.T) {
	f, _ := makeTree(t, map[string]string{
		"a.md": "", "b.txt": "", "docs/c.md": "", "docs/deep/d.md": "", "docs/deep/e.go": "", "src/f.go": "",
	})
	ctx := context.Background()
	paths := func(r FindResult) string {
		var out []string
		for _, m := range r.Matches {
			out = append(out, m.Path)
		}
		return strings.Join(out, ",")
	}
	for _, tt := range []struct {
		p    FindParams
		want string
	}{
		{FindParams{Pattern: "*.md"}, "a.md,docs/c.md,docs/deep/d.md"},
		{FindParams{Pattern: "docs/**/*.md"}, "docs/c.md,docs/deep/d.md"},
		{FindParams{Pattern: "**/*.go"}, "src/f.go,docs/deep/e.go"},
		{FindParams{Pattern: "*.go", Path: "docs"}, "docs/deep/e.go"},
		{FindParams{Pattern: "deep"}, "docs/deep"},
		{FindParams{Pattern: "deep/*", Path: "docs"}, "docs/deep/d.md,docs/deep/e.go"},
	} {
		r, err := f.Find(ctx, tt.p)
		if err != nil {
			t.Fatalf("%+v: %v", tt.p, err)
		}
		if got := paths(r); got != tt.want || r.Truncated {
			t.Errorf("%+v = %s (truncated %v), want %s", tt.p, got, r.Truncated, tt.want)
		}
	}
	r, _ := f.Find(ctx, FindParams{Pattern: "*", MaxResults: 2})
	if len(r.Matches) != 2 || !r.Truncated {
		t.Errorf("bounded find = %+v", r)
	}
	if _, err := f.Find(ctx, FindParams{Pattern: "[unclosed"}); err == nil {
		t.Error("bad glob accepted")
	}
	if _, err := f.Find(ctx, FindParams{Pattern: ""}); err == nil {
		t.Error("empty pattern accepted")
	}
}

func TestGrep(t *testing.T) {
	big := strings.Repeat("filler line\n", 100000) + "needle beyond the first MiB\n"
	f, _ := makeTree(t, map[string]string{
		"a.md":       "alpha\nNeedle here\nomega\n",
		"b.txt":      "no match\nneedle and needle\n",
		"bin.dat":    "needle\x00\x01binary",
		"big.log":    big,
		"sub/c.go":   "// needle in code\n",
		"long.txt":   strings.Repeat("x", 500) + "needle" + strings.Repeat("y", 500) + "\n",
		"ctrl.txt":   "needle \x1b[31mred\n",
		"latin1.txt": "caf\xe9 needle\n",
	})
	ctx := context.Background()
	r, err := f.Grep(ctx, GrepParams{Pattern: "needle"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]GrepMatch{}
	for _, m := range r.Matches {
		got[m.Path] = m
	}
	if _, ok := got["bin.dat"]; ok {
		t.Error("binary file searched")
	}
	if _, ok := got["latin1.txt"]; ok {
		t.Error("invalid UTF-8 file searched as text")
	}
	if _, ok := got["big.log"]; ok {
		t.Error("searched past the first MiB")
	}
	if m := got["b.txt"]; m.Line != 2 || m.Text != "needle and needle" {
		t.Errorf("b.txt match = %+v", m)
	}
	if _, ok := got["a.md"]; ok {
		t.Error("case-sensitive search matched Needle")
	}
	if m := got["long.txt"]; len([]rune(m.Text)) > grepLineChars+2 || !strings.Contains(m.Text, "needle") {
		t.Errorf("long line excerpt = %q", m.Text)
	}
	if m := got["ctrl.txt"]; strings.ContainsRune(m.Text, 0x1b) {
		t.Errorf("control character in %q", m.Text)
	}
	if r.BinarySkipped != 2 || r.FilesScanned != 8 || r.Truncated {
		t.Errorf("scanned %d, binary %d, truncated %v", r.FilesScanned, r.BinarySkipped, r.Truncated)
	}
	r, _ = f.Grep(ctx, GrepParams{Pattern: "needle", IgnoreCase: true, Glob: "*.md"})
	if len(r.Matches) != 1 || r.Matches[0].Path != "a.md" || r.Matches[0].Line != 2 {
		t.Errorf("ignoreCase+glob = %+v", r.Matches)
	}
	r, _ = f.Grep(ctx, GrepParams{Pattern: `^//\s+ne+dle`, Regex: true})
	if len(r.Matches) != 1 || r.Matches[0].Path != "sub/c.go" {
		t.Errorf("regex = %+v", r.Matches)
	}
	r, _ = f.Grep(ctx, GrepParams{Pattern: "needle", MaxMatches: 2})
	if len(r.Matches) != 2 || !r.Truncated {
		t.Errorf("maxMatches = %+v", r)
	}
	r, _ = f.Grep(ctx, GrepParams{Pattern: "needle", MaxFiles: 3})
	if r.FilesScanned != 3 || !r.Truncated {
		t.Errorf("maxFiles = %+v", r)
	}
	if _, err := f.Grep(ctx, GrepParams{Pattern: "(", Regex: true}); err == nil {
		t.Error("bad regex accepted")
	}
}

func TestPathsOutsideRootAreRefused(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644)
	f, dir := makeTree(t, map[string]string{"in/ok.txt": "ok"})
	if err := os.Symlink(outside, filepath.Join(dir, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "in", "secret-link.txt")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, p := range []string{"..", "../x", "in/../..", "/", "/etc", outside, "escape", "escape/", `..\..`} {
		if _, err := f.Tree(ctx, TreeParams{Path: p}); err == nil {
			t.Errorf("Tree(%q) accepted", p)
		}
		if _, err := f.Find(ctx, FindParams{Path: p, Pattern: "*"}); err == nil {
			t.Errorf("Find(%q) accepted", p)
		}
		if _, err := f.Grep(ctx, GrepParams{Path: p, Pattern: "secret"}); err == nil {
			t.Errorf("Grep(%q) accepted", p)
		}
	}
	root, err := f.Tree(ctx, TreeParams{Depth: -1})
	if err != nil {
		t.Fatal(err)
	}
	// Links that leave the root are not shown, nor counted.
	if s := shape(root); s != "in/ in/ok.txt" || *root.Count != 1 || *root.Children["in"].Count != 1 {
		t.Errorf("tree = %q, counts %d/%d", s, *root.Count, *root.Children["in"].Count)
	}
	r, _ := f.Grep(ctx, GrepParams{Pattern: "secret"})
	if len(r.Matches) != 0 {
		t.Errorf("grep followed a link out: %+v", r.Matches)
	}
}

func TestLinksInsideRoot(t *testing.T) {
	f, dir := makeTree(t, map[string]string{"real/a.txt": "needle", "real/sub/b.txt": "x"})
	if err := os.Symlink("real", filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real/a.txt", filepath.Join(dir, "a-link.txt")); err != nil {
		t.Fatal(err)
	}
	root, err := f.Tree(context.Background(), TreeParams{Depth: -1})
	if err != nil {
		t.Fatal(err)
	}
	// A directory link inside the root is shown, collapsed (never followed:
	// no cycles); a file link is a file.
	if s := shape(root); s != "a-link.txt alias/+2 real/ real/a.txt real/sub/ real/sub/b.txt" {
		t.Errorf("tree = %q", s)
	}
	if !root.Children["alias"].Link || !root.Children["a-link.txt"].Link {
		t.Error("links not marked")
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{"": ".", ".": ".", "a/b/": "a/b", "./a": "a", "a/./b": "a/b"} {
		if got, err := Clean(in); err != nil || got != want {
			t.Errorf("Clean(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"..", "a/../..", "a/../b", "/abs", "C:/x", "a\x00b"} {
		if _, err := Clean(in); err == nil {
			t.Errorf("Clean(%q) accepted", in)
		}
	}
}

func TestGlobMatchSegments(t *testing.T) {
	for _, tt := range []struct {
		pattern, path string
		want          bool
	}{
		{"**", "a/b/c", true},
		{"a/**", "a", true},
		{"a/**", "a/b/c", true},
		{"**/c", "c", true},
		{"**/c", "a/b/c", true},
		{"**/c", "a/b/cc", false},
		{"a/**/b/**/c", "a/x/b/y/z/c", true},
		{"a/**/b/**/c", "a/b/c", true},
		{"a/**/b/**/c", "a/x/y/c", false},
		{"a/*/c", "a/b/c", true},
		{"a/*/c", "a/b/d/c", false},
		{"a/**/**/c", "a/c", true},
		{"x/**", "a/b", false},
	} {
		g, err := CompileGlob(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Match(tt.path); got != tt.want {
			t.Errorf("%q matches %q = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// A pattern of many "**" segments that almost matches a deep path made the
// backtracking matcher try every way of splitting the path among them
// (exponential in their number: a 103-character fs_find pattern burned
// more than 90 CPU-seconds). The matcher must answer such a pattern on a
// deep tree at once; the watchdog only catches a matcher that does not.
func TestFindGlobIsNotExponential(t *testing.T) {
	depth := 40
	files := map[string]string{}
	deep := strings.TrimSuffix(strings.Repeat("a/", depth), "/")
	files[deep+"/file.txt"] = ""
	f, _ := makeTree(t, files)
	pattern := strings.Repeat("**/a*/", 20) + "**/nomatch"
	if len(pattern) < 100 {
		t.Fatalf("pattern is %d characters", len(pattern))
	}
	g, err := CompileGlob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan FindResult, 1)
	go func() {
		if g.Match(deep + "/file.txt") {
			t.Error("pattern matched")
		}
		r, err := f.Find(context.Background(), FindParams{Pattern: pattern})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	select {
	case r := <-done:
		if len(r.Matches) != 0 {
			t.Errorf("matches = %+v", r.Matches)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("fs_find with 21 '**' segments over a 40-deep tree did not finish in a minute")
	}
	// A pattern of the same shape that matches.
	ok := strings.Repeat("**/a*/", 20) + "**/file.txt"
	r, err := f.Find(context.Background(), FindParams{Pattern: ok})
	if err != nil || len(r.Matches) != 1 || r.Matches[0].Path != deep+"/file.txt" {
		t.Errorf("matching pattern: %+v %v", r, err)
	}
}
