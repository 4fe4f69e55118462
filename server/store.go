package server

import (
	"context"
	"encoding/json"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/sio/sioserver"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// officeStore holds a Server's offices. registry keeps the offices of a
// single node in memory; clusterStore keeps them in Redis for every node
// sharing it (scaleout.go). The handlers and the router are written once
// against it, one small interface a concern:
type officeStore interface {
	seatKeeper
	memberLister
	computerFinder
	noticeDeliverer
	storeLifecycle
}

// seatKeeper seats sessions by the office rules: one agent per office,
// names unique in an office, an agent in one office.
type seatKeeper interface {
	// join seats sess as in asks, by the office rules; the notices are
	// delivered once the join is answered (a refused join may still carry
	// some: seats the cluster removed on the way).
	join(ctx context.Context, sess *session, in protocol.EnterOfficeReq) ([]notice, *protocol.Error)
	// leave takes sess out of officeID; left is false when it was not
	// there (which is no error, as in upstream's Server).
	leave(ctx context.Context, sess *session, officeID string) (notes []notice, left bool, e *protocol.Error)
	// remove forgets the seat of a disconnected session: the office it was
	// in ("" for none) and the notices for the others. It gives up when
	// ctx ends.
	remove(ctx context.Context, sess *session) (officeID string, notes []notice)
}

// memberLister tells who sits in an office.
type memberLister interface {
	// list returns the members of officeID, which must be sess's office.
	list(ctx context.Context, sess *session, officeID string) ([]protocol.SessionInfo, *protocol.Error)
	// peers returns sess's seat and the members on this node a notice
	// from it goes to (nil when deliver finds them itself); ok is false
	// when sess is in no office.
	peers(sess *session) (officeID string, role protocol.Role, name string, others []*session, ok bool)
	// officeCount counts the offices with members on this node.
	officeCount() int
}

// computerFinder finds the computer a client:* request names.
type computerFinder interface {
	// known is target when it needs no network (the computer's seat is
	// remembered, or the store is in memory): ok false means target must
	// be asked. It never blocks.
	known(sess *session, event, name string) (to destination, officeID, sender string, e *protocol.Error, ok bool)
	// target finds the computer named name for sess's request event,
	// checking in the protocol's order: sess in no office (4103), not an
	// agent (403), the computer in another office (4104), unknown (404).
	// It returns sess's office and name too. It may wait on the network,
	// for no longer than ctx allows.
	target(ctx context.Context, sess *session, event, name string) (to destination, officeID, sender string, e *protocol.Error)
}

// noticeDeliverer sends notices to an office's members.
type noticeDeliverer interface {
	// deliver sends n to the members it is for.
	deliver(n notice)
}

// storeLifecycle is what the Server runs of a store as it starts and
// stops.
type storeLifecycle interface {
	// configure adds what the store needs to the Socket.IO server's
	// options (the cluster's Redis adapter); bind gives it the server.
	configure(o *sioserver.ServerOptions)
	bind(io *sioserver.Server)
	// start connects the store (the cluster's lease in Redis); close ends
	// it once the node's clients are gone.
	start(ctx context.Context) error
	close()
	// admits reports why this node may not start new sessions now, or nil.
	admits() error
	// shutdown runs before the Server disconnects its clients for good:
	// their leave notices must still reach the other nodes.
	shutdown()
}

// destination is where a routed request goes: a computer's session on
// this node, or one on another node of the cluster.
type destination interface {
	// send forwards p's request and answers p with the computer's ack, a
	// 408 when timeout passes first, or a 404 when the computer
	// disconnects first; req's logger says what happened.
	send(p *localReq, payload json.RawMessage, timeout time.Duration, req logged)
}

// notice is a notification to send once the registry lock is released:
// to the sessions to, or (cluster) to the office's members on every node
// but the session except.
type notice struct {
	to      []*session
	office  string
	except  *session
	version uint64 // cluster: the office's version after a membership change
	event   string
	payload any
}

// send delivers n.
func (n notice) send() {
	for _, s := range n.to {
		s.emit(n.event, n.payload)
	}
}
