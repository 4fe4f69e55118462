package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// presence follows whether the computer a screen shows is in the office,
// from the office's enter and leave notifications.
type presence struct {
	comp string // the computer's name
	gone bool   // it left the office and has not come back
}

// track applies msg when it is an enter or leave notification about the
// computer, and reports whether the screen should react: the computer left
// (gone becomes true), or it entered, even when it was not known to have
// left (after a Server restart the browser may re-join first, read a 404,
// and never see the computer leave: its enter is the cue to re-read).
func (p *presence) track(msg tea.Msg) bool {
	var role, name string
	var leaving bool
	switch m := msg.(type) {
	case LeaveOfficeMsg:
		role, name, leaving = m.Role, m.Name, true
	case EnterOfficeMsg:
		role, name = m.Role, m.Name
	default:
		return false
	}
	if role != string(protocol.RoleComputer) || name != p.comp || (leaving && p.gone) {
		return false
	}
	p.gone = leaving
	return true
}
