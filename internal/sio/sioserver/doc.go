// Package sioserver is the Server side of the project's Socket.IO layer:
// the library's Socket.IO server with its engine gated against the races
// of a fast client (engine.go), the namespace /smcp and its sockets
// (server.go), the Server's own WebSocket transport (wstransport.go) with
// the fast path of a joined session's events and acks (fast.go), and the
// library's Redis adapter that links the nodes of a cluster (redis.go).
// Payloads are raw JSON (package wire).
//
// # Lock order
//
// A gatedTransport's three locks: sendMu (the order of outgoing packets,
// held or not) comes first; flushOut takes mu under it to find the
// session, and the packets it sends reach a long-poll's answer
// (answerMu, through the library) or the WebSocket's frameWriter. mu
// (the incoming queue and the session's state) is held while no other
// lock is taken, and is released while a packet is delivered
// (deliverLocked), so handlers may send. answerMu is taken alone or
// under sendMu, and holds only pollWriter.DoWrite's own small lock. A
// frameWriter's mu comes before bursts.mu (a write during a burst
// registers its writer); bursts.end releases its mu before it releases
// the writers. fastSocket.mu (the acks awaited) is a leaf: it is released
// before a frame is written.
package sioserver
