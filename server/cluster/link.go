package cluster

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
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
// is tried again later. A link that breaks hands its queued frames to
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

// mac is the handshake's proof of the key over parts.
func mac(key []byte, parts ...string) string {
	h := hmac.New(sha256.New, key)
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func nonce() string {
	b := make([]byte, linkNonceSize)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
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

// accept is the acceptor's side of the handshake; it returns the dialer's
// node id.
func (l *links) accept(c net.Conn, rd *bufio.Reader) (string, error) {
	_ = c.SetDeadline(time.Now().Add(l.n.opts.OpTimeout))
	ours := nonce()
	if _, err := fmt.Fprintf(c, "%s %s\n", linkProto, ours); err != nil {
		return "", err
	}
	line, err := readLine(rd)
	if err != nil {
		return "", err
	}
	f := strings.Fields(line)
	if len(f) != 4 {
		return "", fmt.Errorf("handshake %.80q", line)
	}
	from, to, theirs, proof := f[0], f[1], f[2], f[3]
	key := l.currentKey()
	id, leased := l.n.ID()
	if !leased || to != id {
		return "", fmt.Errorf("link for node %.40q, this node is %s", to, id)
	}
	if !hmac.Equal([]byte(proof), []byte(mac(key, "dial", ours, theirs, from, to))) {
		return "", errors.New("the dialer does not hold the cluster's link key")
	}
	if _, err := fmt.Fprintf(c, "%s\n", mac(key, "accept", theirs, ours, from, to)); err != nil {
		return "", err
	}
	_ = c.SetDeadline(time.Time{})
	return from, nil
}

// readLine reads a handshake line (short, bounded).
func readLine(rd *bufio.Reader) (string, error) {
	line, err := rd.ReadSlice('\n')
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(line)), nil
}

// dial opens and authenticates a link to node.
func (l *links) dial(node string) (net.Conn, error) {
	ctx, cancel := l.n.opCtx(l.n.ctx)
	defer cancel()
	v, err := l.n.rdb.Get(ctx, l.n.key("n", node)).Result()
	if err != nil {
		return nil, fmt.Errorf("the lease of node %s: %w", node, err)
	}
	var lease struct {
		Link string `json:"link"`
	}
	if json.Unmarshal([]byte(v), &lease) != nil || lease.Link == "" {
		return nil, fmt.Errorf("node %s advertises no link", node)
	}
	d := net.Dialer{Timeout: l.n.opts.OpTimeout, KeepAlive: 15 * time.Second}
	c, err := d.DialContext(ctx, "tcp", lease.Link)
	if err != nil {
		return nil, err
	}
	if err := l.handshake(c, node); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("link to node %s at %s: %w", node, lease.Link, err)
	}
	return c, nil
}

// handshake is the dialer's side.
func (l *links) handshake(c net.Conn, node string) error {
	_ = c.SetDeadline(time.Now().Add(l.n.opts.OpTimeout))
	rd := bufio.NewReaderSize(c, 256)
	line, err := readLine(rd)
	if err != nil {
		return err
	}
	f := strings.Fields(line)
	if len(f) != 2 || f[0] != linkProto {
		return fmt.Errorf("greeting %.80q", line)
	}
	theirs, ours := f[1], nonce()
	id, _ := l.n.ID()
	key := l.currentKey()
	if _, err := fmt.Fprintf(c, "%s %s %s %s\n", id, node, ours, mac(key, "dial", theirs, ours, id, node)); err != nil {
		return err
	}
	line, err = readLine(rd)
	if err != nil {
		return err
	}
	if !hmac.Equal([]byte(line), []byte(mac(key, "accept", ours, theirs, id, node))) {
		return errors.New("the node does not hold the cluster's link key")
	}
	return c.SetDeadline(time.Time{})
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

// peer is the link this node dialled to another node, and the frames
// waiting for it.
type peer struct {
	l    *links
	node string
	wake chan struct{} // a frame was queued, or the link is to close (1 buffered)

	mu      sync.Mutex
	queue   []outFrame
	bytes   int
	running bool          // run is on
	done    chan struct{} // closed when run ends
	down    time.Time     // no link until then: frames go through Redis
	fails   int           // dials failed in a row
	conn    net.Conn
	closing bool // write what is queued, then close
	broken  bool // the link broke: run ends, and down says when to dial again
	removed bool // no longer this node's link to node (node gone, lease lost)
}

// send queues f, starting the link when it is not up; false when the link
// is down.
func (p *peer) send(f outFrame) bool {
	p.mu.Lock()
	if p.broken || p.removed || p.closing || time.Now().Before(p.down) || p.bytes+len(f.frame) > maxQueued {
		p.mu.Unlock()
		return false
	}
	p.queue = append(p.queue, f)
	p.bytes += len(f.frame)
	if !p.running {
		p.running = true
		p.done = make(chan struct{})
		go p.run()
	}
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
	return true
}

// shut closes the link: graceful writes what is queued first, otherwise
// the link is removed and what is queued goes through Redis.
func (p *peer) shut(graceful bool) {
	p.mu.Lock()
	if graceful {
		p.closing = true
	} else {
		p.removed = true
		if p.conn != nil {
			_ = p.conn.Close()
		}
	}
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// wait waits for run to end (or ctx).
func (p *peer) wait(ctx context.Context) {
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// run dials the link and writes the queued frames until it breaks or
// closes; then what is still queued goes through Redis.
func (p *peer) run() {
	c, err := p.l.dial(p.node)
	if err != nil {
		p.mu.Lock()
		p.fails++
		wait := min(linkRetryMin<<min(p.fails-1, 5), linkRetryMax)
		p.down = time.Now().Add(wait)
		p.mu.Unlock()
		p.l.log.Warn("cluster: no link to a node; its frames go through Redis", "node", p.node, "retry_in", wait, "err", err)
		p.end(nil)
		return
	}
	p.mu.Lock()
	if p.removed {
		p.mu.Unlock()
		p.end(c)
		return
	}
	p.conn, p.fails = c, 0
	p.mu.Unlock()
	p.l.n.log.Debug("cluster: node link up", "node", p.node, "addr", c.RemoteAddr().String())
	go p.watch(c)
	p.write(c)
	p.end(c)
}

// write writes what is queued until the link breaks, is removed, or is
// closing and has nothing left.
func (p *peer) write(c net.Conn) {
	w := &linkWriter{c: c}
	for {
		<-p.wake
		p.gather()
		p.mu.Lock()
		batch, stop, closing := p.queue, p.broken || p.removed, p.closing
		p.queue, p.bytes = nil, 0
		p.mu.Unlock()
		if stop {
			p.requeue(batch)
			return
		}
		if len(batch) > 0 {
			if err := w.write(p.l.n, batch); err != nil {
				p.failed(batch, err)
				return
			}
			p.l.n.linked.Add(int64(len(batch)))
			p.l.n.pub.recycle(batch)
		}
		if closing {
			p.mu.Lock()
			empty := len(p.queue) == 0
			p.mu.Unlock()
			if empty {
				return
			}
			select { // more was queued before closing
			case p.wake <- struct{}{}:
			default:
			}
		}
	}
}

// gather yields while other goroutines are still adding frames to the
// queue, a few times at most, so that they leave in one write.
func (p *peer) gather() {
	last := -1
	for range 3 {
		runtime.Gosched()
		p.mu.Lock()
		k := len(p.queue)
		p.mu.Unlock()
		if k == last {
			return
		}
		last = k
	}
}

// end closes c (when not nil), marks run ended and sends what is still
// queued through Redis.
func (p *peer) end(c net.Conn) {
	p.mu.Lock()
	if c != nil {
		_ = c.Close()
	}
	p.conn = nil
	p.broken = false
	p.running = false
	close(p.done)
	rest := p.queue
	p.queue, p.bytes = nil, 0
	p.mu.Unlock()
	for _, f := range rest {
		p.l.n.pub.send(f)
	}
}

// requeue puts batch back in front of the queue (run's deferred hand-over
// sends it through Redis).
func (p *peer) requeue(batch []outFrame) {
	p.mu.Lock()
	p.queue = append(batch, p.queue...)
	p.mu.Unlock()
}

// watch waits for the acceptor to close the link (it never writes after
// the handshake): the link is then down, and whether the node is gone is
// asked at once rather than at the next heartbeat.
func (p *peer) watch(c net.Conn) {
	var b [1]byte
	_, err := c.Read(b[:])
	p.mu.Lock()
	mine := p.conn == c
	if mine {
		p.broken = true
		p.down = time.Now().Add(linkRetryMin)
	}
	p.mu.Unlock()
	if !mine {
		return
	}
	_ = c.Close()
	select {
	case p.wake <- struct{}{}:
	default:
	}
	p.l.n.log.Debug("cluster: node link closed by its node", "node", p.node, "err", err)
	p.l.n.checkListening(p.node)
}

// failed handles the frames of a write that failed: see the package's
// link notes.
func (p *peer) failed(batch []outFrame, err error) {
	p.mu.Lock()
	p.broken = true
	p.down = time.Now().Add(linkRetryMin)
	p.mu.Unlock()
	p.l.n.sendFailed.Add(int64(len(batch)))
	p.l.log.Warn("cluster: a node link broke while writing", "node", p.node, "frames", len(batch), "err", err)
	var asked []outFrame
	for _, f := range batch {
		if f.failed == nil {
			p.l.n.pub.send(f) // an answer: again, through Redis
		} else {
			asked = append(asked, f)
		}
	}
	if len(asked) == 0 {
		return
	}
	go func() {
		why := fmt.Errorf("%w (node %s): %v", ErrLinkBroken, p.node, err)
		if !p.l.n.listening(p.node) {
			why = ErrNotDelivered
		}
		for _, f := range asked {
			f.failed(why)
		}
	}()
}

// linkWriter writes batches of frames on a link.
type linkWriter struct {
	c   net.Conn
	buf []byte
}

// write writes batch, up to maxBatch bytes at once.
func (w *linkWriter) write(n *Node, batch []outFrame) error {
	size := 0
	for _, f := range batch {
		size += len(f.frame)
	}
	_ = w.c.SetWriteDeadline(time.Now().Add(writeTime(n.opts.OpTimeout, size)))
	for len(batch) > 0 {
		w.buf = w.buf[:0]
		k := 0
		for ; k < len(batch) && (k == 0 || len(w.buf)+len(batch[k].frame) <= maxBatch); k++ {
			w.buf = binary.AppendUvarint(w.buf, uint64(len(batch[k].frame)))
			if len(batch[k].frame) > maxBatch { // alone, without a copy
				if _, err := w.c.Write(w.buf); err != nil {
					return err
				}
				w.buf = w.buf[:0]
				if _, err := w.c.Write(batch[k].frame); err != nil {
					return err
				}
				continue
			}
			w.buf = append(w.buf, batch[k].frame...)
		}
		if len(w.buf) > 0 {
			n.linkWrites.Add(1)
			if _, err := w.c.Write(w.buf); err != nil {
				return err
			}
		}
		batch = batch[k:]
	}
	if cap(w.buf) > maxKeptQueue {
		w.buf = nil
	}
	return nil
}

// minLinkRate is the slowest a link may take bytes before its peer counts
// as stuck: a batch may take the command timeout plus its size at this rate.
const minLinkRate = 4 << 20 // bytes per second

// writeTime bounds the write of size bytes.
func writeTime(opTimeout time.Duration, size int) time.Duration {
	return opTimeout + time.Duration(size)*time.Second/minLinkRate
}

// listening tells whether node still listens on its Redis channel (a
// failed lookup counts as listening: nothing is known).
func (n *Node) listening(node string) bool {
	ctx, cancel := n.opCtx(n.ctx)
	defer cancel()
	subs, err := n.rdb.PubSubNumSub(ctx, n.channel(node)).Result()
	return err != nil || subs[n.channel(node)] > 0
}

// checkListening reports node gone (OnNodeGone) when it no longer listens
// on its Redis channel.
func (n *Node) checkListening(node string) {
	if n.listening(node) {
		return
	}
	n.log.Warn("cluster: node gone (its link closed and it no longer listens)", "node", node)
	if n.links != nil {
		n.links.drop(node)
	}
	if n.opts.OnNodeGone != nil {
		n.opts.OnNodeGone(node)
	}
}
