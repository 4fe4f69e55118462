package debounce

import (
	"testing"
	"time"
)

func TestBurstIsDeliveredOnceAsItsUnion(t *testing.T) {
	got := make(chan uint8, 8)
	d := New(30*time.Millisecond, func(c uint8) { got <- c })
	for i := range 1000 {
		d.Trigger(uint8(1 << (i % 2)))
	}
	select {
	case c := <-got:
		if c != 3 {
			t.Errorf("delivered %b, want 11", c)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("nothing delivered")
	}
	select {
	case c := <-got:
		t.Errorf("a second delivery %b for one burst", c)
	case <-time.After(100 * time.Millisecond):
	}
	d.Trigger(1)
	d.Stop()
	select {
	case c := <-got:
		t.Errorf("delivered %b after Stop", c)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestSetDeliversABurstsKeysOnce(t *testing.T) {
	got := make(chan map[string]struct{}, 8)
	d := NewSet(30*time.Millisecond, func(k map[string]struct{}) { got <- k })
	for i := range 1000 {
		d.Add([]string{"laptop", "desktop"}[i%2])
	}
	select {
	case k := <-got:
		if _, ok := k["laptop"]; !ok || len(k) != 2 {
			t.Errorf("delivered %v, want laptop and desktop", k)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("nothing delivered")
	}
	select {
	case k := <-got:
		t.Errorf("a second delivery %v for one burst", k)
	case <-time.After(100 * time.Millisecond):
	}
	d.Add("laptop")
	d.Stop()
	select {
	case k := <-got:
		t.Errorf("delivered %v after Stop", k)
	case <-time.After(100 * time.Millisecond):
	}
}
