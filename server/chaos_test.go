package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// TestRandomTrafficKeepsTheServerConsistent lets agents and computers loose
// on one Server with seeded random traffic: joining and leaving offices
// (with clashing names and full offices), listing rooms, requests to
// computers that answer, answer late, never answer or drop their
// connection while answering, malformed payloads, updates, and clients
// that hang up and dial again. Every request must get an answer from the
// Server (a result or a protocol error), never the client's own deadline;
// once every client has gone the Server must hold no session and no
// office, and it must still serve.
func TestRandomTrafficKeepsTheServerConsistent(t *testing.T) {
	// Late computers (up to 300 ms) often miss this timeout: their answers
	// arrive after the Server has answered the agent itself.
	srv := servertest.Start(t, server.Options{RequestTimeout: 150 * time.Millisecond})
	const (
		workers = 8
		ops     = 100
	)
	hang := make(chan struct{}) // computers that never answer wait on it
	defer close(hang)
	var (
		mu       sync.Mutex
		outcomes = map[string]int{} // "ok" or the error code: what the traffic covered
		wg       sync.WaitGroup
	)
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 0xc4a05))
			// Two agents (offices fill up), six computers whose names clash.
			role, peer := protocol.RoleComputer, protocol.RoleAgent
			if w%4 == 1 {
				role, peer = protocol.RoleAgent, protocol.RoleComputer
			}
			name := fmt.Sprintf("%s-%d", role, w%3) // names clash on purpose
			var conn *sio.Conn
			call := func(what, event string, payload any) {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_, err := conn.Call(ctx, event, payload)
				outcome := "ok"
				if strings.HasPrefix(event, "client:") {
					outcome = "routed"
				}
				switch {
				case errors.Is(err, sio.ErrClosed), errors.Is(err, sio.ErrNotConnected):
					// This computer dropped its own connection while answering.
					_ = conn.Close()
					conn, outcome = nil, "closed"
				case err != nil && strings.Contains(err.Error(), "no answer within"):
					t.Errorf("worker %d: %s went unanswered: %v", w, what, err)
					outcome = "unanswered"
				case err != nil:
					outcome = fmt.Sprint(protocol.CodeOf(err))
				}
				mu.Lock()
				outcomes[outcome]++
				mu.Unlock()
			}
			connect := func() bool {
				c, err := sio.Dial(context.Background(), sio.Options{URL: srv.URL, Logger: servertest.Logger(), DialTimeout: 5 * time.Second})
				if err != nil {
					t.Errorf("worker %d: dial: %v", w, err)
					return false
				}
				if role == protocol.RoleComputer {
					for _, ev := range protocol.ClientEvents() {
						c.Handle(ev, computerBehaviour(c, hang))
					}
				}
				conn = c
				// Most clients join an office as soon as they connect.
				if rng.IntN(4) > 0 {
					call("join", protocol.EventJoinOffice, protocol.EnterOfficeReq{Role: role, Name: name, OfficeID: fmt.Sprintf("office-%d", rng.IntN(2))})
				}
				return true
			}
			for range ops {
				if conn == nil && !connect() {
					return
				}
				office := fmt.Sprintf("office-%d", rng.IntN(2))
				op := rng.IntN(11)
				if role == protocol.RoleAgent {
					op = agentOps[op]
				} else {
					op = computerOps[op]
				}
				switch op {
				case opJoin:
					call("join", protocol.EventJoinOffice, protocol.EnterOfficeReq{Role: role, Name: name, OfficeID: office})
				case opLeave:
					call("leave", protocol.EventLeaveOffice, protocol.LeaveOfficeReq{OfficeID: office})
				case opList:
					call("list_room", protocol.EventListRoom, protocol.ListRoomReq{OfficeID: office})
				case opRequest:
					events := protocol.ClientEvents()
					ev := events[rng.IntN(len(events))]
					target := fmt.Sprintf("%s-%d", peer, rng.IntN(3))
					call(ev, ev, map[string]any{"agent": name, "req_id": fmt.Sprint(rng.Int()), "computer": target, "timeout": 1})
				case opMalformed:
					bad := []any{"a string", []any{1, 2}, 42.0, map[string]any{"computer": 7}, map[string]any{"office_id": strings.Repeat("x", 200_000)}}
					call("malformed", []string{protocol.EventJoinOffice, protocol.EventGetFinder, protocol.EventListRoom}[rng.IntN(3)], bad[rng.IntN(len(bad))])
				case opUpdate:
					call("update", protocol.EventUpdateFinder, protocol.UpdateComputerConfigReq{Computer: name})
				case opIdle:
					time.Sleep(20 * time.Millisecond) // a computer mostly waits for requests
				case opHangUp:
					_ = conn.Close()
					conn = nil
				}
			}
			if conn != nil {
				_ = conn.Close()
			}
		})
	}
	wg.Wait()
	t.Logf("outcomes (ok, routed, or the error code): %v", outcomes)
	for _, want := range []string{"routed", "404", "4103", "400"} {
		if outcomes[want] == 0 {
			t.Errorf("the traffic never produced %q; it no longer covers what it should", want)
		}
	}

	var sessions, offices int
	if !testutil.WaitUntil(10*time.Second, func() bool {
		sessions, offices = server.Counts(srv.Srv)
		return sessions == 0 && offices == 0
	}) {
		t.Fatalf("every client has gone, yet the server holds %d sessions and %d offices", sessions, offices)
	}
	c := dial(t, srv.URL)
	join(t, c, protocol.RoleAgent, "last", "office-0")
	raw, err := c.Call(testCtx(t), protocol.EventListRoom, protocol.ListRoomReq{OfficeID: "office-0"})
	var room protocol.ListRoomRet
	if err != nil || json.Unmarshal(raw, &room) != nil || len(room.Sessions) != 1 {
		t.Fatalf("after the traffic: list_room %s %v", raw, err)
	}
}

// What a client does next; each role draws from its own mix.
const (
	opJoin = iota
	opLeave
	opList
	opRequest
	opMalformed
	opUpdate
	opIdle
	opHangUp
)

var (
	agentOps    = [11]int{opJoin, opLeave, opList, opRequest, opRequest, opRequest, opRequest, opRequest, opRequest, opMalformed, opHangUp}
	computerOps = [11]int{opJoin, opLeave, opList, opRequest, opMalformed, opUpdate, opUpdate, opIdle, opIdle, opIdle, opHangUp}
)

// computerBehaviour answers a routed request in one of the ways a real
// computer might: at once, late, never, or by dropping its connection.
func computerBehaviour(c *sio.Conn, hang <-chan struct{}) sio.Handler {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		switch n := rand.IntN(10); {
		case n < 6:
			return map[string]any{"got": raw}, nil
		case n < 8:
			time.Sleep(time.Duration(rand.IntN(300)) * time.Millisecond)
			return map[string]any{"late": true}, nil
		case n < 9:
			select {
			case <-hang:
			case <-ctx.Done():
			}
			return nil, ctx.Err()
		default:
			_ = c.Close()
			return nil, errors.New("gone")
		}
	}
}
