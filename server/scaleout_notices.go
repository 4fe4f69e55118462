package server

import (
	"encoding/json"
	"sync/atomic"
	"time"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// noticeQueue bounds the notifications waiting to be published.
const noticeQueue = 1 << 14

// noticeEvent carries a notification to the other nodes.
const noticeEvent = "smcp:notice"

// noticeWire is a notification between nodes.
type noticeWire struct {
	Office  string          `json:"office"`
	Except  string          `json:"except,omitempty"`
	Version uint64          `json:"version,omitempty"`
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
}

// clusterNotices delivers notices to an office's members on this node
// and, through the Redis adapter, on the others. Notifications for the
// other nodes are published in order by one goroutine: a publish waits for
// Redis (up to its timeout when Redis hangs), which must not hold up the
// sender's other requests.
type clusterNotices struct {
	*clusterState
	notices    chan noticeWire
	publishing *atomic.Bool // publishNotices runs
	stop       chan struct{}
	stopped    chan struct{}
}

func newClusterNotices(st *clusterState) clusterNotices {
	return clusterNotices{clusterState: st, notices: make(chan noticeWire, noticeQueue), publishing: new(atomic.Bool),
		stop: make(chan struct{}), stopped: make(chan struct{})}
}

// deliver sends n to the office's members on this node and, through the
// other nodes, on theirs (to n.to when it names no office).
func (cs *clusterNotices) deliver(n notice) {
	if n.office == "" {
		n.send()
		return
	}
	raw, err := json.Marshal(n.payload)
	if err != nil {
		cs.log.Error("notification is not JSON", "event", n.event, "err", err)
		return
	}
	w := noticeWire{Office: n.office, Version: n.version, Event: n.event, Payload: raw}
	if n.except != nil {
		w.Except = n.except.sid
	}
	cs.deliverLocal(w)
	select {
	case cs.notices <- w:
	default:
		cs.log.Warn("notification not sent to the other nodes: too many waiting", "event", n.event, "office", n.office)
	}
}

// drainNotices stops publishNotices once it has sent what is queued, or
// after wait.
func (cs *clusterNotices) drainNotices(wait time.Duration) {
	if !cs.publishing.Load() {
		return
	}
	close(cs.stop)
	select {
	case <-cs.stopped:
	case <-time.After(wait):
	}
}

// publishNotices sends the queued notifications to the other nodes until
// stop, then what is still queued.
func (cs *clusterNotices) publishNotices() {
	defer close(cs.stopped)
	send := func(w noticeWire) {
		b, _ := json.Marshal(w)
		if err := cs.srv.io.ServerEmit(noticeEvent, string(b)); err != nil {
			cs.log.Warn("notification not sent to the other nodes", "event", w.Event, "office", w.Office, "err", err)
		}
	}
	for {
		select {
		case w := <-cs.notices:
			send(w)
		case <-cs.stop:
			for {
				select {
				case w := <-cs.notices:
					send(w)
				default:
					return
				}
			}
		}
	}
}

// onNotice delivers a notification from another node.
func (cs *clusterNotices) onNotice(payload string) {
	var w noticeWire
	if err := json.Unmarshal([]byte(payload), &w); err != nil {
		cs.log.Warn("cluster: a notification that does not decode; dropped", "err", err)
		return
	}
	cs.deliverLocal(w)
}

// deliverLocal sends w to this node's members of its office, but the one
// excepted and those who joined after the change (a version not above
// theirs).
func (cs *clusterNotices) deliverLocal(w noticeWire) {
	if w.Event == protocol.NotifyEnterOffice || w.Event == protocol.NotifyLeaveOffice {
		cs.seats.forget(w.Office)
	}
	to := cs.here.hearing(w.Office, w.Except, w.Version)
	if cs.srv.debug {
		cs.log.Debug("notification", "event", w.Event, "office", w.Office, "version", w.Version, "to", len(to))
	}
	for _, m := range to {
		m.emit(w.Event, w.Payload)
	}
}
