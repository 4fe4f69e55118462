package tui

import "testing"

func TestCountAndRangeLabel(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{count(0, "page"), "0 pages"},
		{count(1, "page"), "1 page"},
		{count(12, "page"), "12 pages"},
		{rangeLabel(20, 40, 312), "21–40 of 312"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
