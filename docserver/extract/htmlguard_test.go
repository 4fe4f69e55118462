package extract

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// An HTML read whose context ends stops there, in the parse (x/net/html
// has no context of its own) or in the walk of the tree, and returns the
// context's error: a large page no longer runs to its end after its
// deadline.
func TestHTMLParseStopsWhenItsDeadlinePasses(t *testing.T) {
	cases := map[string]string{
		"formatting.html": "<html><body>" + strings.Repeat("<p><b>text ", 300_000) + "</body></html>",
		"links.html":      "<html><body>" + strings.Repeat(`<a href="x">link</a> `, 300_000) + "</body></html>",
	}
	for name, src := range cases {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		_, err := parseBytes(ctx, t, name, []byte(src))
		cancel()
		t.Logf("%s: %d bytes, %v after %v", name, len(src), err, time.Since(start).Round(time.Millisecond))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err = %v, want the deadline", name, err)
		}
	}
}

// A page nested deeper than x/net/html's 512 open elements is an error
// with the parser's reason (the document server lists the file as
// unreadable with it), at once.
func TestHTMLTooDeepIsAReason(t *testing.T) {
	src := "<html><body>" + strings.Repeat("<div>", 100_000) + "</body></html>"
	_, err := parseBytes(context.Background(), t, "deep.html", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "512") {
		t.Errorf("err = %v, want the parser's nesting limit", err)
	}
}
