// Package cluster is what several Server nodes sharing one Redis need
// beside Socket.IO's Redis adapter (which carries the office broadcasts):
// the office state in Redis, changed by atomic Lua scripts; a lease per
// node, renewed by a heartbeat, whose loss fences the node; the reaping of
// dead nodes' sessions; and the frames between nodes (routed requests and
// their answers, opaque here): over authenticated TCP links between nodes,
// or a pub/sub channel per node where no link can be made. It knows
// nothing about Socket.IO.
//
// Files: node.go (a node's options and lifecycle), lease.go (the lease,
// its heartbeat, fencing and the reaping of dead nodes), seats.go (the
// office state: join, leave, route, list), link.go, link_handshake.go and
// link_peer.go (frames over links: listening and receiving, the
// handshake, the links this node dialled),
// outbox.go and inbox.go (frames through Redis), scripts.go (the Lua
// scripts).
//
// # Lock order
//
// No lock of this package is taken while another is held. Node.mu (the
// lease), links.mu (the peers and inbound links), a peer's mu (its queue
// and connection), publisher.mu (the frames waiting for Redis) and
// subscription.mu (its connection) each guard their own fields and are
// released before frames are written or read, before Redis is called,
// before a peer hands frames to the publisher and before an Options
// callback (Seated, OnFrame, OnReaped, OnFenced, OnNodeGone) runs.
package cluster
