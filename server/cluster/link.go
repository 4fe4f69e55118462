package cluster

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/ratelog"
)

// The node link: frames to another node go straight to it over a TCP
// connection this node dials, when it can, instead of through Redis's
// pub/sub (two hops and Redis's CPU per frame). Redis stays the authority
// for everything else: leases, seats, and whether a node still listens.
//
// A node listens on its link address and advertises it in its lease (a
// JSON value {"link": ADDR, "info": INFO}). A connection is authenticated
// both ways with the cluster's link key, which the first node to register
// puts in Redis (whoever can read Redis can join the cluster anyway): the
// acceptor sends a nonce, the dialer answers with its own nonce, both node
// ids and an HMAC over them, and the acceptor proves it holds the key too.
// Then frames flow one way, each a uvarint length and the frame; nothing
// flows back, so a read that returns is the acceptor closing the link.
//
// Frames to a node whose link cannot be dialled (no link advertised, a
// firewall, a handshake refused) go through Redis as before, and the link
// is tried again later; frames do not wait for a dial again (only the
// first dial of a link holds its frames). A link that breaks hands its queued frames to
// Redis; the frames of a write that failed are answered by whether the
// node still listens on its Redis channel: a request fails ErrNotDelivered
// when it does not, ErrLinkBroken when it does (it may have arrived, so it
// is not sent again); an answer is sent again through Redis (its requester
// keeps only the first).

// LinkOff as Options.Link turns the node link off: frames go through Redis.
const LinkOff = "off"

// ErrLinkBroken: the link to the node broke while a frame was written; the
// node still listens, and may or may not have received it.
var ErrLinkBroken = errors.New("the link to that Server node broke")

const (
	linkProto     = "smcp-link/1"
	linkRetryMin  = time.Second      // first wait before dialling a failed link again
	linkRetryMax  = 30 * time.Second // longest
	linkReadBuf   = 64 << 10
	linkNonceSize = 16
	// maxHandshakes bounds the links being authenticated at once: a flood
	// of connections that never prove the key is closed at once beyond it.
	maxHandshakes = 64
)

// links are this node's listener and the links it dialled.
type links struct {
	n    *Node
	ln   net.Listener
	addr string // advertised
	log  *ratelog.Logger

	mu      sync.Mutex
	key     []byte           // the cluster's link key
	peers   map[string]*peer // by node id
	inbound map[net.Conn]struct{}
	closed  bool

	handshakes chan struct{} // a slot per link being authenticated
}

// listenLink opens the node's link listener for Options.Link: "" listens on
// the address this node reaches Redis from (loopback for a unix socket),
// on a free port; HOST:PORT listens there (an unspecified HOST advertises
// that address too).
func (n *Node) listenLink() (*links, error) {
	if n.opts.Link == LinkOff {
		return nil, nil
	}
	host, port := "", "0"
	if n.opts.Link != "" {
		h, p, err := net.SplitHostPort(n.opts.Link)
		if err != nil {
			return nil, fmt.Errorf("link address %q: %w", n.opts.Link, err)
		}
		host, port = h, p
	}
	local, err := n.localIP()
	if err != nil {
		return nil, n.unavailable("link address", err)
	}
	listen := host
	if n.opts.Link == "" {
		listen = local
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(listen, port))
	if err != nil {
		return nil, fmt.Errorf("link: %w", err)
	}
	adv := ln.Addr().(*net.TCPAddr)
	advHost := adv.IP.String()
	if adv.IP.IsUnspecified() {
		advHost = local
	}
	l := &links{n: n, ln: ln, addr: net.JoinHostPort(advHost, fmt.Sprint(adv.Port)), log: &ratelog.Logger{Log: n.log},
		peers: map[string]*peer{}, inbound: map[net.Conn]struct{}{}, handshakes: make(chan struct{}, maxHandshakes)}
	go l.serve()
	return l, nil
}

// localIP is the address this node reaches Redis from: the one other nodes
// of the cluster most likely reach it on.
func (n *Node) localIP() (string, error) {
	c, err := n.dialRedis(64)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if a, ok := c.LocalAddr().(*net.TCPAddr); ok && !a.IP.IsUnspecified() {
		return a.IP.String(), nil
	}
	return "127.0.0.1", nil // a unix socket: Redis, and so the nodes, are on this machine
}

// leaseValue is what the node's lease holds: its link address and Info.
func (n *Node) leaseValue() string {
	v := struct {
		Link string `json:"link,omitempty"`
		Info string `json:"info,omitempty"`
	}{Info: n.opts.Info}
	if n.links != nil {
		v.Link = n.links.addr
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// LinkAddr is the address other nodes dial to reach this one ("" when the
// link is off).
func (n *Node) LinkAddr() string {
	if n.links == nil {
		return ""
	}
	return n.links.addr
}

// setKey keeps the cluster's link key, read (or set first) in Redis.
func (l *links) setKey(ctx context.Context) error {
	fresh := make([]byte, 32)
	_, _ = rand.Read(fresh)
	k, err := linkKeyScript.Run(ctx, l.n.rdb, nil, l.n.opts.Prefix, hex.EncodeToString(fresh)).Text()
	if err != nil {
		return err
	}
	key, err := hex.DecodeString(k)
	if err != nil || len(key) < 16 {
		return fmt.Errorf("the cluster's link key in Redis is not a key")
	}
	l.mu.Lock()
	l.key = key
	l.mu.Unlock()
	return nil
}

func (l *links) currentKey() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.key
}

// serve accepts links until the listener closes.
func (l *links) serve() {
	wait := 5 * time.Millisecond
	for {
		c, err := l.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			l.log.Warn("cluster: accepting a node link", "err", err)
			time.Sleep(wait) // out of file descriptors, ...
			wait = min(2*wait, time.Second)
			continue
		}
		wait = 5 * time.Millisecond
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			_ = c.Close()
			return
		}
		l.inbound[c] = struct{}{}
		l.mu.Unlock()
		go l.receive(c)
	}
}

// receive authenticates an inbound link and hands its frames to OnFrame.
func (l *links) receive(c net.Conn) {
	defer func() {
		_ = c.Close()
		l.mu.Lock()
		delete(l.inbound, c)
		l.mu.Unlock()
	}()
	select {
	case l.handshakes <- struct{}{}:
	default:
		l.log.Warn("cluster: too many node links being set up at once; one refused", "remote", c.RemoteAddr().String())
		return
	}
	hs := bufio.NewReaderSize(c, 512)
	from, err := l.accept(c, hs)
	<-l.handshakes
	if err == nil && hs.Buffered() > 0 { // a dialer waits for the proof before its frames
		err = errors.New("frames before the handshake's end")
	}
	if err != nil {
		l.log.Warn("cluster: a node link refused", "remote", c.RemoteAddr().String(), "err", err)
		return
	}
	rd := bufio.NewReaderSize(c, linkReadBuf)
	var buf []byte
	for {
		size, err := binary.ReadUvarint(rd)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				l.n.log.Debug("cluster: node link closed", "from", from, "err", err)
			}
			return
		}
		if size > maxFrame {
			l.log.Warn("cluster: a frame over the size bound on a node link; link closed", "from", from, "bytes", size)
			return
		}
		if uint64(cap(buf)) < size {
			buf = make([]byte, size)
		}
		frame := buf[:size]
		if _, err := io.ReadFull(rd, frame); err != nil {
			return
		}
		l.n.received.Add(1)
		if l.n.opts.OnFrame != nil {
			l.n.opts.OnFrame(frame)
		}
		if cap(buf) > maxKeptFrame {
			buf = nil
		}
	}
}

// send queues f on the link to f.node; false when there is none to use now
// (the frame then goes through Redis).
func (l *links) send(f outFrame) bool {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return false
	}
	p := l.peers[f.node]
	if p == nil {
		p = &peer{l: l, node: f.node, wake: make(chan struct{}, 1)}
		l.peers[f.node] = p
	}
	l.mu.Unlock()
	return p.send(f)
}

// drop closes the link to node (gone).
func (l *links) drop(node string) {
	l.mu.Lock()
	p := l.peers[node]
	delete(l.peers, node)
	l.mu.Unlock()
	if p != nil {
		p.shut(false)
	}
}

// reset closes every link, both ways: the node lost its lease, and links
// are made again under its next one.
func (l *links) reset() {
	l.mu.Lock()
	peers := l.peers
	l.peers = map[string]*peer{}
	in := make([]net.Conn, 0, len(l.inbound))
	for c := range l.inbound {
		in = append(in, c)
	}
	l.mu.Unlock()
	for _, p := range peers {
		p.shut(false)
	}
	for _, c := range in {
		_ = c.Close()
	}
}

// close stops listening and closes the links once what they hold is
// written (or ctx ends).
func (l *links) close(ctx context.Context) {
	l.mu.Lock()
	l.closed = true
	peers := l.peers
	l.peers = map[string]*peer{}
	l.mu.Unlock()
	_ = l.ln.Close()
	for _, p := range peers {
		p.shut(true)
	}
	for _, p := range peers {
		p.wait(ctx)
	}
	l.reset()
}

// listening tells whether node still listens on its Redis channel (a
// failed lookup counts as listening: nothing is known).
func (n *Node) listening(ctx context.Context, node string) bool {
	subs, err := n.rdb.PubSubNumSub(ctx, n.channel(node)).Result()
	return err != nil || subs[n.channel(node)] > 0
}

// checkListening reports node gone when it no longer listens on its Redis
// channel (asked when its link closed, without waiting for the sweep).
func (n *Node) checkListening(node string) {
	ctx, cancel := n.opCtx(n.ctx)
	defer cancel()
	if !n.listening(ctx, node) {
		n.nodeGone(node, nil)
	}
}
