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

// A plain text's first line is its title on screen either way; it weighs
// as a title in a search only when it reads as one.
func TestPlainTextFirstLineWeighsAsTitleOnlyWhenItReadsAsOne(t *testing.T) {
	for _, tc := range []struct {
		text     string
		title    string
		titleLik bool
	}{
		{"                    GNU GENERAL PUBLIC LICENSE\n                       Version 3, 29 June 2007\n\nbody", "GNU GENERAL PUBLIC LICENSE", true},
		{"Weekly sync, 12 January\n\nAttendees: Ana", "Weekly sync, 12 January", true},
		{"Copyright 2009 The Go Authors.\n\nRedistribution and use", "Copyright 2009 The Go Authors.", false},
		{"# Check that goroutine scheduling does not affect compiler output.\n\ngo build", "# Check that goroutine scheduling does not affect compiler output.", false},
		{"-- a comment\nselect 1", "-- a comment", false},
	} {
		doc, err := Parse(context.Background(), Source{Name: "x.txt", Data: []byte(tc.text)}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if doc.Title != tc.title || doc.TitleIsText == tc.titleLik {
			t.Errorf("%.30q: title %q (as text: %v), want %q (as text: %v)", tc.text, doc.Title, doc.TitleIsText, tc.title, !tc.titleLik)
		}
	}
}
