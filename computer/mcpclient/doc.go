// Package mcpclient runs a Computer's MCP servers: it starts each
// configured server (stdio, SSE or Streamable HTTP, through mcp-go),
// initializes it, keeps its capabilities, opts in to its notifications,
// restarts a crashed server with backoff and bounds every request with a
// timeout.
//
// # Lock order
//
// No lock of this package is taken while another of its locks is held.
// The Manager's mu (connections and states) is released before an Events
// callback runs and before a server is connected or closed; a Conn's mu
// (subscriptions, the listen stream, what the server granted) is released
// before any MCP request; an auth capture's mu guards one status. A
// floodMeter's mu is held while it logs through its ratelog.Logger, whose
// lock comes after it. Callers may hold a lock of their own while calling
// Manager.Conn and Manager.Conns (the Computer's tool table does).
package mcpclient
