package shorten

import (
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

func TestPathKeepsTheTopFolderAndTheFileName(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"notes/a.md", 20, "notes/a.md"},
		{"src/archive/tar/example_test.go", 40, "src/archive/tar/example_test.go"},
		{"src/archive/tar/example_test.go", 25, "src/…/tar/example_test.go"},
		{"src/archive/tar/example_test.go", 24, "src/…/example_test.go"},
		{"src/archive/tar/example_test.go", 18, "…/example_test.go"},
		{"src/archive/tar/example_test.go", 12, "examp…est.go"},
		{"node_modules/is-descriptor/node_modules/define-property/README.md", 40, "node_modules/…/define-property/README.md"},
		{"/usr/share/doc/valgrind/valgrind_manual.pdf.gz", 36, "/…/valgrind/valgrind_manual.pdf.gz"},
		{"文档/报告/二〇二五年度总结.md", 26, "文档/…/二〇二五年度总结.md"},
		{"文档/报告/二〇二五年度总结.md", 22, "…/二〇二五年度总结.md"},
		{"文档/报告/二〇二五年度总结.md", 5, "二…md"},
		{"README.md", 6, "RE….md"},
		{"文档", 1, "…"},
		{"abc", 0, ""},
	} {
		got := Path(c.in, c.w)
		if got != c.want || ansi.StringWidth(got) > c.w {
			t.Errorf("Path(%q, %d) = %q (%d cells), want %q", c.in, c.w, got, ansi.StringWidth(got), c.want)
		}
	}
}

// Two deep files of the same name under different folders never look the
// same when cut (issue 23.4).
func TestPathsKeepTheFolderThatTellsThemApart(t *testing.T) {
	in := []string{
		"node_modules/a/node_modules/kind-of/README.md",
		"node_modules/b/node_modules/kind-of/README.md",
		"src/cmd/go/testdata/script/README.md",
		"short.md",
	}
	got := Paths(in, 32)
	seen := map[string]string{}
	for i, g := range got {
		if ansi.StringWidth(g) > 32 {
			t.Errorf("%q is %d cells wide", g, ansi.StringWidth(g))
		}
		if other, ok := seen[g]; ok {
			t.Errorf("%q and %q both show as %q", other, in[i], g)
		}
		seen[g] = in[i]
	}
	if got[0] != "node_modules/a/…/README.md" || got[3] != "short.md" {
		t.Errorf("Paths = %q", got)
	}
	// A telling folder too long for the room is cut, not lost.
	got = Paths([]string{"express-session/x/y/README.md", "body-parser-json/x/y/README.md"}, 20)
	if got[0] != "exp…sion/…/README.md" || got[1] != "bod…json/…/README.md" {
		t.Errorf("Paths = %q", got)
	}
}

func TestMiddle(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"https://example.com/a/very/long/path/to/the/file.html", 30, "https://exampl…o/the/file.html"},
		{"short", 10, "short"},
		{"abcdef", 3, "a…f"},
		{"abcdef", 1, "…"},
	} {
		if got := Middle(c.in, c.w); got != c.want || ansi.StringWidth(got) > c.w {
			t.Errorf("Middle(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		800 * time.Millisecond:        "800 ms",
		12400 * time.Millisecond:      "12 s",
		89 * time.Second:              "89 s",
		150 * time.Second:             "3 min",
		2*time.Hour + 5*time.Minute:   "2 h 5 min",
		100*time.Minute + time.Second: "1 h 40 min",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}
