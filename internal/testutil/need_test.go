package testutil

import (
	"fmt"
	"testing"
)

// TestMissingFailsWhereRequired: in CI a missing requirement fails the
// test; elsewhere it skips it.
func TestMissingFailsWhereRequired(t *testing.T) {
	for _, env := range []struct{ ci, require string }{{"", ""}, {"1", ""}, {"", "1"}} {
		t.Setenv("CI", env.ci)
		t.Setenv("SMCP_REQUIRE_TOOLS", env.require)
		var rec recorder
		func() {
			defer func() { recover() }() // Fatal and Skip end the goroutine's test
			Missing(&rec, "no tool")
		}()
		wantFail := env.ci != "" || env.require != ""
		if rec.failed != wantFail || rec.skipped == wantFail {
			t.Errorf("CI=%q SMCP_REQUIRE_TOOLS=%q: failed %v skipped %v", env.ci, env.require, rec.failed, rec.skipped)
		}
	}
}

func TestNeedFindsAndMisses(t *testing.T) {
	t.Setenv("CI", "")
	t.Setenv("SMCP_REQUIRE_TOOLS", "")
	if p := Need(t, "sh"); p == "" {
		t.Error("sh not found")
	}
	var rec recorder
	func() {
		defer func() { recover() }()
		Need(&rec, "no-such-tool-smcp")
	}()
	if !rec.skipped {
		t.Error("a missing tool did not skip outside CI")
	}
}

// recorder is a testing.TB that records Fatal and Skip and stops there,
// and records Errorf and goes on.
type recorder struct {
	testing.TB
	failed, skipped bool
	msg             string // the last failure's message
}

func (r *recorder) Helper()           {}
func (r *recorder) Fatal(args ...any) { r.failed = true; panic("fatal") }
func (r *recorder) Skip(args ...any)  { r.skipped = true; panic("skip") }
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed, r.msg = true, fmt.Sprintf(format, args...)
	panic("fatal")
}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed, r.msg = true, fmt.Sprintf(format, args...)
}
