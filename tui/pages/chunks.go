package pages

import "iter"

// chunks holds the parts of a long list (the catalog, a document's pages)
// that were fetched, a chunk of size rows at a time, as the user scrolls.
// During a reload the previous rows stay visible until the new copy of
// their chunk arrives.
type chunks[T any] struct {
	size    int
	loaded  map[int][]T
	stale   map[int][]T    // previous rows, shown while reloading
	pending map[int]uint64 // chunk -> the request that will fill it
}

func newChunks[T any](size int) chunks[T] {
	return chunks[T]{size: size, loaded: map[int][]T{}, pending: map[int]uint64{}}
}

// at returns row i: a loaded row, else a stale one, else false.
func (c *chunks[T]) at(i int) (T, bool) {
	var zero T
	n, off := i/c.size, i%c.size
	if rows, ok := c.loaded[n]; ok {
		if off < len(rows) {
			return rows[off], true
		}
		return zero, false
	}
	if rows, ok := c.stale[n]; ok && off < len(rows) {
		return rows[off], true
	}
	return zero, false
}

// missing returns the chunks covering rows [from, to) that are neither
// loaded nor requested.
func (c *chunks[T]) missing(from, to int) []int {
	var out []int
	for n := from / c.size; to > from && n <= (to-1)/c.size; n++ {
		_, have := c.loaded[n]
		_, asked := c.pending[n]
		if !have && !asked {
			out = append(out, n)
		}
	}
	return out
}

// ask records that request req will fill chunk n.
func (c *chunks[T]) ask(n int, req uint64) { c.pending[n] = req }

// answered reports whether req is the request chunk n waits for, and if so
// stops waiting; answers to older requests are to be dropped.
func (c *chunks[T]) answered(n int, req uint64) bool {
	if want, ok := c.pending[n]; !ok || want != req {
		return false
	}
	delete(c.pending, n)
	return true
}

// put stores the rows of chunk n in place of any stale copy.
func (c *chunks[T]) put(n int, rows []T) {
	c.loaded[n] = rows
	delete(c.stale, n)
}

// offset is the index of the first row of chunk n.
func (c *chunks[T]) offset(n int) int { return n * c.size }

// restart forgets what is loaded and asked for; keepRows keeps showing the
// loaded rows (as stale) until their chunks come again.
func (c *chunks[T]) restart(keepRows bool) {
	c.stale = nil
	if keepRows {
		c.stale = c.loaded
	}
	c.loaded = map[int][]T{}
	c.pending = map[int]uint64{}
}

// waiting reports whether any request is still out.
func (c *chunks[T]) waiting() bool { return len(c.pending) > 0 }

// reloading reports whether stale rows are still shown.
func (c *chunks[T]) reloading() bool { return c.stale != nil }

// dropStale forgets the rows of the previous load.
func (c *chunks[T]) dropStale() { c.stale = nil }

// rows yields every loaded row, in no particular order.
func (c *chunks[T]) rows() iter.Seq[T] {
	return func(yield func(T) bool) {
		for _, rows := range c.loaded {
			for _, r := range rows {
				if !yield(r) {
					return
				}
			}
		}
	}
}
