package cluster_test

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/smcp-browse/smcp-browse/internal/redistest"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/server/cluster"
)

// TestLinkCarriesFrames: between two nodes with links, frames go straight
// from one to the other both ways, none through Redis, and a frame to a
// node that does not exist still fails ErrNotDelivered.
func TestLinkCarriesFrames(t *testing.T) {
	r := redistest.Start(t)
	evA, evB := &events{}, &events{}
	a, b := openLink(t, r.URL, 0, "", evA), openLink(t, r.URL, 0, "", evB)
	if a.LinkAddr() == "" || !strings.HasPrefix(a.LinkAddr(), "127.0.0.1:") {
		t.Fatalf("link address %q, want loopback (Redis is on a unix socket)", a.LinkAddr())
	}
	for i := range 50 {
		if err := sendWaiting(a, id(b), fmt.Sprint("q-", i), 0); err != nil {
			t.Fatal(err)
		}
		b.SendAsync(id(a), []byte(fmt.Sprint("r-", i)), nil)
	}
	for i := range 50 {
		receives(t, evB, fmt.Sprint("q-", i))
		receives(t, evA, fmt.Sprint("r-", i))
	}
	settle(t, a, 50, 0)
	settle(t, b, 50, 0)
	if cluster.Linked(a) != 50 || cluster.Linked(b) != 50 || cluster.Published(a)+cluster.Published(b) != 0 {
		t.Fatalf("linked %d+%d, published through Redis %d+%d; want 50+50 and none",
			cluster.Linked(a), cluster.Linked(b), cluster.Published(a), cluster.Published(b))
	}
	if err := sendWaiting(a, "nobody", "x", wait); !errors.Is(err, cluster.ErrNotDelivered) {
		t.Fatalf("frame to no node: %v, want ErrNotDelivered", err)
	}
}

// TestLinkToNodeWithoutLink: frames to a node that runs without a link (or
// whose link cannot be dialled) go through Redis and arrive.
func TestLinkToNodeWithoutLink(t *testing.T) {
	r := redistest.Start(t)
	evB, evC := &events{}, &events{}
	a := openLink(t, r.URL, 0, "", nil)
	b := open(t, r.URL, 0, evB)                    // no link
	c := openLink(t, r.URL, 0, "127.0.0.1:0", evC) // a link nobody can reach
	cluster.StopListening(c)
	for i := range 3 {
		for _, to := range []*cluster.Node{b, c} {
			if err := sendWaiting(a, id(to), fmt.Sprint("f-", i), 200*time.Millisecond); err != nil {
				t.Fatalf("frame %d: %v", i, err)
			}
		}
	}
	for i := range 3 {
		receives(t, evB, fmt.Sprint("f-", i))
		receives(t, evC, fmt.Sprint("f-", i))
	}
	settle(t, a, 0, 6)
	if cluster.Linked(a) != 0 || cluster.Published(a) != 6 {
		t.Fatalf("linked %d, published %d; want 0 and 6", cluster.Linked(a), cluster.Published(a))
	}
}

// TestLinkNodeCrashed: when a node dies (its process killed), the node
// linked to it hears its link close and reports it gone at once, without
// waiting for the next heartbeat (a minute away here); a frame sent to it
// afterwards fails ErrNotDelivered.
func TestLinkNodeCrashed(t *testing.T) {
	r := redistest.Start(t)
	evA, evB := &events{}, &events{}
	a, b := openLink(t, r.URL, time.Minute, "", evA), openLink(t, r.URL, time.Minute, "", evB)
	if err := sendWaiting(a, id(b), "before", 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	receives(t, evB, "before")
	dead := id(b)
	cluster.Crash(b)
	took := testutil.Eventually(t, wait, "the crashed node reported gone", func() bool { return slices.Contains(gone(evA), dead) })
	t.Logf("crashed node reported gone after %s", took.Round(time.Millisecond))
	if err := sendWaiting(a, dead, "after", wait); !errors.Is(err, cluster.ErrNotDelivered) {
		t.Fatalf("frame to the crashed node: %v, want ErrNotDelivered", err)
	}
}

func gone(ev *events) []string {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	return slices.Clone(ev.gone)
}

// TestLinkRefusesStrangers: a link is accepted only from a peer that
// proves it holds the cluster's key and names this node: a wrong key, a
// wrong node id or a garbled greeting closes the connection before any
// frame is taken. The same handshake with the key from Redis works (so
// the refusals are the key's doing).
func TestLinkRefusesStrangers(t *testing.T) {
	r := redistest.Start(t)
	evB := &events{}
	b := openLink(t, r.URL, 0, "", evB)
	admin := redis.NewClient(mustParse(t, r.URL))
	defer admin.Close()
	k, err := admin.Get(context.Background(), "smcp:linkkey").Result()
	if err != nil {
		t.Fatal(err)
	}
	key, _ := hex.DecodeString(k)
	wrong := slices.Clone(key)
	wrong[0] ^= 1
	for _, tc := range []struct {
		name   string
		key    []byte
		to     string
		garble bool
		ok     bool
	}{
		{name: "wrong key", key: wrong, to: id(b)},
		{name: "another node's id", key: key, to: "0123456789abcdef"},
		{name: "garbled", key: key, to: id(b), garble: true},
		{name: "the cluster's key", key: key, to: id(b), ok: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frame := "frame of " + tc.name
			accepted := dialLink(t, b.LinkAddr(), tc.key, "stranger", tc.to, tc.garble, frame)
			if accepted != tc.ok {
				t.Fatalf("handshake accepted: %v, want %v", accepted, tc.ok)
			}
			if tc.ok {
				receives(t, evB, frame)
			}
		})
	}
	select {
	case f := <-evB.frames:
		t.Fatalf("a frame from a refused link arrived: %q", f)
	default:
	}
}

// dialLink runs the dialer's side of a link's handshake (written here from
// the protocol in link.go) and sends frame; it reports whether the
// acceptor proved the key and kept the link open.
func dialLink(t *testing.T, addr string, key []byte, from, to string, garble bool, frame string) bool {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(wait))
	rd := bufio.NewReader(c)
	greeting, err := rd.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(greeting)
	if len(f) != 2 || f[0] != "smcp-link/1" {
		t.Fatalf("greeting %q", greeting)
	}
	ours := "00112233445566778899aabbccddeeff"
	proof := linkMAC(key, "dial", f[1], ours, from, to)
	hello := fmt.Sprintf("%s %s %s %s\n", from, to, ours, proof)
	if garble {
		hello = "hello " + proof + "\n"
	}
	if _, err := c.Write([]byte(hello)); err != nil {
		return false
	}
	answer, err := rd.ReadString('\n')
	if err != nil {
		return false // closed: refused
	}
	if strings.TrimSpace(answer) != linkMAC(key, "accept", ours, f[1], from, to) {
		t.Fatalf("the acceptor's proof %q does not match the key", answer)
	}
	msg := binary.AppendUvarint(nil, uint64(len(frame)))
	if _, err := c.Write(append(msg, frame...)); err != nil {
		return false
	}
	return true
}

// linkMAC is the handshake's proof written from its description, not the
// package's mac: a change to the wire format must fail this test.
func linkMAC(key []byte, parts ...string) string {
	h := hmac.New(sha256.New, key)
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestLinkHandshakeFlood: connections that never prove the key hold at
// most a bounded number of handshakes (the others are closed without a
// greeting, not left to hold a goroutine and a buffer each), and frames
// between the nodes still arrive meanwhile.
func TestLinkHandshakeFlood(t *testing.T) {
	r := redistest.Start(t)
	evB := &events{}
	a, b := openLink(t, r.URL, 0, "", nil), openLink(t, r.URL, 0, "", evB)
	const flood = 150
	conns := make([]net.Conn, 0, flood)
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	for range flood {
		c, err := net.DialTimeout("tcp", b.LinkAddr(), wait)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	greeted := 0
	for _, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(wait))
		if line, err := bufio.NewReader(c).ReadString('\n'); err == nil && strings.HasPrefix(line, "smcp-link/1 ") {
			greeted++
		}
	}
	if greeted > 64 || greeted == 0 {
		t.Fatalf("%d of %d silent connections were greeted, want between 1 and 64", greeted, flood)
	}
	t.Logf("%d of %d silent connections greeted, the others closed at once", greeted, flood)
	for i := range 3 {
		if err := sendWaiting(a, id(b), fmt.Sprint("f-", i), 200*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		receives(t, evB, fmt.Sprint("f-", i))
	}
}

// TestLinkLargeFrames: frames larger than a batch (4 MiB) and small ones
// between them arrive whole and in order over a link.
func TestLinkLargeFrames(t *testing.T) {
	r := redistest.Start(t)
	evB := &events{}
	a, b := openLink(t, r.URL, 0, "", nil), openLink(t, r.URL, 0, "", evB)
	sizes := []int{10, 5 << 20, 20, 3 << 20, 2 << 20, 30, 9 << 20, 40}
	want := make([][]byte, len(sizes))
	for i, n := range sizes {
		f := make([]byte, n)
		for k := range f {
			f[k] = byte('a' + (i+k)%26)
		}
		want[i] = f
		a.SendAsync(id(b), slices.Clone(f), func(err error) { t.Errorf("frame %d: %v", i, err) })
	}
	for i := range want {
		select {
		case f := <-evB.frames:
			if !slices.Equal(f, want[i]) {
				t.Fatalf("frame %d: %d bytes, want %d (or not in order)", i, len(f), len(want[i]))
			}
		case <-time.After(wait):
			t.Fatalf("frame %d never arrived", i)
		}
	}
	settle(t, a, int64(len(sizes)), 0)
	if cluster.Linked(a) != int64(len(sizes)) {
		t.Fatalf("%d frames over the link, want %d", cluster.Linked(a), len(sizes))
	}
}

// TestLinkRedialDoesNotHoldFrames: once a dial of a node's link has
// failed, frames to that node go through Redis while the link is dialled
// again, rather than wait for a dial that may fail again (a firewall that
// drops packets holds it for the timeout). Here the node's link address
// accepts connections and never greets: the first frame waits for the
// first dial, which the test ends; the frame sent while the second dial
// hangs arrives before the test lets that dial end.
func TestLinkRedialDoesNotHoldFrames(t *testing.T) {
	r := redistest.Start(t)
	evC := &events{frames: make(chan []byte, 100)}
	a, err := cluster.Open(context.Background(), cluster.Options{URL: r.URL, OpTimeout: time.Minute, OnFrame: func([]byte) {}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close(context.Background()) })
	c := openLink(t, r.URL, 0, "", evC)
	cluster.StopListening(c)
	silent, err := net.Listen("tcp", c.LinkAddr()) // takes the link's port: accepts, never greets
	if err != nil {
		t.Fatalf("cannot take the link's port again: %v", err)
	}
	defer silent.Close()
	held := make(chan net.Conn, 4)
	go func() {
		for {
			conn, err := silent.Accept()
			if err != nil {
				return
			}
			held <- conn
		}
	}()
	a.SendAsync(id(c), []byte("first"), nil)
	first := <-held // the first dial hangs in its handshake
	_ = first.Close()
	receives(t, evC, "first")           // through Redis once that dial failed
	time.Sleep(1100 * time.Millisecond) // the first wait before dialling again (1 s)
	a.SendAsync(id(c), []byte("second"), nil)
	second := <-held // the second dial hangs too
	defer second.Close()
	receives(t, evC, "second") // not held by it
	settle(t, a, 0, 2)
	if cluster.Linked(a) != 0 || cluster.Published(a) != 2 {
		t.Fatalf("linked %d, published %d; want 0 and 2", cluster.Linked(a), cluster.Published(a))
	}
}
