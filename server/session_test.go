package server

import (
	"testing"
	"time"
)

// TestSessionTableSettle checks what shutdown waits for: every added
// session's disconnection handled, however late its socket closes, and no
// longer than the bound when one never is.
func TestSessionTableSettle(t *testing.T) {
	tab := newSessionTable()
	if n := tab.settle(time.Hour); n != 0 {
		t.Fatalf("empty table: %d sessions unsettled", n)
	}
	a, b := &session{sid: "a"}, &session{sid: "b"}
	tab.add(a)
	tab.add(b)
	tab.remove(a) // out of the table, its disconnection still being handled
	if n := tab.settle(10 * time.Millisecond); n != 2 {
		t.Fatalf("before any departure: %d unsettled, want 2", n)
	}
	go func() {
		time.Sleep(20 * time.Millisecond)
		tab.departed()
		tab.remove(b)
		tab.departed()
	}()
	if n := tab.settle(time.Hour); n != 0 {
		t.Fatalf("after both departed: %d unsettled", n)
	}
	tab.add(a) // a new wait after the table settled once
	go tab.departed()
	if n := tab.settle(time.Hour); n != 0 {
		t.Fatalf("second settle: %d unsettled", n)
	}
}
