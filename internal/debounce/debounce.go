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

// Set debounces signals of keys: the keys added within one window are
// delivered once, as a set, the window after the first of them. It is
// safe for concurrent use.
type Set[K comparable] struct {
	window time.Duration
	fire   func(map[K]struct{})

	mu      sync.Mutex
	pending map[K]struct{}
	timer   *time.Timer
	stopped bool
}

// NewSet returns a debouncer that calls fire (on its own goroutine) with
// the keys added within window of the first.
func NewSet[K comparable](window time.Duration, fire func(map[K]struct{})) *Set[K] {
	return &Set[K]{window: window, fire: fire}
}

// Add signals k.
func (d *Set[K]) Add(k K) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped || d.fire == nil {
		return
	}
	if d.pending == nil {
		d.pending = map[K]struct{}{}
		d.timer = time.AfterFunc(d.window, d.flush)
	}
	d.pending[k] = struct{}{}
}

func (d *Set[K]) flush() {
	d.mu.Lock()
	keys := d.pending
	d.pending = nil
	stopped := d.stopped
	d.mu.Unlock()
	if len(keys) > 0 && !stopped {
		d.fire(keys)
	}
}

// Stop drops what is pending and every later signal.
func (d *Set[K]) Stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopped = true
	if d.timer != nil {
		d.timer.Stop()
	}
}
