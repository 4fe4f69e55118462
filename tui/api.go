package tui

import (
	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/keymap"
)

// The browser's public vocabulary lives with the packages that use it;
// these names keep it reachable from package tui.
type (
	// Options configures the browser; see common.Options.
	Options = common.Options
	// Backend is what the browser needs from an Agent session; see
	// common.Backend.
	Backend = common.Backend
	// KeyMap holds every key binding of the browser.
	KeyMap = keymap.KeyMap

	// UpdateFinderMsg reports notify:update_finder.
	UpdateFinderMsg = common.UpdateFinderMsg
	// UpdateDesktopMsg reports notify:update_desktop.
	UpdateDesktopMsg = common.UpdateDesktopMsg
	// UpdateSkillsMsg reports notify:update_skills.
	UpdateSkillsMsg = common.UpdateSkillsMsg
	// UpdateToolsMsg reports notify:update_tool_list.
	UpdateToolsMsg = common.UpdateToolsMsg
	// EnterOfficeMsg reports notify:enter_office.
	EnterOfficeMsg = common.EnterOfficeMsg
	// LeaveOfficeMsg reports notify:leave_office.
	LeaveOfficeMsg = common.LeaveOfficeMsg
)

// DefaultKeyMap returns the browser's standard bindings.
func DefaultKeyMap() KeyMap { return keymap.DefaultKeyMap() }
