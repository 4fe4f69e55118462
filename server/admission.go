package server

import (
	"sync/atomic"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// admission counts the client:* requests waiting for a computer's answer
// and refuses those over the limits (Options.MaxInFlight, MaxInFlightConn).
type admission struct {
	inFlight atomic.Int64 // over all connections
	max      int          // over all connections
	maxConn  int          // per agent connection
}

// admit takes an in-flight slot for a request from sess, or refuses it:
// over the Server's or the connection's limit (429), or a client:tool_call
// whose req_id is already in flight from the same agent (400: the older
// call could no longer be told apart, nor cancelled).
func (a *admission) admit(sess *session, event, reqID string) *protocol.Error {
	if n := a.inFlight.Add(1); n > int64(a.max) {
		a.inFlight.Add(-1)
		return protocol.Errorf(protocol.CodeTooManyRequests,
			"%s: the Server has %d requests waiting for computers (limit %d); try again later", event, n-1, a.max)
	}
	if e := sess.admit(event, reqID, a.maxConn); e != nil {
		a.inFlight.Add(-1)
		return e
	}
	return nil
}

// release gives back the slot admit took.
func (a *admission) release(sess *session, event, reqID string) {
	sess.release(event, reqID)
	a.inFlight.Add(-1)
}
