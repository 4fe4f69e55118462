package extract

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// TestReadmeWithoutHeadingIsTitledByItsFolder reads real READMEs of npm
// packages that start without a top heading (iconv-lite's starts at ##,
// inherits' with prose): a reader names them by their package, not
// "README". Parse and Peek agree.
func TestReadmeWithoutHeadingIsTitledByItsFolder(t *testing.T) {
	modules := testutil.NodeModules(t)
	for _, pkg := range []string{"iconv-lite", "inherits"} {
		data, err := os.ReadFile(filepath.Join(modules, pkg, "README.md"))
		if err != nil {
			t.Fatal(err)
		}
		name := "node_modules/" + pkg + "/README.md"
		doc, err := Parse(context.Background(), Source{Name: name, Data: data}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if doc.Title != pkg {
			t.Errorf("%s: title %q, want %q", name, doc.Title, pkg)
		}
		m, err := Peek(context.Background(), name, bytes.NewReader(data), int64(len(data)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if m.Title != pkg {
			t.Errorf("%s: peeked title %q, want %q", name, m.Title, pkg)
		}
	}
	// A README with a top heading keeps it; one with no folder keeps its name.
	for name, want := range map[string]string{
		"pkg/README.md":    "Real Title",
		"README.md":        "README",
		"pkg/readme.txt":   "pkg",
		"a/b/Readme.mdown": "b",
		"pkg/NOTES.md":     "NOTES",
	} {
		src := "plain words, no heading\n"
		if want == "Real Title" {
			src = "# Real Title\n\nText.\n"
		}
		if name == "pkg/readme.txt" {
			src = "\n" // nothing to take a title from
		}
		doc, err := Parse(context.Background(), Source{Name: name, Data: []byte(src)}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if doc.Title != want {
			t.Errorf("%s: title %q, want %q", name, doc.Title, want)
		}
	}
}
