// Package ratelog logs a recurring warning at most once per interval, with
// the count of the ones it held back, so an outage cannot flood a log.
package ratelog

import (
	"log/slog"
	"sync"
	"time"
)

// Logger writes warnings to Log at most once per Every. The zero Every
// means 5 s. It is safe for concurrent use.
type Logger struct {
	Log   *slog.Logger
	Every time.Duration

	mu      sync.Mutex
	last    time.Time
	dropped int
}

// Warn logs msg with args and "similar_not_logged" (how many warnings were
// held back since the last one), unless one was logged less than Every ago.
func (l *Logger) Warn(msg string, args ...any) {
	every := l.Every
	if every <= 0 {
		every = 5 * time.Second
	}
	l.mu.Lock()
	now := time.Now()
	if !l.last.IsZero() && now.Sub(l.last) < every {
		l.dropped++
		l.mu.Unlock()
		return
	}
	dropped := l.dropped
	l.last, l.dropped = now, 0
	l.mu.Unlock()
	l.Log.Warn(msg, append(args, "similar_not_logged", dropped)...)
}

// Flush logs msg with args and "count" (the warnings held back since the
// last one logged) when any were, and starts over: the summary a process
// writes as it stops, so that none goes uncounted.
func (l *Logger) Flush(msg string, args ...any) {
	l.mu.Lock()
	dropped := l.dropped
	l.last, l.dropped = time.Time{}, 0
	l.mu.Unlock()
	if dropped > 0 {
		l.Log.Warn(msg, append(args, "count", dropped)...)
	}
}
