package server

import (
	"sync"
	"time"
)

// seatCacheTTL bounds how long a computer's seat found in Redis is used
// without asking Redis again, should the notice of its change be lost
// (Redis down): normally the notice drops it at once.
const seatCacheTTL = time.Second

// maxSeatCache bounds the seats remembered; beyond it the cache starts
// over.
const maxSeatCache = 1 << 16

// seatCache remembers where the computers this node's agents reached are
// (sid and node by office and name), so that a routed request costs no
// Redis lookup. An entry goes when a membership change of its office is
// heard (every node hears every office's enter and leave notices), after
// seatCacheTTL, and when the computer's node finds the seat is not that
// computer's any more (the request is then looked up again in Redis). A
// lookup that started before a change is not remembered (generations).
type seatCache struct {
	mu      sync.Mutex
	gen     uint64 // bumped by every change heard
	offices map[string]map[string]cachedSeat
	n       int
}

type cachedSeat struct {
	sid, node string
	at        time.Time
	remote    *remoteComputer // where requests go when node is another node
}

func newSeatCache() *seatCache { return &seatCache{offices: map[string]map[string]cachedSeat{}} }

// get returns the seat of computer name in office, if remembered.
func (c *seatCache) get(office, name string, now time.Time) (cachedSeat, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.offices[office][name]
	if !ok || now.Sub(e.at) > seatCacheTTL {
		return cachedSeat{}, false
	}
	return e, true
}

// generation is read before a lookup, for put.
func (c *seatCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// put remembers a seat found by a lookup started at generation gen, unless
// something changed since.
func (c *seatCache) put(office, name string, seat cachedSeat, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.n >= maxSeatCache {
		clear(c.offices)
		c.n = 0
	}
	m := c.offices[office]
	if m == nil {
		m = map[string]cachedSeat{}
		c.offices[office] = m
	}
	if _, had := m[name]; !had {
		c.n++
	}
	m[name] = seat
}

// forget drops what is remembered of office ("" for every office).
func (c *seatCache) forget(office string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if office == "" {
		clear(c.offices)
		c.n = 0
		return
	}
	c.n -= len(c.offices[office])
	delete(c.offices, office)
}
