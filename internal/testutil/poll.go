package testutil

import (
	"testing"
	"time"
)

// The one way tests wait for something to come true: WaitUntil polls, and
// Eventually and EventuallyNil fail the test, saying what they waited for,
// when it did not come within their bound.

// Eventually checks cond until it holds, and fails the test, saying what
// was awaited, when it does not within d. It checks at once, then at
// growing intervals (1 ms, doubling up to 50 ms), and returns how long
// cond took to hold.
func Eventually(t testing.TB, d time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	if !WaitUntil(d, cond) {
		t.Fatalf("%s: not within %v", what, d)
	}
	return time.Since(start)
}

// EventuallyNil is Eventually for a check that says why it does not hold
// yet: it calls fn until it returns nil, and fails the test with what was
// awaited and fn's last error when that does not happen within d.
func EventuallyNil(t testing.TB, d time.Duration, what string, fn func() error) time.Duration {
	t.Helper()
	start := time.Now()
	var err error
	if !WaitUntil(d, func() bool { err = fn(); return err == nil }) {
		t.Fatalf("%s: still failing after %v: %v", what, d, err)
	}
	return time.Since(start)
}

// WaitUntil checks cond until it holds or d has passed, at the intervals
// of Eventually, and reports whether it held. Use it where the test goes
// on either way, or reports a miss in words of its own.
func WaitUntil(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	wait := time.Millisecond
	for {
		if cond() {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		time.Sleep(min(wait, left))
		wait = min(2*wait, 50*time.Millisecond)
	}
}
