package sio

import "sync"

// serialQueue runs the functions pushed to it one after another, in push
// order, on a goroutine it starts when work arrives and that ends when the
// queue is empty. Push never blocks, so it is safe to call from the
// library's read loop.
type serialQueue struct {
	mu      sync.Mutex
	items   []func()
	running bool
}

// push appends fn and starts a drainer when none is running.
func (q *serialQueue) push(fn func()) {
	q.mu.Lock()
	q.items = append(q.items, fn)
	if q.running {
		q.mu.Unlock()
		return
	}
	q.running = true
	q.mu.Unlock()
	go q.drain()
}

func (q *serialQueue) drain() {
	for {
		q.mu.Lock()
		if len(q.items) == 0 {
			q.running = false
			q.items = nil
			q.mu.Unlock()
			return
		}
		fn := q.items[0]
		q.items[0] = nil
		q.items = q.items[1:]
		q.mu.Unlock()
		fn()
	}
}
