package server

// Scale-out: with Options.Redis, every node sharing that Redis is one
// Server, and clusterStore is its office store. Where things live:
//
//   - Office state (who sits where, names, roles, the one agent) is in
//     Redis, changed only by the atomic scripts of server/cluster; each
//     session also keeps a copy of its own seat (name, role, office) on
//     its node, as on a single node (scaleout_seats.go).
//   - Notifications go to the other nodes through the Redis adapter
//     (ServerEmit); each node delivers them to its own members of the
//     office. A membership change carries the office's version, and a
//     member hears only the changes newer than its own join
//     (scaleout_notices.go).
//   - A client:* request for a computer on another node travels as a frame
//     on the direct link to that node (or its Redis channel when there is
//     no link); the computer's node forwards it with the same timer and
//     disconnect handling as on one node, and sends the answer back as a
//     frame to the agent's node (scaleout_remote.go, cluster/link.go).
//   - Each node holds a lease in Redis. A node that loses it (Redis
//     unreachable for a lease's time, Redis restarted, the node declared
//     dead) drops every client and refuses new ones until it has a new
//     lease; its old sessions are reaped with their leave notifications
//     (this file).

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/sio/sioserver"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server/cluster"
)

// clusterStore is the office store of a cluster node, composed by
// concern: clusterSeats keeps the seats in Redis and finds computers
// (scaleout_seats.go), clusterNotices delivers notices across the nodes
// (scaleout_notices.go); clusterStore itself runs the node's lifecycle and
// the requests between nodes (scaleout_remote.go). They share one
// clusterState.
type clusterStore struct {
	*clusterState
	clusterSeats
	clusterNotices
}

// clusterState is what the parts of a cluster node's store share.
type clusterState struct {
	srv    *Server
	log    *slog.Logger
	node   *cluster.Node
	here   localSeats   // the seats of this node's sessions
	remote *remoteTable // requests sent to other nodes
	seats  *seatCache   // where computers were found
}

// newClusterStore prepares the cluster side of s; Connect starts it.
func newClusterStore(s *Server) (*clusterStore, error) {
	st := &clusterState{srv: s, log: s.log, remote: newRemoteTable(), here: newLocalSeats(), seats: newSeatCache()}
	cs := &clusterStore{clusterState: st, clusterSeats: clusterSeats{st}, clusterNotices: newClusterNotices(st)}
	node, err := cluster.New(cluster.Options{
		URL: s.opts.Redis, Prefix: s.opts.RedisPrefix, TTL: s.opts.ClusterTTL, Link: s.opts.ClusterLink, Logger: s.log,
		OnFrame:    cs.onFrame,
		OnFenced:   cs.onFenced,
		OnReaped:   cs.onReaped,
		OnNodeGone: cs.onNodeGone,
		Waiting:    cs.remote.nodes,
		Seated:     cs.seated,
	})
	if err != nil {
		return nil, err
	}
	st.node = node
	return cs, nil
}

// configure links the node's Socket.IO server to the others' through the
// library's Redis adapter (which carries the notifications).
func (cs *clusterStore) configure(o *sioserver.ServerOptions) {
	pub, sub := cs.node.AdapterClients()
	o.Adapter = sioserver.RedisAdapter(context.Background(), pub, sub, cs.node.Prefix()+"-sio", cs.log)
}

// bind listens to the other nodes' notifications.
func (cs *clusterStore) bind(io *sioserver.Server) { io.OnServerEvent(noticeEvent, cs.onNotice) }

// start takes the node's lease in Redis and starts publishing; it does
// nothing when called again.
func (cs *clusterStore) start(ctx context.Context) error {
	if cs.publishing.Load() {
		return nil
	}
	if err := cs.node.Start(ctx); err != nil {
		cs.node.CloseSubscriber() // the adapter's loops stop redialling
		return err
	}
	id, _ := cs.node.ID()
	cs.log.Info("cluster node", "node", id, "redis", cs.node.Addr(), "link", cs.node.LinkAddr())
	cs.publishing.Store(true)
	go cs.publishNotices()
	return nil
}

// close ends the node's lease once its clients are gone.
func (cs *clusterStore) close() {
	ctx, cancel := context.WithTimeout(context.Background(), cs.srv.opts.ShutdownTimeout)
	defer cancel()
	if err := cs.node.Close(ctx); err != nil {
		cs.log.Warn("cluster: close", "err", err)
	}
}

// errNoLease refuses new sessions while the node holds no lease.
var errNoLease = errors.New("this Server node has lost contact with its cluster's Redis; try another node or again later")

// admits refuses new sessions while the node holds no lease.
func (cs *clusterStore) admits() error {
	if _, leased := cs.node.ID(); !leased {
		return fmt.Errorf("%w (Redis at %s)", errNoLease, cs.node.Addr())
	}
	return nil
}

// shutdown disconnects this node's clients while their leave
// notifications can still reach the other nodes, and stops the adapter.
func (cs *clusterStore) shutdown() {
	deadline := time.Now().Add(cs.srv.opts.ShutdownTimeout)
	cs.srv.io.DisconnectLocal()
	// The sessions' disconnections are handled as their sockets close,
	// not within DisconnectLocal: their leave notices are queued only then.
	if n := cs.srv.sessions.settle(time.Until(deadline)); n > 0 {
		cs.log.Warn("shutdown: sessions still leaving; their offices on other nodes may not hear it", "sessions", n)
	}
	cs.drainNotices(time.Until(deadline))
	// Closed first, the adapter's subscriptions end at once instead of
	// redialling a Redis that may be gone.
	cs.node.CloseSubscriber()
}

// onFenced drops everything when the node's lease is lost.
func (cs *clusterStore) onFenced(reason string) {
	for _, w := range cs.remote.takeAll() {
		p := w.p
		p.finish(protocol.Errorf(protocol.CodeInternalError, "%s: this Server node lost the cluster (%s); try again", p.event, reason))
	}
	cs.srv.io.DisconnectLocal()
	cs.here.clear()
	cs.seats.forget("")
}

// onReaped tells the offices of a dead node's sessions that they left.
func (cs *clusterStore) onReaped(left []cluster.Left) {
	for _, l := range left {
		cs.deliver(leftNotice(l, nil))
	}
}

// onNodeGone answers the requests waiting for a node that is gone.
func (cs *clusterStore) onNodeGone(node string) {
	for _, w := range cs.remote.takeNode(node) {
		p := w.p
		p.finish(protocol.Errorf(protocol.CodeNotFound, "computer '%s' disconnected before answering %s (its Server node is gone)", p.computer, p.event))
	}
}
