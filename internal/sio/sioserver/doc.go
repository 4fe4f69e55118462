// Package sioserver is the Server side of the project's Socket.IO layer:
// the library's Socket.IO server with its engine gated against the races
// of a fast client (engine.go), the namespace /smcp and its sockets
// (server.go), the Server's own WebSocket transport (wstransport.go) with
// the fast path of a joined session's events and acks (fast.go), and the
// library's Redis adapter that links the nodes of a cluster (redis.go).
// Payloads are raw JSON (package wire).
package sioserver
