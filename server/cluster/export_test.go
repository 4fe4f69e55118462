package cluster

// Crash stops n's heartbeat and subscription without ending its lease or
// removing its sessions, as a kill -9 of its process does.
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
}
