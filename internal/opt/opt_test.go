package opt

import (
	"log/slog"
	"testing"
	"time"
)

func TestDefault(t *testing.T) {
	n, neg, set := 0, -3, 7
	Default(&n, 5)
	Default(&neg, 5)
	Default(&set, 5)
	if n != 5 || neg != 5 || set != 7 {
		t.Errorf("ints: %d %d %d, want 5 5 7", n, neg, set)
	}
	d := -time.Second
	Default(&d, time.Minute)
	if d != time.Minute {
		t.Errorf("negative duration: %v", d)
	}
	s, given := "", "x"
	Default(&s, "def")
	Default(&given, "def")
	if s != "def" || given != "x" {
		t.Errorf("strings: %q %q", s, given)
	}
}

func TestLogger(t *testing.T) {
	if l := Logger(nil); l == nil || l.Enabled(t.Context(), slog.LevelError) {
		t.Errorf("nil logger: %v, want one that discards", l)
	}
	own := slog.Default()
	if Logger(own) != own {
		t.Error("a given logger is replaced")
	}
}
