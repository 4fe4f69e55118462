package live

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/tui/common"
)

func TestLiveTrackerFollowsTheComputer(t *testing.T) {
	l := New("laptop", false)
	steps := []struct {
		msg         tea.Msg
		want        Event
		gone        bool
		description string
	}{
		{common.LeaveOfficeMsg{Name: "desktop", Role: "computer"}, None, false, "another computer leaves"},
		{common.LeaveOfficeMsg{Name: "laptop", Role: "agent"}, None, false, "an agent of the same name leaves"},
		{common.EnterOfficeMsg{Name: "laptop", Role: "computer"}, Entered, false, "enter while thought present (a Server restart hid its leave): re-read"},
		{common.UpdateFinderMsg{Computer: "laptop"}, Changed, false, "its catalog changed"},
		{common.UpdateFinderMsg{Computer: "desktop"}, None, false, "another computer's catalog changed"},
		{common.UpdateDesktopMsg{Computer: "laptop"}, None, false, "its desktop changed: not what a catalog shows"},
		{common.LeaveOfficeMsg{Name: "laptop", Role: "computer"}, Left, true, "the computer leaves"},
		{common.LeaveOfficeMsg{Name: "laptop", Role: "computer"}, None, true, "a second leave"},
		{common.ReconnectedMsg{}, Reconnected, true, "the session reconnected"},
		{common.EnterOfficeMsg{Name: "laptop", Role: "computer"}, Entered, false, "the computer comes back"},
	}
	for _, st := range steps {
		if got := l.Observe(st.msg); got != st.want || l.Gone() != st.gone {
			t.Errorf("%s: event %v gone %v, want %v %v", st.description, got, l.Gone(), st.want, st.gone)
		}
	}
	d := New("laptop", true)
	if d.Observe(common.UpdateDesktopMsg{Computer: "laptop"}) != Changed || d.Observe(common.UpdateFinderMsg{Computer: "laptop"}) != None {
		t.Error("a Desktop tracker follows notify:update_desktop, not notify:update_finder")
	}
	tl := NewTools("laptop")
	if tl.Observe(common.UpdateToolsMsg{Computer: "laptop"}) != Changed || tl.Observe(common.UpdateToolsMsg{Computer: "desktop"}) != None ||
		tl.Observe(common.UpdateFinderMsg{Computer: "laptop"}) != None || tl.Observe(common.UpdateSkillsMsg{Computer: "laptop"}) != None {
		t.Error("a Tools tracker follows its computer's notify:update_tool_list, nothing else")
	}
	if l.Observe(common.UpdateToolsMsg{Computer: "laptop"}) != None {
		t.Error("a catalog tracker follows notify:update_tool_list")
	}
}

// A burst of notifications during a re-read costs one more re-read at its
// end, and a cancelled re-read does not hold the next one back.
func TestLiveTrackerCoalescesRereads(t *testing.T) {
	l := New("laptop", false)
	starts := 0
	restart := func() tea.Cmd { starts++; return nil }
	for range 5 {
		l.RereadCmd(restart)
	}
	if starts != 1 {
		t.Fatalf("5 re-reads asked during one started %d", starts)
	}
	if !l.Done() {
		t.Fatal("the re-reads asked meanwhile were forgotten")
	}
	if l.Done() {
		t.Fatal("one more re-read, not two")
	}
	l.RereadCmd(restart)
	if starts != 2 {
		t.Fatalf("a re-read after the last one ended did not start (%d)", starts)
	}
	l.RereadCmd(restart)
	l.Cancel()
	l.RereadCmd(restart)
	if starts != 3 {
		t.Fatalf("a re-read after a cancel did not start (%d)", starts)
	}
}
