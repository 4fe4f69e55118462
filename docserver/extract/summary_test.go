package extract

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// A README that opens with badges or a logo is summed up by its first
// real sentence, and its title is the heading's text without the badge
// beside it. Real npm READMEs (testdata/badges, testdata/fidelity): the
// summaries were "NPM Version NPM Downloads Build Status Test Coverage",
// "OpenCollective OpenCollective", "Express Logo" and "Promises/A+ logo
// [![Build Status](...)](...)", the title "async-function Version Badge".
func TestSummarySkipsBadges(t *testing.T) {
	for _, c := range []struct {
		file, title, summary string
	}{
		{"../../testdata/badges/debug-README.md", "debug", "A tiny JavaScript debugging utility modelled after Node.js core's debugging technique."},
		{"../../testdata/badges/async-function-README.md", "async-function", "A function that returns the normally hidden AsyncFunction constructor, when available."},
		{"../../testdata/badges/lie-README.md", "lie", "lie is a small, performant promise library implementing the Promises/A+ spec (Version 1.1)."},
		{"../../testdata/fidelity/markdown/cors-README.md", "cors", "CORS is a Node.js middleware for Express/Connect that sets CORS response headers."},
		{"../../testdata/fidelity/markdown/express-README.md", "", "Fast, unopinionated, minimalist web framework for Node.js."},
		{"../../testdata/fidelity/markdown/body-parser-README.md", "body-parser", "Node.js body parsing middleware."},
	} {
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := Parse(t.Context(), Source{Name: "README.md", Data: data}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		m, err := Peek(t.Context(), "README.md", bytes.NewReader(data), int64(len(data)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, got := range []struct{ how, title, summary string }{{"parse", doc.Title, doc.Summary}, {"peek", m.Title, m.Summary}} {
			if !strings.HasPrefix(got.summary, c.summary) {
				t.Errorf("%s (%s): summary %q, want %q", c.file, got.how, got.summary, c.summary)
			}
			if c.title != "" && got.title != c.title {
				t.Errorf("%s (%s): title %q, want %q", c.file, got.how, got.title, c.title)
			}
		}
	}
}
