package testutil

import (
	"flag"
	"testing"
)

// TestSizeTestsSelectOnly: the size pass runs the listed tests alone
// (their names quoted), unless -test.run names what to run.
func TestSizeTestsSelectOnly(t *testing.T) {
	s := NewSizeTests("TestBig", "TestBomb.v2")
	for _, tc := range []struct {
		args     []string
		want     string
		selected bool
	}{
		{nil, `^(TestBig|TestBomb\.v2)$`, true},
		{[]string{"-test.run=TestOther"}, "TestOther", false},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		run := fs.String("test.run", "", "")
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if got := s.selectOnly(fs); got != tc.selected || *run != tc.want {
			t.Errorf("args %v: selected %v, -test.run %q; want %v, %q", tc.args, got, *run, tc.selected, tc.want)
		}
	}
}

// TestSizeTestsStart: a size test skips under the race detector (unless
// the size pass asks for it), runs without it, and one missing from the
// list fails rather than skip unseen; the size pass sees which ran.
func TestSizeTestsStart(t *testing.T) {
	s := NewSizeTests("TestBig", "TestOther")
	for _, env := range []string{"", "1"} {
		t.Setenv(SizeEnv, env)
		big := &namedRecorder{name: "TestBig"}
		func() {
			defer func() { recover() }()
			s.Start(big)
		}()
		wantSkip := raceEnabled && env == ""
		if big.skipped != wantSkip || big.failed {
			t.Errorf("race %v, %s=%q: skipped %v failed %v, want skipped %v", raceEnabled, SizeEnv, env, big.skipped, big.failed, wantSkip)
		}
	}
	stray := &namedRecorder{name: "TestStray"}
	func() {
		defer func() { recover() }()
		s.Start(stray)
	}()
	if !stray.failed {
		t.Error("a size test missing from the list did not fail")
	}
	if m := s.missing(); len(m) != 1 || m[0] != "TestOther" {
		t.Errorf("missing %v, want [TestOther]", m)
	}
}

// namedRecorder is a recorder with a test name that records Skipf too.
type namedRecorder struct {
	recorder
	name string
}

func (r *namedRecorder) Name() string         { return r.name }
func (r *namedRecorder) Skipf(string, ...any) { r.skipped = true; panic("skip") }
