package common

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
)

func TestCountAndRangeLabel(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Count(0, "page"), "0 pages"},
		{Count(1, "page"), "1 page"},
		{Count(12, "page"), "12 pages"},
		{RangeLabel(20, 40, 312), "21–40 of 312"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// A wrapped keyword line never leaves a "#" at the end of a line, apart
// from its keyword (Go's doc/README.md in the preview pane).
func TestKeywordLinesKeepHashWithKeyword(t *testing.T) {
	kw := []string{"next", "release", "files", "directory", "doc"}
	for w := 10; w <= 50; w++ {
		lines := KeywordLines(lipgloss.NewStyle(), kw, w, 3)
		all := strings.Join(lines, "\n")
		if strings.Contains(all, "\u00a0") {
			t.Fatalf("no-break space on screen: %q", all)
		}
		for _, l := range lines {
			if strings.HasSuffix(strings.TrimRight(l, " "), "#") {
				t.Errorf("width %d: %q ends with a bare #", w, l)
			}
		}
	}
}
