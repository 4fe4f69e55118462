package server

import (
	"sync"
	"testing"
	"time"
)

// timed is a request whose deadline records when it ran out.
type timed struct {
	name     string
	deadline deadline
	out      chan<- string
	mu       sync.Mutex
	at       time.Time
}

func (r *timed) expired() {
	r.mu.Lock()
	r.at = time.Now()
	r.mu.Unlock()
	r.out <- r.name
}

func newTimed(name string, out chan<- string) *timed {
	r := &timed{name: name, out: out}
	r.deadline.of = r
	return r
}

// expiries collects n names from out, failing after a generous wait.
func expiries(t *testing.T, out <-chan string, n int) []string {
	t.Helper()
	var got []string
	for range n {
		select {
		case name := <-out:
			got = append(got, name)
		case <-time.After(10 * time.Second):
			t.Fatalf("expired %v, want %d", got, n)
		}
	}
	return got
}

// TestDeadlinesExpireInTurn: requests of one timeout expire in the order
// they started, none before its time; one stopped never expires, and one
// started again counts from then.
func TestDeadlinesExpireInTurn(t *testing.T) {
	dl := newDeadlines(50 * time.Millisecond)
	out := make(chan string, 10)
	a, b, c, d := newTimed("a", out), newTimed("b", out), newTimed("c", out), newTimed("d", out)
	started := time.Now()
	dl.start(&a.deadline, 50*time.Millisecond)
	dl.start(&b.deadline, 50*time.Millisecond)
	dl.start(&c.deadline, 50*time.Millisecond)
	dl.stop(&b.deadline) // answered in time
	time.Sleep(20 * time.Millisecond)
	restarted := time.Now()
	dl.start(&a.deadline, 50*time.Millisecond) // sent again (a stale seat)
	dl.start(&d.deadline, 50*time.Millisecond)
	got := expiries(t, out, 3)
	if want := []string{"c", "a", "d"}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("expired %v, want %v", got, want)
	}
	if c.at.Sub(started) < 50*time.Millisecond || a.at.Sub(restarted) < 50*time.Millisecond {
		t.Fatalf("expired early: c after %s, a after %s", c.at.Sub(started), a.at.Sub(restarted))
	}
	select {
	case name := <-out:
		t.Fatalf("%s expired too", name)
	case <-time.After(100 * time.Millisecond):
	}
}

// TestDeadlinesOfSeveralTimeouts: a short timeout started after a long one
// expires first; a list of a timeout that is not the usual one is dropped
// once empty, and made again when used.
func TestDeadlinesOfSeveralTimeouts(t *testing.T) {
	dl := newDeadlines(time.Hour)
	out := make(chan string, 10)
	long, short := newTimed("long", out), newTimed("short", out)
	dl.start(&long.deadline, 200*time.Millisecond)
	dl.start(&short.deadline, 20*time.Millisecond)
	if got := expiries(t, out, 2); got[0] != "short" || got[1] != "long" {
		t.Fatalf("expired %v, want [short long]", got)
	}
	dl.mu.Lock()
	lists := len(dl.lists)
	dl.mu.Unlock()
	if lists != 0 {
		t.Fatalf("%d lists left", lists)
	}
	again := newTimed("again", out)
	dl.start(&again.deadline, 20*time.Millisecond)
	expiries(t, out, 1)
}

// TestDeadlinesUnderChurn: many requests started and mostly stopped from
// several goroutines at once; exactly the ones not stopped expire.
func TestDeadlinesUnderChurn(t *testing.T) {
	dl := newDeadlines(30 * time.Millisecond)
	out := make(chan string, 1000)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				r := newTimed(string(rune('a'+g)), out)
				dl.start(&r.deadline, 30*time.Millisecond)
				if i%50 != 0 {
					dl.stop(&r.deadline)
				}
			}
		})
	}
	wg.Wait()
	expiries(t, out, 8*10)
	select {
	case name := <-out:
		t.Fatalf("a stopped request of %s expired", name)
	case <-time.After(100 * time.Millisecond):
	}
}
