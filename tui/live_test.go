package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestLiveTrackerFollowsTheComputer(t *testing.T) {
	l := newLiveTracker("laptop", false)
	steps := []struct {
		msg         tea.Msg
		want        liveEvent
		gone        bool
		description string
	}{
		{LeaveOfficeMsg{Name: "desktop", Role: "computer"}, liveNone, false, "another computer leaves"},
		{LeaveOfficeMsg{Name: "laptop", Role: "agent"}, liveNone, false, "an agent of the same name leaves"},
		{EnterOfficeMsg{Name: "laptop", Role: "computer"}, liveEntered, false, "enter while thought present (a Server restart hid its leave): re-read"},
		{UpdateFinderMsg{Computer: "laptop"}, liveChanged, false, "its catalog changed"},
		{UpdateFinderMsg{Computer: "desktop"}, liveNone, false, "another computer's catalog changed"},
		{UpdateDesktopMsg{Computer: "laptop"}, liveNone, false, "its desktop changed: not what a catalog shows"},
		{LeaveOfficeMsg{Name: "laptop", Role: "computer"}, liveLeft, true, "the computer leaves"},
		{LeaveOfficeMsg{Name: "laptop", Role: "computer"}, liveNone, true, "a second leave"},
		{reconnectedMsg{}, liveReconnected, true, "the session reconnected"},
		{EnterOfficeMsg{Name: "laptop", Role: "computer"}, liveEntered, false, "the computer comes back"},
	}
	for _, st := range steps {
		if got := l.observe(st.msg); got != st.want || l.isGone() != st.gone {
			t.Errorf("%s: event %v gone %v, want %v %v", st.description, got, l.isGone(), st.want, st.gone)
		}
	}
	d := newLiveTracker("laptop", true)
	if d.observe(UpdateDesktopMsg{Computer: "laptop"}) != liveChanged || d.observe(UpdateFinderMsg{Computer: "laptop"}) != liveNone {
		t.Error("a Desktop tracker follows notify:update_desktop, not notify:update_finder")
	}
}

// A burst of notifications during a re-read costs one more re-read at its
// end, and a cancelled re-read does not hold the next one back.
func TestLiveTrackerCoalescesRereads(t *testing.T) {
	l := newLiveTracker("laptop", false)
	starts := 0
	restart := func() tea.Cmd { starts++; return nil }
	for range 5 {
		l.rereadCmd(restart)
	}
	if starts != 1 {
		t.Fatalf("5 re-reads asked during one started %d", starts)
	}
	if !l.done() {
		t.Fatal("the re-reads asked meanwhile were forgotten")
	}
	if l.done() {
		t.Fatal("one more re-read, not two")
	}
	l.rereadCmd(restart)
	if starts != 2 {
		t.Fatalf("a re-read after the last one ended did not start (%d)", starts)
	}
	l.rereadCmd(restart)
	l.cancel()
	l.rereadCmd(restart)
	if starts != 3 {
		t.Fatalf("a re-read after a cancel did not start (%d)", starts)
	}
}
