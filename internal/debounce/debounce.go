// Package debounce merges bursts of change signals: the bits signalled
// within one window are delivered once, as their union, the window after
// the first of them.
package debounce

import (
	"sync"
	"time"
)

// Bits debounces signals of a bit set T. It is safe for concurrent use.
type Bits[T ~uint8 | ~uint16 | ~uint32] struct {
	window time.Duration
	fire   func(T)

	mu      sync.Mutex
	pending T
	timer   *time.Timer
	stopped bool
}

// New returns a debouncer that calls fire (on its own goroutine) with
// the union of the bits triggered within window of the first; a nil fire
// drops every signal.
func New[T ~uint8 | ~uint16 | ~uint32](window time.Duration, fire func(T)) *Bits[T] {
	return &Bits[T]{window: window, fire: fire}
}

// Trigger signals c.
func (d *Bits[T]) Trigger(c T) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped || d.fire == nil || c == 0 {
		return
	}
	if d.pending == 0 {
		d.timer = time.AfterFunc(d.window, d.flush)
	}
	d.pending |= c
}

func (d *Bits[T]) flush() {
	d.mu.Lock()
	c := d.pending
	d.pending = 0
	stopped := d.stopped
	d.mu.Unlock()
	if c != 0 && !stopped {
		d.fire(c)
	}
}

// Stop drops what is pending and every later signal.
func (d *Bits[T]) Stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopped = true
	if d.timer != nil {
		d.timer.Stop()
	}
}
