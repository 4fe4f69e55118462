package common

import (
	"context"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Backend is what the browser needs from an Agent session: the office's
// members, a Computer's Finder catalog and content search, reads of
// dpe:// resources (one method per level, each taking the parsed URI),
// the Desktop, SKILLs, tools and blobs. *agent.Client satisfies it. Every method must honour ctx;
// the browser always passes a context with a deadline.
type Backend interface {
	// ListRoom returns the members of the office (server:list_room).
	ListRoom(ctx context.Context) ([]protocol.SessionInfo, error)
	// GetFinder returns one page of a Computer's catalog (client:get_finder).
	GetFinder(ctx context.Context, computer string, q protocol.FinderQuery) (*protocol.GetFinderRet, error)
	// SearchFinder runs one step of a content search (client:search_finder).
	SearchFinder(ctx context.Context, computer string, q protocol.SearchQuery) (*protocol.SearchFinderRet, error)
	// ReadDocument reads a Level 1 document URI (with depth=pages&offset&limit
	// in its query for a window of its page index).
	ReadDocument(ctx context.Context, computer string, u dpe.URI) (*protocol.DPEDocument, error)
	// ReadPage reads a Level 2 page URI as JSON (categories in its query).
	ReadPage(ctx context.Context, computer string, u dpe.URI) (*protocol.DPEPage, error)
	// ReadElement reads a Level 3 element URI as JSON.
	ReadElement(ctx context.Context, computer string, u dpe.URI) (*protocol.DPEElementDetail, error)
	// GetDesktop returns a Computer's rendered windows (client:get_desktop).
	GetDesktop(ctx context.Context, computer string, size int, window string) (*protocol.GetDeskTopRet, error)
	// GetSkills returns a Computer's SKILLs (client:get_skills).
	GetSkills(ctx context.Context, computer string) (*protocol.GetSkillsRet, error)
	// GetSkill returns one file of a SKILL ("" is SKILL.md; client:get_skill).
	GetSkill(ctx context.Context, computer, name, relPath string) (*protocol.GetSkillRet, error)
	// GetBlob reads a blob by handle whole, at most max bytes, its size and
	// sha256 checked (client:get_blob, chunk by chunk).
	GetBlob(ctx context.Context, computer, handle string, max int64) ([]byte, agent.BlobInfo, error)
	// GetTools returns a Computer's tools (client:get_tools).
	GetTools(ctx context.Context, computer string) (*protocol.GetToolsRet, error)
	// CallTool calls a Computer's tool with params (client:tool_call);
	// timeout is the tool's own bound, sent to the Computer. A tool that
	// fails answers a result with IsError, not an error.
	CallTool(ctx context.Context, computer, tool string, params map[string]any, timeout time.Duration) (*protocol.CallToolResult, error)
	// Office returns the office the session joined.
	Office() string
}

// Live events. The command layer forwards the session's notifications to the
// program with tea.Program.Send.

// UpdateFinderMsg reports notify:update_finder: Computer's catalog or one of
// its documents changed.
type UpdateFinderMsg struct{ Computer string }

// UpdateDesktopMsg reports notify:update_desktop for Computer.
type UpdateDesktopMsg struct{ Computer string }

// UpdateSkillsMsg reports notify:update_skills for Computer.
type UpdateSkillsMsg struct{ Computer string }

// UpdateToolsMsg reports notify:update_tool_list for Computer.
type UpdateToolsMsg struct{ Computer string }

// EnterOfficeMsg reports notify:enter_office; Role is "computer" or "agent".
type EnterOfficeMsg struct {
	Name string
	Role string
}

// LeaveOfficeMsg reports notify:leave_office; Role is "computer" or "agent".
type LeaveOfficeMsg struct {
	Name string
	Role string
}
