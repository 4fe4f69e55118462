package mcpsubs

import (
	"slices"
	"testing"
)

func TestRecipients(t *testing.T) {
	s := New()
	s.Add("page", "dpe://h.docs/report/pages/2?format=markdown")
	s.Add("other", "dpe://h.docs/budget")
	s.Add("elsewhere", "dpe://x.docs/report")
	s.session("legacy") // registered, never subscribed

	got := s.Recipients("h.docs", "report")
	slices.Sort(got)
	if want := []string{"legacy", "page"}; !slices.Equal(got, want) {
		t.Errorf("recipients of h.docs/report = %v, want %v", got, want)
	}

	// An unsubscribed session keeps its strictness: it asked for
	// something once, so it no longer hears of everything.
	s.Remove("page", "dpe://h.docs/report/pages/2?format=markdown")
	got = s.Recipients("h.docs", "report")
	if !slices.Equal(got, []string{"legacy"}) {
		t.Errorf("after unsubscribing, recipients = %v, want [legacy]", got)
	}

	// Subscribing twice needs two unsubscriptions.
	s.Add("other", "dpe://h.docs/budget")
	s.Remove("other", "dpe://h.docs/budget")
	if got := s.Recipients("h.docs", "budget"); !slices.Contains(got, "other") {
		t.Errorf("one of two subscriptions removed: recipients %v lack other", got)
	}
}
