package resindex

import (
	"sync"
	"time"
)

// debouncer merges the changes signalled within one window and delivers
// them once, window after the first of them.
type debouncer struct {
	window time.Duration
	fire   func(Change)

	mu      sync.Mutex
	pending Change
	timer   *time.Timer
	stopped bool
}

func newDebouncer(window time.Duration, fire func(Change)) *debouncer {
	return &debouncer{window: window, fire: fire}
}

func (d *debouncer) trigger(c Change) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped || d.fire == nil {
		return
	}
	if d.pending == 0 {
		d.timer = time.AfterFunc(d.window, d.flush)
	}
	d.pending |= c
}

func (d *debouncer) flush() {
	d.mu.Lock()
	c := d.pending
	d.pending = 0
	stopped := d.stopped
	d.mu.Unlock()
	if c != 0 && !stopped {
		d.fire(c)
	}
}

func (d *debouncer) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopped = true
	if d.timer != nil {
		d.timer.Stop()
	}
}
