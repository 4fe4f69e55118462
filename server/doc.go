// Package server is the SMCP Server role: a Socket.IO router in namespace
// /smcp that admits clients whose a2c_version it supports, keeps offices
// (one agent, any number of computers, unique names), routes every
// client:* request by computer name inside the caller's office and returns
// the computer's ack unchanged, and broadcasts notify:* events to the rest
// of an office. It knows nothing about MCP. With Options.Redis, several
// Servers sharing one Redis act as one (scaleout.go, package cluster).
//
// # Lock order
//
// No two locks of this package are held at once. registry.mu (the
// offices of a single node), localSeats.mu (a cluster node's own seats
// and the sessions' seat fields), sessionTable.mu, seatCache.mu,
// remoteTable.mu, deadlines.mu, connTracker.mu and a session's pendMu and
// sentMu guard their own fields and are released before anything is
// sent: joining and leaving return notices, delivered once the lock is
// released, and deadlines.fire expires requests after releasing its
// lock. A session's writeMu, which orders the writes to its socket, is
// the one held across a call out: package sioserver's locks come after
// it. Package cluster is called with no lock held, and its callbacks
// (Seated, OnFrame, OnReaped, OnFenced, OnNodeGone) run with none of its
// locks held and take this package's one at a time.
package server
