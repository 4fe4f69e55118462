package cluster

// Crash stops n's heartbeat, subscription and node links without ending
// its lease or removing its sessions, as a kill -9 of its process does.
func Crash(n *Node) {
	n.cancel()
	<-n.done
	n.mu.Lock()
	sub := n.sub
	n.sub = nil
	n.mu.Unlock()
	if sub != nil {
		sub.close()
	}
	if n.links != nil {
		_ = n.links.ln.Close()
		n.links.reset()
	}
}

// Linked counts the frames n sent over node links.
func Linked(n *Node) int64 { return n.linked.Load() }

// Published counts the frames n published through Redis.
func Published(n *Node) int64 { return n.published.Load() }

// StopListening closes n's link listener (as a firewall between nodes
// would make it unreachable); its Redis channel still listens.
func StopListening(n *Node) { _ = n.links.ln.Close() }
