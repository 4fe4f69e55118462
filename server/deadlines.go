package server

import (
	"sync"
	"time"
)

// deadlines times out routed requests without a runtime timer each (an
// allocation and two timer-heap updates per request): requests with the
// same timeout run out in the order they started, so each timeout has a
// list in that order, and one timer, armed for its oldest request. A
// request answered in time is only unlinked; the timer, when it fires
// early for a request gone, is armed again for the oldest one left.
type deadlines struct {
	mu    sync.Mutex
	lists map[time.Duration]*deadlineList
	keep  time.Duration // the usual timeout: its list stays when empty
}

// deadlineList is the requests of one timeout, oldest first.
type deadlineList struct {
	owner      *deadlines
	d          time.Duration
	head, tail *deadline
	timer      *time.Timer
	armedFor   time.Time // when timer fires; zero: not armed
}

// deadline is a request's place on a list: its user embeds it, and sets
// of to itself.
type deadline struct {
	of         expirer
	due        time.Time
	list       *deadlineList
	prev, next *deadline
}

// expirer is what runs out.
type expirer interface{ expired() }

func newDeadlines(keep time.Duration) *deadlines {
	return &deadlines{lists: map[time.Duration]*deadlineList{}, keep: keep}
}

// start has p.of.expired called once d has passed, unless stop comes
// first. A deadline already started is started again (from now).
func (dl *deadlines) start(p *deadline, d time.Duration) {
	dl.mu.Lock()
	defer dl.mu.Unlock()
	dl.unlinkLocked(p)
	l := dl.lists[d]
	if l == nil {
		l = &deadlineList{owner: dl, d: d}
		dl.lists[d] = l
	}
	now := time.Now()
	p.due = now.Add(d)
	p.list, p.prev, p.next = l, l.tail, nil
	if l.tail != nil {
		l.tail.next = p
	} else {
		l.head = p
	}
	l.tail = p
	if l.armedFor.IsZero() { // else it fires no later than p.due
		l.arm(p.due, now)
	}
}

// stop forgets p (answered, or gone with its computer).
func (dl *deadlines) stop(p *deadline) {
	dl.mu.Lock()
	dl.unlinkLocked(p)
	dl.mu.Unlock()
}

// unlinkLocked takes p off its list, if it is on one. dl.mu is held.
func (dl *deadlines) unlinkLocked(p *deadline) {
	l := p.list
	if l == nil {
		return
	}
	if p.prev != nil {
		p.prev.next = p.next
	} else {
		l.head = p.next
	}
	if p.next != nil {
		p.next.prev = p.prev
	} else {
		l.tail = p.prev
	}
	p.list, p.prev, p.next = nil, nil, nil
}

// arm sets l's timer to fire at due. owner.mu is held.
func (l *deadlineList) arm(due, now time.Time) {
	l.armedFor = due
	if l.timer == nil {
		l.timer = time.AfterFunc(due.Sub(now), l.fire)
		return
	}
	l.timer.Reset(due.Sub(now))
}

// fire expires the requests whose time has come and arms the timer for
// the oldest one left.
func (l *deadlineList) fire() {
	dl := l.owner
	dl.mu.Lock()
	now := time.Now()
	var expired []expirer
	for p := l.head; p != nil && !p.due.After(now); p = l.head {
		dl.unlinkLocked(p)
		expired = append(expired, p.of)
	}
	switch {
	case l.head != nil:
		l.arm(l.head.due, now)
	default:
		l.armedFor = time.Time{}
		if l.d != dl.keep && dl.lists[l.d] == l {
			delete(dl.lists, l.d) // a tool call's own timeout: gone until used again
		}
	}
	dl.mu.Unlock()
	for _, e := range expired {
		e.expired()
	}
}
