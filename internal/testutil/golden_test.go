package testutil

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// golden runs Golden on a recorder and reports whether it failed, and why.
func golden(path string, got string) (failed bool, msg string) {
	var rec recorder
	func() {
		defer func() { recover() }() // Fatal ends the check
		Golden(&rec, path, []byte(got))
	}()
	return rec.failed, rec.msg
}

func TestGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "frame.golden")
	if failed, msg := golden(path, "a\n"); !failed || !strings.Contains(msg, "-update") {
		t.Errorf("a missing golden file: failed %v, %q; want a failure naming -update", failed, msg)
	}

	if err := flag.Set("update", "true"); err != nil {
		t.Fatal(err)
	}
	failed, _ := golden(path, "one\ntwo\n")
	if err := flag.Set("update", "false"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); failed || err != nil || string(b) != "one\ntwo\n" {
		t.Fatalf("-update: failed %v, file %q (%v); want it written", failed, b, err)
	}

	if failed, msg := golden(path, "one\ntwo\n"); failed {
		t.Errorf("the same bytes fail: %s", msg)
	}
	failed, msg := golden(path, "one\nTwo\n")
	if !failed || !strings.Contains(msg, "first at line 2") {
		t.Errorf("other bytes: failed %v, %q; want a failure at line 2", failed, msg)
	}
	if failed, _ := golden(path, "one\ntwo"); !failed {
		t.Error("a missing final newline passes")
	}
}
