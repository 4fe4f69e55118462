package testutil

import (
	"flag"
	"testing"
)

// TestParallelWaits: ParallelWaits raises -test.parallel from its
// default, never lowers it, and leaves a value given on the command line.
func TestParallelWaits(t *testing.T) {
	for _, tc := range []struct {
		args []string
		n    int
		want int
	}{
		{nil, 6, 6},
		{nil, 1, 2},
		{[]string{"-test.parallel=3"}, 6, 3},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		p := fs.Int("test.parallel", 2, "")
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		parallelWaits(fs, tc.n)
		if *p != tc.want {
			t.Errorf("args %v, ParallelWaits(%d): parallel %d, want %d", tc.args, tc.n, *p, tc.want)
		}
	}
}
