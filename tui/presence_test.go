package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestPresenceTracksTheComputer(t *testing.T) {
	p := presence{comp: "laptop"}
	steps := []struct {
		msg         tea.Msg
		react       bool
		gone        bool
		description string
	}{
		{LeaveOfficeMsg{Name: "desktop", Role: "computer"}, false, false, "another computer leaves"},
		{LeaveOfficeMsg{Name: "laptop", Role: "agent"}, false, false, "an agent of the same name leaves"},
		{EnterOfficeMsg{Name: "laptop", Role: "computer"}, true, false, "enter while thought present (a Server restart hid its leave): re-read"},
		{LeaveOfficeMsg{Name: "laptop", Role: "computer"}, true, true, "the computer leaves"},
		{LeaveOfficeMsg{Name: "laptop", Role: "computer"}, false, true, "a second leave"},
		{UpdateFinderMsg{Computer: "laptop"}, false, true, "another message"},
		{EnterOfficeMsg{Name: "laptop", Role: "computer"}, true, false, "the computer comes back"},
	}
	for _, st := range steps {
		if got := p.track(st.msg); got != st.react || p.gone != st.gone {
			t.Errorf("%s: react %v gone %v, want %v %v", st.description, got, p.gone, st.react, st.gone)
		}
	}
}
