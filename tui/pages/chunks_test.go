package pages

import (
	"slices"
	"testing"
)

func TestChunks(t *testing.T) {
	c := newChunks[int](3)
	if got := c.missing(0, 7); !slices.Equal(got, []int{0, 1, 2}) {
		t.Fatalf("missing(0,7) on nothing = %v", got)
	}
	if got := c.missing(4, 4); got != nil {
		t.Fatalf("missing of an empty range = %v", got)
	}
	c.ask(0, 1)
	c.ask(1, 2)
	if got := c.missing(0, 7); !slices.Equal(got, []int{2}) {
		t.Fatalf("missing with 0 and 1 asked = %v", got)
	}
	if c.answered(1, 99) {
		t.Fatal("an answer to another request was taken")
	}
	if !c.answered(0, 1) || c.answered(0, 1) {
		t.Fatal("the answer to chunk 0 must be taken exactly once")
	}
	c.put(0, []int{10, 11, 12})
	if v, ok := c.at(2); !ok || v != 12 {
		t.Fatalf("at(2) = %v %v", v, ok)
	}
	if _, ok := c.at(4); ok {
		t.Fatal("row of a chunk not loaded")
	}
	if !c.waiting() {
		t.Fatal("chunk 1 is still asked for")
	}

	// A reload keeps showing the old rows until their chunk comes again.
	c.restart(true)
	if !c.reloading() || c.waiting() {
		t.Fatalf("after restart(true): reloading %v waiting %v", c.reloading(), c.waiting())
	}
	if v, ok := c.at(1); !ok || v != 11 {
		t.Fatalf("stale row at(1) = %v %v", v, ok)
	}
	if c.answered(1, 2) {
		t.Fatal("an answer to a request from before the restart was taken")
	}
	c.ask(0, 3)
	c.answered(0, 3)
	c.put(0, []int{20})
	if _, ok := c.at(1); ok {
		t.Fatal("a stale row outlived its chunk's new, shorter copy")
	}
	if got := slices.Collect(c.rows()); !slices.Equal(got, []int{20}) {
		t.Fatalf("rows = %v", got)
	}

	// A new query starts empty.
	c.restart(false)
	if _, ok := c.at(0); ok || c.reloading() {
		t.Fatal("restart(false) kept rows")
	}
}
