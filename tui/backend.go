package tui

import (
	"context"

	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Backend is what the browser needs from an Agent session: the office's
// members, a Computer's Finder catalog, reads of dpe:// resources and the
// Desktop. agent.Client satisfies it through a small adapter (FinderQuery is
// declared here so that tui does not import agent). Every method must honour
// ctx; the browser always passes a context with a deadline.
type Backend interface {
	// ListRoom returns the members of the office (server:list_room).
	ListRoom(ctx context.Context) ([]protocol.SessionInfo, error)
	// GetFinder returns one page of a Computer's catalog (client:get_finder).
	GetFinder(ctx context.Context, computer string, q FinderQuery) (*protocol.GetFinderRet, error)
	// ReadDocumentPages reads a Level 1 document with depth=pages&offset&limit.
	ReadDocumentPages(ctx context.Context, computer, docURI string, offset, limit int) (*protocol.DPEDocument, error)
	// ReadJSON reads a dpe:// URI as JSON into v (used for Level 2 pages).
	ReadJSON(ctx context.Context, computer, uri string, v any) error
	// ReadElement reads a Level 3 element.
	ReadElement(ctx context.Context, computer, docURI, elementID string) (*protocol.DPEElementDetail, error)
	// GetDesktop returns a Computer's rendered windows (client:get_desktop).
	GetDesktop(ctx context.Context, computer string, size int, window string) (*protocol.GetDeskTopRet, error)
	// Office returns the office the session joined.
	Office() string
}

// FinderQuery filters and pages a get_finder request; it mirrors
// agent.FinderQuery field for field.
type FinderQuery struct {
	Keywords []string
	FileType string
	Offset   int
	Limit    int
}

// Live events. The command layer forwards the session's notifications to the
// program with tea.Program.Send.

// UpdateFinderMsg reports notify:update_finder: Computer's catalog or one of
// its documents changed.
type UpdateFinderMsg struct{ Computer string }

// UpdateDesktopMsg reports notify:update_desktop for Computer.
type UpdateDesktopMsg struct{ Computer string }

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

// ConnStateMsg reports the session's connection state, in the connection's
// own type (agent.State is the same): ConnConnecting, ConnConnected,
// ConnReconnecting or ConnClosed.
type ConnStateMsg struct{ State sio.State }

// Connection states carried by ConnStateMsg.
const (
	ConnConnecting   = sio.StateConnecting
	ConnConnected    = sio.StateConnected
	ConnReconnecting = sio.StateReconnecting
	ConnClosed       = sio.StateClosed
)
