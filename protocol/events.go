package protocol

import "strings"

// Namespace is the Socket.IO namespace every SMCP event travels in.
const Namespace = "/smcp"

// Version is the A2C-SMCP protocol version this project speaks by default
// (what the official SDK a2c-smcp 0.4.x speaks); a Server and its clients
// may pin another with --a2c-version.
const Version = "0.4.0"

// client:* events are sent by an Agent, routed by the Server to one Computer
// and answered by ack.
const (
	EventToolCall     = "client:tool_call"
	EventGetTools     = "client:get_tools"
	EventGetConfig    = "client:get_config"
	EventGetDesktop   = "client:get_desktop"
	EventGetFinder    = "client:get_finder"
	EventListFinder   = "client:list_finder" // later upstream name of client:get_finder
	EventReadResource = "client:read_resource"
	// Added by the 0.2-0.4 upstream line (events.md, skill.md,
	// blob-transfer.md; put_blob is a2c-smcp 0.4's upload channel).
	EventGetResources = "client:get_resources"
	EventGetSkills    = "client:get_skills"
	EventGetSkill     = "client:get_skill"
	EventGetBlob      = "client:get_blob"
	EventPutBlob      = "client:put_blob"
)

// ClientPrefix starts every event the Server routes to a computer.
const ClientPrefix = "client:"

// IsClientEvent reports whether event is a client:* event.
func IsClientEvent(event string) bool { return strings.HasPrefix(event, ClientPrefix) }

// Skill updates (upstream 0.4): a computer's server:update_skills is
// relayed to its office as notify:update_skills.
const (
	EventUpdateSkills  = "server:update_skills"
	NotifyUpdateSkills = "notify:update_skills"
)

// server:* events are handled by the Server itself.
const (
	EventJoinOffice     = "server:join_office"
	EventLeaveOffice    = "server:leave_office"
	EventListRoom       = "server:list_room"
	EventUpdateConfig   = "server:update_config"
	EventUpdateToolList = "server:update_tool_list"
	EventUpdateDesktop  = "server:update_desktop"
	EventUpdateFinder   = "server:update_finder"
	EventToolCallCancel = "server:tool_call_cancel"
)

// notify:* events are broadcast by the Server to the members of an office.
const (
	NotifyEnterOffice    = "notify:enter_office"
	NotifyLeaveOffice    = "notify:leave_office"
	NotifyUpdateConfig   = "notify:update_config"
	NotifyUpdateToolList = "notify:update_tool_list"
	NotifyUpdateDesktop  = "notify:update_desktop"
	NotifyUpdateFinder   = "notify:update_finder"
	NotifyToolCallCancel = "notify:tool_call_cancel"
)

// ClientEvents returns every client:* event the Server routes to a Computer.
func ClientEvents() []string {
	return []string{
		EventToolCall, EventGetTools, EventGetConfig, EventGetDesktop,
		EventGetFinder, EventListFinder, EventReadResource, EventSearchFinder,
		EventGetResources, EventGetSkills, EventGetSkill, EventGetBlob, EventPutBlob,
	}
}

// NotificationFor returns the notify:* event the Server broadcasts when it
// receives the server:update_* (or tool-call cancel) event, and false for
// any other event.
func NotificationFor(event string) (string, bool) {
	switch event {
	case EventUpdateConfig:
		return NotifyUpdateConfig, true
	case EventUpdateToolList:
		return NotifyUpdateToolList, true
	case EventUpdateDesktop:
		return NotifyUpdateDesktop, true
	case EventUpdateFinder:
		return NotifyUpdateFinder, true
	case EventUpdateSkills:
		return NotifyUpdateSkills, true
	case EventToolCallCancel:
		return NotifyToolCallCancel, true
	}
	return "", false
}

// Role is the part a session plays in an office.
type Role string

// The two roles of the base protocol.
const (
	RoleAgent    Role = "agent"
	RoleComputer Role = "computer"
)

// Valid reports whether r is one of the protocol's roles.
func (r Role) Valid() bool { return r == RoleAgent || r == RoleComputer }
