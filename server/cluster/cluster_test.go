package cluster_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/smcp-browse/smcp-browse/internal/redistest"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server/cluster"
)

const wait = 10 * time.Second

// events records what a node reports.
type events struct {
	mu     sync.Mutex
	fenced []string
	reaped []cluster.Left
	gone   []string
	frames chan []byte
}

// open opens a node whose frames go through Redis (no node link).
func open(t *testing.T, url string, ttl time.Duration, ev *events) *cluster.Node {
	t.Helper()
	return openLink(t, url, ttl, cluster.LinkOff, ev)
}

// openLink opens a node with link as its Options.Link.
func openLink(t *testing.T, url string, ttl time.Duration, link string, ev *events) *cluster.Node {
	t.Helper()
	if ev == nil {
		ev = &events{}
	}
	ev.frames = make(chan []byte, 100)
	n, err := cluster.Open(context.Background(), cluster.Options{
		URL: url, TTL: ttl, Link: link,
		OnFrame:  func(f []byte) { ev.frames <- bytes.Clone(f) },
		OnFenced: func(r string) { ev.mu.Lock(); ev.fenced = append(ev.fenced, r); ev.mu.Unlock() },
		OnReaped: func(l []cluster.Left) { ev.mu.Lock(); ev.reaped = append(ev.reaped, l...); ev.mu.Unlock() },
		OnNodeGone: func(node string) {
			ev.mu.Lock()
			ev.gone = append(ev.gone, node)
			ev.mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close(context.Background()) })
	return n
}

func id(n *cluster.Node) string { s, _ := n.ID(); return s }

func join(t *testing.T, n *cluster.Node, sid, name string, role protocol.Role, office string) cluster.JoinResult {
	t.Helper()
	r, err := n.Join(context.Background(), cluster.Member{SID: sid, Name: name, Role: role, Office: office, Version: "0.4.0"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func members(t *testing.T, n *cluster.Node, csid, office string) string {
	t.Helper()
	list, err := n.List(context.Background(), id(n), csid, office)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range list {
		out = append(out, fmt.Sprintf("%s:%s", m.Role, m.Name))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// TestSeatRules checks the office rules across two nodes.
func TestSeatRules(t *testing.T) {
	r := redistest.Start(t)
	a, b := open(t, r.URL, 0, nil), open(t, r.URL, 0, nil)

	if res := join(t, a, "s1", "bot", protocol.RoleAgent, "o1"); res.Code != 0 {
		t.Fatalf("first agent: %+v", res)
	}
	if res := join(t, b, "s2", "bot2", protocol.RoleAgent, "o1"); res.Code != protocol.CodeRoomFull || res.Holder != "bot" {
		t.Fatalf("second agent on another node: %+v, want 4101 naming bot", res)
	}
	if res := join(t, b, "s3", "pc1", protocol.RoleComputer, "o1"); res.Code != 0 {
		t.Fatalf("computer: %+v", res)
	}
	if res := join(t, a, "s4", "pc1", protocol.RoleComputer, "o1"); res.Code != protocol.CodeNameTaken {
		t.Fatalf("same name on another node: %+v, want 4105", res)
	}
	if res := join(t, a, "s1", "bot", protocol.RoleAgent, "o1"); !res.Noop {
		t.Fatalf("joining again: %+v, want a no-op", res)
	}
	if res := join(t, a, "s1", "bot", protocol.RoleAgent, "o2"); res.Code != protocol.CodeAgentInOtherRoom || res.Holder != "o1" {
		t.Fatalf("agent into a second office: %+v, want 4106 naming o1", res)
	}
	if got := members(t, a, "s1", "o1"); got != "agent:bot computer:pc1" {
		t.Fatalf("list: %s", got)
	}
	// A computer moving leaves its old seat.
	res := join(t, b, "s3", "pc1", protocol.RoleComputer, "o2")
	if res.Code != 0 || len(res.Left) != 1 || res.Left[0].Office != "o1" || res.Left[0].Name != "pc1" {
		t.Fatalf("move: %+v", res)
	}
	if _, _, where, err := a.Target(context.Background(), id(a), "s1", "o1", "pc1"); err != nil || where != cluster.Elsewhere {
		t.Fatalf("target in another office: %v %v, want Elsewhere", where, err)
	}
	if _, _, where, err := a.Target(context.Background(), id(a), "s1", "o1", "nobody"); err != nil || where != cluster.Missing {
		t.Fatalf("unknown target: %v %v", where, err)
	}
	join(t, b, "s5", "pc5", protocol.RoleComputer, "o1")
	sid, at, where, err := a.Target(context.Background(), id(a), "s1", "o1", "pc5")
	if err != nil || where != cluster.Found || sid != "s5" || at != id(b) {
		t.Fatalf("target: %q %q %v %v", sid, at, where, err)
	}
	// A caller whose seat is gone cannot route nor list.
	if _, err := a.Leave(context.Background(), "s1", "o1"); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := a.Target(context.Background(), id(a), "s1", "o1", "pc5"); !errors.Is(err, cluster.ErrSeatLost) {
		t.Fatalf("target after leaving: %v, want ErrSeatLost", err)
	}
}

// TestOneAgentUnderRace has many sessions on two nodes race for one
// office's agent seat and one computer name: exactly one of each wins.
func TestOneAgentUnderRace(t *testing.T) {
	r := redistest.Start(t)
	nodes := []*cluster.Node{open(t, r.URL, 0, nil), open(t, r.URL, 0, nil)}
	var agents, computers atomic.Int32
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			res, err := nodes[i%2].Join(context.Background(), cluster.Member{SID: fmt.Sprintf("a%d", i), Name: fmt.Sprintf("bot%d", i), Role: protocol.RoleAgent, Office: "race"})
			if err == nil && res.Code == 0 {
				agents.Add(1)
			}
		}()
		go func() {
			defer wg.Done()
			res, err := nodes[i%2].Join(context.Background(), cluster.Member{SID: fmt.Sprintf("c%d", i), Name: "pc", Role: protocol.RoleComputer, Office: "race"})
			if err == nil && res.Code == 0 {
				computers.Add(1)
			}
		}()
	}
	wg.Wait()
	if agents.Load() != 1 || computers.Load() != 1 {
		t.Fatalf("%d agents and %d computers named pc seated, want 1 and 1", agents.Load(), computers.Load())
	}
}

// TestDeadNodeReaped: a node that stops renewing its lease (Close without
// cleanup is what a crash looks like: here its heartbeat is stopped by
// killing its Redis connection) loses its sessions within a few seconds,
// and exactly one other node reports them.
func TestDeadNodeReaped(t *testing.T) {
	r := redistest.Start(t)
	ttl := 600 * time.Millisecond
	evA, evB := &events{}, &events{}
	a, b := open(t, r.URL, ttl, evA), open(t, r.URL, ttl, evB)
	deadID := id(a)
	join(t, a, "s1", "pc1", protocol.RoleComputer, "o1")
	join(t, b, "s2", "bot", protocol.RoleAgent, "o1")
	crash(t, a)
	testutil.Eventually(t, wait, "the dead node's session reaped", func() bool {
		evB.mu.Lock()
		defer evB.mu.Unlock()
		return len(evB.reaped) > 0
	})
	evB.mu.Lock()
	defer evB.mu.Unlock()
	if len(evB.reaped) != 1 || evB.reaped[0].Name != "pc1" || evB.reaped[0].Office != "o1" {
		t.Fatalf("reaped %+v", evB.reaped)
	}
	if !contains(evB.gone, deadID) {
		t.Fatalf("node gone not reported: %v", evB.gone)
	}
	if got := members(t, b, "s2", "o1"); got != "agent:bot" {
		t.Fatalf("list after reaping: %s", got)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// crash stops a node's heartbeat without ending its lease or its
// sessions, as a kill -9 does.
func crash(t *testing.T, n *cluster.Node) {
	t.Helper()
	cluster.Crash(n)
}

// TestFencedAfterRedisRestart: Redis restarted empty; the node notices its
// lease is gone, fences, registers again under a new id and can seat
// sessions again.
func TestFencedAfterRedisRestart(t *testing.T) {
	r := redistest.Start(t)
	ev := &events{}
	a := open(t, r.URL, 600*time.Millisecond, ev)
	first := id(a)
	join(t, a, "s1", "pc1", protocol.RoleComputer, "o1")
	r.Restart(100 * time.Millisecond)
	testutil.Eventually(t, wait, "the node registered again", func() bool {
		now, leased := a.ID()
		return leased && now != first
	})
	ev.mu.Lock()
	fenced := len(ev.fenced)
	ev.mu.Unlock()
	if fenced != 1 {
		t.Fatalf("fenced %d times, want 1", fenced)
	}
	if res := join(t, a, "s1", "pc1", protocol.RoleComputer, "o1"); res.Code != 0 || res.Noop {
		t.Fatalf("join after the restart: %+v", res)
	}
}

// TestRedisDown: while Redis is down a join fails at once with
// ErrUnavailable, and the node fences after its lease time.
func TestRedisDown(t *testing.T) {
	r := redistest.Start(t)
	ev := &events{}
	a := open(t, r.URL, 600*time.Millisecond, ev)
	r.Kill()
	start := time.Now()
	_, err := a.Join(context.Background(), cluster.Member{SID: "s1", Name: "pc1", Role: protocol.RoleComputer, Office: "o1"})
	if !errors.Is(err, cluster.ErrUnavailable) {
		t.Fatalf("join with Redis down: %v, want ErrUnavailable", err)
	}
	t.Logf("join failed after %s: %v", time.Since(start), err)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("join took %s to fail", took)
	}
	testutil.Eventually(t, wait, "the node fenced", func() bool {
		_, leased := a.ID()
		return !leased
	})
	if _, err := a.Join(context.Background(), cluster.Member{SID: "s1", Name: "pc1", Role: protocol.RoleComputer, Office: "o1"}); !errors.Is(err, cluster.ErrFenced) {
		t.Fatalf("join while fenced: %v, want ErrFenced", err)
	}
}

// TestFrames: a frame sent to a node reaches it; one sent to a node that
// is gone is not delivered.
func TestFrames(t *testing.T) {
	r := redistest.Start(t)
	evB := &events{}
	a, b := open(t, r.URL, 0, nil), open(t, r.URL, 0, evB)
	a.SendAsync(id(b), []byte("hello"), func(err error) { t.Errorf("send: %v", err) })
	select {
	case f := <-evB.frames:
		if string(f) != "hello" {
			t.Fatalf("frame %q", f)
		}
	case <-time.After(wait):
		t.Fatal("no frame")
	}
	failed := make(chan error, 1)
	a.SendAsync("nobody", []byte("x"), func(err error) { failed <- err })
	select {
	case err := <-failed:
		if !errors.Is(err, cluster.ErrNotDelivered) {
			t.Fatalf("send to no node: %v, want ErrNotDelivered", err)
		}
	case <-time.After(wait):
		t.Fatal("a frame to no node was not reported")
	}
}

// TestFramesUnderLoad: frames sent by many goroutines at once, some
// wanting to know they arrived and some not, each reach their node once,
// whole, and in the order each goroutine sent them.
func TestFramesUnderLoad(t *testing.T) {
	for _, link := range []string{cluster.LinkOff, ""} {
		t.Run(map[string]string{cluster.LinkOff: "redis", "": "link"}[link], func(t *testing.T) {
			framesUnderLoad(t, link)
		})
	}
}

func framesUnderLoad(t *testing.T, link string) {
	r := redistest.Start(t)
	evB := &events{}
	a, b := openLink(t, r.URL, 0, link, nil), openLink(t, r.URL, 0, link, evB)
	const senders, each = 16, 2000
	var wg sync.WaitGroup
	for g := range senders {
		wg.Go(func() {
			for i := range each {
				frame := []byte(fmt.Sprintf("%d:%d:%s", g, i, strings.Repeat("x", i%300)))
				var failed func(error)
				if i%2 == 0 {
					failed = func(err error) { t.Errorf("frame %d:%d: %v", g, i, err) }
				}
				a.SendAsync(id(b), frame, failed)
				if i%100 == 0 {
					time.Sleep(time.Millisecond) // the queue empties now and then
				}
			}
		})
	}
	defer wg.Wait()
	next := make([]int, senders)
	for range senders * each {
		var f []byte
		select {
		case f = <-evB.frames:
		case <-time.After(wait):
			t.Fatalf("frames missing: next expected per sender %v", next)
		}
		var g, i int
		var pad string
		if n, err := fmt.Sscanf(string(f), "%d:%d:%s", &g, &i, &pad); (err != nil && n < 2) || g < 0 || g >= senders {
			t.Fatalf("frame %q does not decode", f)
		}
		if want := fmt.Sprintf("%d:%d:%s", g, i, strings.Repeat("x", i%300)); string(f) != want {
			t.Fatalf("frame %q, want %q", f, want)
		}
		if i != next[g] {
			t.Fatalf("sender %d: frame %d arrived when %d was next", g, i, next[g])
		}
		next[g]++
	}
	if link == "" {
		settle(t, a, senders*each, 0)
	}
	if linked := cluster.Linked(a); (link == "") != (linked == senders*each) {
		t.Fatalf("%d of %d frames went over the node link (link %q)", linked, senders*each, link)
	}
}

// sendWaiting sends frame from a to node and returns what its callback
// reported (nil: no report within d, the frame went).
func sendWaiting(a *cluster.Node, node, frame string, d time.Duration) error {
	failed := make(chan error, 1)
	a.SendAsync(node, []byte(frame), func(err error) { failed <- err })
	select {
	case err := <-failed:
		return err
	case <-time.After(d):
		return nil
	}
}

// receives waits for frame on ev.
// settle waits (at most wait) until node n counts at least linked frames
// sent over its links and published through Redis: it counts a batch once
// the write returns, which may be after the other node read the frames.
func settle(t *testing.T, n *cluster.Node, linked, published int64) {
	t.Helper()
	testutil.EventuallyNil(t, wait, fmt.Sprintf("the node counting %d frames sent over its links and %d published", linked, published), func() error {
		if l, p := cluster.Linked(n), cluster.Published(n); l < linked || p < published {
			return fmt.Errorf("it counts %d and %d", l, p)
		}
		return nil
	})
}

func receives(t *testing.T, ev *events, frame string) {
	t.Helper()
	deadline := time.After(wait)
	for {
		select {
		case f := <-ev.frames:
			if string(f) == frame {
				return
			}
		case <-deadline:
			t.Fatalf("frame %q never arrived", frame)
		}
	}
}

// TestFramesAfterRedisRestart: once Redis is back after a restart, frames
// flow again between the nodes (under their new leases).
func TestFramesAfterRedisRestart(t *testing.T) {
	for _, link := range []string{cluster.LinkOff, ""} {
		t.Run(map[string]string{cluster.LinkOff: "redis", "": "link"}[link], func(t *testing.T) {
			framesAfterRedisRestart(t, link)
		})
	}
}

func framesAfterRedisRestart(t *testing.T, link string) {
	r := redistest.Start(t)
	evB := &events{}
	ttl := 600 * time.Millisecond
	a, b := openLink(t, r.URL, ttl, link, nil), openLink(t, r.URL, ttl, link, evB)
	if err := sendWaiting(a, id(b), "before", 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	receives(t, evB, "before")
	old := id(b)
	r.Restart(100 * time.Millisecond)
	deadline := time.Now().Add(wait)
	for i := 0; ; i++ {
		now, leased := b.ID()
		if leased && now != old {
			frame := fmt.Sprint("after-", i)
			if err := sendWaiting(a, now, frame, 200*time.Millisecond); err == nil {
				receives(t, evB, frame)
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("frames never flowed again after the restart")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFramesWhileRedisHangs: a frame whose sender waits to hear that it
// arrived fails with ErrUnavailable when Redis stops answering (within
// the command timeout, not later), and frames flow again once it answers.
func TestFramesWhileRedisHangs(t *testing.T) {
	r := redistest.Start(t)
	evB := &events{}
	a, b := open(t, r.URL, time.Minute, nil), open(t, r.URL, time.Minute, evB)
	r.Pause()
	start := time.Now()
	err := sendWaiting(a, id(b), "hung", wait)
	r.Resume()
	if !errors.Is(err, cluster.ErrUnavailable) {
		t.Fatalf("frame while Redis hangs: %v, want ErrUnavailable", err)
	}
	t.Logf("failed after %s: %v", time.Since(start).Round(time.Millisecond), err)
	if err := sendWaiting(a, id(b), "again", 200*time.Millisecond); err != nil {
		t.Fatalf("frame once Redis answers again: %v", err)
	}
	receives(t, evB, "again")
}

// TestFramesWithoutClientCommand: a Redis user whose ACL denies CLIENT
// (and so CLIENT REPLY SKIP) still sends and receives frames, with a
// password.
func TestFramesWithoutClientCommand(t *testing.T) {
	r := redistest.Start(t)
	admin := redis.NewClient(mustParse(t, r.URL))
	defer admin.Close()
	if err := admin.Do(context.Background(), "ACL", "SETUSER", "node", "on", ">s3cret", "~*", "&*", "+@all", "-client").Err(); err != nil {
		t.Fatal(err)
	}
	url := strings.Replace(r.URL, "unix://", "unix://node:s3cret@", 1)
	evB := &events{}
	a, b := open(t, url, 0, nil), open(t, url, 0, evB)
	for i := range 3 {
		a.SendAsync(id(b), []byte(fmt.Sprint("plain-", i)), nil)
		if err := sendWaiting(a, id(b), fmt.Sprint("asked-", i), 200*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		receives(t, evB, fmt.Sprint("plain-", i))
		receives(t, evB, fmt.Sprint("asked-", i))
	}
	if err := sendWaiting(a, "nobody", "x", wait); !errors.Is(err, cluster.ErrNotDelivered) {
		t.Fatalf("frame to no node: %v, want ErrNotDelivered", err)
	}
}

func mustParse(t *testing.T, url string) *redis.Options {
	t.Helper()
	o, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestFramesAfterSubscriptionKilled: when the connection a node receives
// frames on is closed under it (CLIENT KILL, a proxy restarting), the node
// subscribes again and frames reach it again, under the same lease.
func TestFramesAfterSubscriptionKilled(t *testing.T) {
	r := redistest.Start(t)
	admin := redis.NewClient(mustParse(t, r.URL))
	defer admin.Close()
	evB := &events{}
	a, b := open(t, r.URL, 0, nil), open(t, r.URL, 0, evB)
	if err := admin.Do(context.Background(), "CLIENT", "KILL", "TYPE", "pubsub").Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(wait)
	for i := 0; ; i++ {
		frame := fmt.Sprint("after-", i)
		if err := sendWaiting(a, id(b), frame, 100*time.Millisecond); err == nil {
			receives(t, evB, frame)
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("frames never reached the node again")
		}
	}
}

// TestFramesAfterPublisherKilled: when the connection a node publishes
// frames on was closed while idle (CLIENT KILL, Redis restarted, a proxy
// restarting), the next frames go on a new connection: the first one
// after is neither lost nor failed, over a unix socket or TCP.
func TestFramesAfterPublisherKilled(t *testing.T) {
	for _, transport := range []struct {
		name  string
		start func(testing.TB) *redistest.Redis
	}{{"unix", redistest.Start}, {"tcp", redistest.StartTCP}} {
		t.Run(transport.name, func(t *testing.T) {
			r := transport.start(t)
			admin := redis.NewClient(mustParse(t, r.URL))
			defer admin.Close()
			evB := &events{}
			a, b := open(t, r.URL, 0, nil), open(t, r.URL, 0, evB)
			for round := range 3 {
				if err := sendWaiting(a, id(b), fmt.Sprint("before-", round), 200*time.Millisecond); err != nil {
					t.Fatal(err)
				}
				receives(t, evB, fmt.Sprint("before-", round))
				if err := admin.Do(context.Background(), "CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes").Err(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(50 * time.Millisecond) // the close reaches the node
				a.SendAsync(id(b), []byte(fmt.Sprint("unasked-", round)), nil)
				if err := sendWaiting(a, id(b), fmt.Sprint("asked-", round), 200*time.Millisecond); err != nil {
					t.Fatalf("round %d: the first frame asking for an answer after the kill: %v", round, err)
				}
				receives(t, evB, fmt.Sprint("unasked-", round))
				receives(t, evB, fmt.Sprint("asked-", round))
			}
		})
	}
}

// TestOpenWithoutChannelAccess: a Redis user whose ACL denies the node's
// channel cannot run a node: Open fails and says why, rather than a node
// that never hears a frame.
func TestOpenWithoutChannelAccess(t *testing.T) {
	r := redistest.Start(t)
	admin := redis.NewClient(mustParse(t, r.URL))
	defer admin.Close()
	if err := admin.Do(context.Background(), "ACL", "SETUSER", "node", "on", ">s3cret", "~*", "resetchannels", "+@all").Err(); err != nil {
		t.Fatal(err)
	}
	url := strings.Replace(r.URL, "unix://", "unix://node:s3cret@", 1)
	n, err := cluster.Open(context.Background(), cluster.Options{URL: url, OnFrame: func([]byte) {}})
	if err == nil {
		_ = n.Close(context.Background())
		t.Fatal("a node opened without access to its channel")
	}
	if !strings.Contains(err.Error(), "NOPERM") {
		t.Fatalf("Open: %v, want Redis's NOPERM", err)
	}
	t.Log(err)
}
