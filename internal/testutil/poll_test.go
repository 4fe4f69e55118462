package testutil

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestWaitUntil(t *testing.T) {
	var n atomic.Int32
	go func() {
		time.Sleep(30 * time.Millisecond)
		n.Store(1)
	}()
	if !WaitUntil(5*time.Second, func() bool { return n.Load() == 1 }) {
		t.Fatal("a condition that comes true was not seen")
	}
	start := time.Now()
	if WaitUntil(80*time.Millisecond, func() bool { return false }) {
		t.Fatal("a condition that never holds held")
	}
	if el := time.Since(start); el < 80*time.Millisecond {
		t.Errorf("gave up after %v, before the deadline", el)
	}
}

// fails runs f on a recorder and returns the message it failed with ("" if
// it did not).
func fails(f func(t testing.TB)) string {
	var rec recorder
	func() {
		defer func() { recover() }() // Fatal ends the wait
		f(&rec)
	}()
	if !rec.failed {
		return ""
	}
	return rec.msg
}

func TestEventuallySaysWhatItWaitedFor(t *testing.T) {
	var n atomic.Int32
	go func() {
		time.Sleep(20 * time.Millisecond)
		n.Store(1)
	}()
	var took time.Duration
	if msg := fails(func(t testing.TB) {
		took = Eventually(t, 5*time.Second, "n set", func() bool { return n.Load() == 1 })
	}); msg != "" {
		t.Fatalf("a condition that comes true failed: %s", msg)
	}
	if took < 20*time.Millisecond || took > 5*time.Second {
		t.Errorf("Eventually took %v, want about 20ms", took)
	}
	msg := fails(func(t testing.TB) { Eventually(t, 30*time.Millisecond, "the moon", func() bool { return false }) })
	if !strings.Contains(msg, "the moon") || !strings.Contains(msg, "30ms") {
		t.Errorf("failure %q does not name what was awaited and for how long", msg)
	}
}

func TestEventuallyNilGivesTheLastError(t *testing.T) {
	var tries atomic.Int32
	if msg := fails(func(t testing.TB) {
		EventuallyNil(t, 5*time.Second, "third try", func() error {
			if tries.Add(1) < 3 {
				return errors.New("not yet")
			}
			return nil
		})
	}); msg != "" || tries.Load() != 3 {
		t.Fatalf("after %d tries: %q; want success at the third", tries.Load(), msg)
	}
	tries.Store(0)
	msg := fails(func(t testing.TB) {
		EventuallyNil(t, 30*time.Millisecond, "the office", func() error {
			return fmt.Errorf("try %d", tries.Add(1))
		})
	})
	if !strings.Contains(msg, "the office") || tries.Load() < 2 || !strings.HasSuffix(msg, fmt.Sprintf(": try %d", tries.Load())) {
		t.Errorf("failure %q after %d tries does not name what was awaited and the last error", msg, tries.Load())
	}
}
