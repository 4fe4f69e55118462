package server

import (
	"context"
	"net"
	"net/http"
	"sync"
)

// connKey is the request-context key of the request's connection.
type connKey struct{}

// withConn is http.Server.ConnContext: it records the connection in the
// context of every request read from it.
func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// connTracker knows, during shutdown, which connections carry nothing that
// could be lost: those a client opened without sending a request yet, and
// those parked in an engine.io long-poll (the engine does not answer the
// polls of the sessions it closes, so they would hang until the client
// gives up).
type connTracker struct {
	mu    sync.Mutex
	fresh map[net.Conn]struct{}
	polls map[net.Conn]int
}

func newConnTracker() *connTracker {
	return &connTracker{fresh: map[net.Conn]struct{}{}, polls: map[net.Conn]int{}}
}

// track is http.Server.ConnState.
func (t *connTracker) track(c net.Conn, st http.ConnState) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if st == http.StateNew {
		t.fresh[c] = struct{}{}
	} else {
		delete(t.fresh, c)
	}
}

// wrap marks the connection of every long-poll (a polling GET of an
// existing session) while it is served.
func (t *connTracker) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Context().Value(connKey{}).(net.Conn)
		q := r.URL.Query()
		if c == nil || r.Method != http.MethodGet || q.Get("transport") != "polling" || q.Get("sid") == "" {
			h.ServeHTTP(w, r)
			return
		}
		t.mu.Lock()
		t.polls[c]++
		t.mu.Unlock()
		defer func() {
			t.mu.Lock()
			if t.polls[c]--; t.polls[c] <= 0 {
				delete(t.polls, c)
			}
			t.mu.Unlock()
		}()
		h.ServeHTTP(w, r)
	})
}

// closeIdle closes the connections that have not started a request and
// those parked in a long-poll.
func (t *connTracker) closeIdle() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for c := range t.fresh {
		_ = c.Close()
		delete(t.fresh, c)
	}
	for c := range t.polls {
		_ = c.Close()
		delete(t.polls, c)
	}
}
