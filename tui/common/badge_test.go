package common

import (
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/smcp-browse/smcp-browse/tui/styles"
)

// A type longer than the badge's 4 cells is visibly cut ("APA…" for an
// extensionless Apache-2.0 licence), not silently shortened to "APAC".
func TestBadgeForLongTypeShowsTheCut(t *testing.T) {
	st := styles.New(true, true)
	for ft, want := range map[string]string{"apache-2.0": "APA…", "md": "MD  ", "html": "HTML", "": "?   "} {
		got := ansi.Strip(BadgeFor(st, ft))
		if got != want || ansi.StringWidth(got) != 4 {
			t.Errorf("BadgeFor(%q) = %q, want %q (4 cells)", ft, got, want)
		}
	}
}
