package tui

import "github.com/smcp-browse/smcp-browse/internal/sio"

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
