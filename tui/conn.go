package tui

import "github.com/smcp-browse/smcp-browse/agent"

// ConnStateMsg reports the session's connection state, in the agent's
// type (agent.State): ConnConnecting, ConnConnected, ConnReconnecting or
// ConnClosed.
type ConnStateMsg struct{ State agent.State }

// Connection states carried by ConnStateMsg.
const (
	ConnConnecting   = agent.StateConnecting
	ConnConnected    = agent.StateConnected
	ConnReconnecting = agent.StateReconnecting
	ConnClosed       = agent.StateClosed
)
