// Package live is the live-reload helper of every screen that shows a
// computer's data: it reads the session's notifications for that computer,
// follows its presence in the office and coalesces re-reads.
package live

import (
	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
)

// Event is what a message means to a screen showing one computer's
// data.
type Event int

const (
	None        Event = iota
	Changed           // the computer announced a change (notify:update_finder; notify:update_desktop for the Desktop, notify:update_skills for the Skills, notify:update_tool_list for the Tools)
	Reconnected       // the session reconnected: notifications may have been missed
	Entered           // the computer entered the office (back after leaving, or after a Server restart)
	Left              // the computer left the office
)

// stale reports whether the screen should read what it shows again.
func (e Event) stale() bool {
	return e == Changed || e == Reconnected || e == Entered
}

// presence reports whether the event changed whether the computer is in
// the office (the screen's "computer left" line comes or goes).
func (e Event) presence() bool { return e == Entered || e == Left }

// Tracker is the live-reload helper every screen showing a computer's
// data uses: it reads the session's notifications for that computer
// (observe), follows whether the computer is in the office, and coalesces
// re-reads (reread, done, cancel) so that a burst of notifications during a
// re-read costs one more re-read at its end, not one each.
type Tracker struct {
	comp  string
	kind  kind // which change notification the screen follows
	gone  bool // the computer left the office and has not come back
	busy  bool // a re-read is in flight
	again bool // another re-read was asked for meanwhile
}

// kind is what of a computer's a screen shows, so which of its change
// notifications it follows.
type kind int

const (
	finder  kind = iota // notify:update_finder
	desktop             // notify:update_desktop
	skills              // notify:update_skills
	tools               // notify:update_tool_list
)

// New follows computer; desktop follows its Desktop's
// notifications instead of its Finder's.
func New(computer string, onDesktop bool) Tracker {
	if onDesktop {
		return Tracker{comp: computer, kind: desktop}
	}
	return Tracker{comp: computer, kind: finder}
}

// NewSkills follows computer's SKILLs (notify:update_skills).
func NewSkills(computer string) Tracker {
	return Tracker{comp: computer, kind: skills}
}

// NewTools follows computer's tools (notify:update_tool_list).
func NewTools(computer string) Tracker {
	return Tracker{comp: computer, kind: tools}
}

// Observe classifies msg. An enter of the computer counts even when it was
// not known to have left: after a Server restart the browser may re-join
// first, read a 404, and never see the computer leave; its enter is the cue
// to read again.
func (l *Tracker) Observe(msg tea.Msg) Event {
	switch m := msg.(type) {
	case common.UpdateSkillsMsg:
		if l.kind == skills && m.Computer == l.comp {
			return Changed
		}
	case common.UpdateToolsMsg:
		if l.kind == tools && m.Computer == l.comp {
			return Changed
		}
	case common.UpdateFinderMsg:
		if l.kind == finder && m.Computer == l.comp {
			return Changed
		}
	case common.UpdateDesktopMsg:
		if l.kind == desktop && m.Computer == l.comp {
			return Changed
		}
	case common.ReconnectedMsg:
		return Reconnected
	case common.EnterOfficeMsg:
		if m.Role == string(protocol.RoleComputer) && m.Name == l.comp {
			l.gone = false
			return Entered
		}
	case common.LeaveOfficeMsg:
		if m.Role == string(protocol.RoleComputer) && m.Name == l.comp && !l.gone {
			l.gone = true
			return Left
		}
	}
	return None
}

// Gone reports whether the computer left the office.
func (l *Tracker) Gone() bool { return l.gone }

// reread asks for a re-read: it reports whether to start one now; while
// one is in flight it only notes that another is wanted.
func (l *Tracker) reread() bool {
	if l.busy {
		l.again = true
		return false
	}
	l.busy = true
	return true
}

// Done says that what the screen asked for has arrived (answer or error);
// it reports whether a re-read asked for meanwhile must start now, which is
// then in flight.
func (l *Tracker) Done() bool {
	if l.again {
		l.again = false
		return true
	}
	l.busy = false
	return false
}

// Cancel forgets the re-read in flight and any asked for meanwhile: the
// screen shows something else now, or the re-read failed.
func (l *Tracker) Cancel() { l.busy, l.again = false, false }

// Handle reacts to msg when it is a live message for the screen: relayout
// (may be nil) when the computer left or came back, and restart, coalesced,
// when what the screen shows is stale. ok is false for any other message.
func (l *Tracker) Handle(msg tea.Msg, relayout, restart func() tea.Cmd) (cmd tea.Cmd, ok bool) {
	ev := l.Observe(msg)
	if ev == None {
		return nil, false
	}
	var cmds []tea.Cmd
	if ev.presence() && relayout != nil {
		cmds = append(cmds, relayout())
	}
	if ev.stale() {
		cmds = append(cmds, l.RereadCmd(restart))
	}
	return tea.Batch(cmds...), true
}

// RereadCmd runs restart unless a re-read is in flight (then one more
// follows it).
func (l *Tracker) RereadCmd(restart func() tea.Cmd) tea.Cmd {
	if !l.reread() {
		return nil
	}
	return restart()
}
