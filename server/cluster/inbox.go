package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// receiveRetry bounds the wait before subscribing again after the
// subscription's connection failed (Redis gone or restarted).
const receiveRetry = time.Second

// subscription is this node's channel for frames, on a Redis connection
// of its own: it hands each frame to OnFrame straight from its read buffer
// (go-redis's PubSub made nine allocations a frame, and a goroutine
// hand-off through its Channel). It reads the socket itself (readLoop):
// after a read that left the socket empty it waits for the poller rather
// than trying a read that finds nothing, one syscall less per frame.
type subscription struct {
	n       *Node
	channel string

	mu     sync.Mutex
	conn   *redisConn
	closed bool

	in pushBuffer // receive's: what was read from conn and not handed over yet
}

// subscribe subscribes to channel and starts handing its frames to
// OnFrame; close ends it.
func (n *Node) subscribe(channel string) (*subscription, error) {
	s := &subscription{n: n, channel: channel}
	c, err := s.dial()
	if err != nil {
		return nil, err
	}
	s.conn = c
	go s.receive(c)
	return s, nil
}

// dial connects and subscribes; what Redis sent after its confirmation is
// left in s.in.
func (s *subscription) dial() (*redisConn, error) {
	c, err := s.n.dialRedis(64 << 10)
	if err != nil {
		return nil, err
	}
	s.in.reset()
	if k := c.rd.Buffered(); k > 0 { // nothing is expected: AUTH's answer was read whole
		b, _ := c.rd.Peek(k)
		s.in.w += copy(s.in.space(), b)
	}
	if _, err = c.Write(appendCommand(nil, "SUBSCRIBE", s.channel)); err == nil {
		err = s.confirmed(c)
	}
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	_ = c.SetDeadline(time.Time{})
	return c, nil
}

// confirmed reads the answer to SUBSCRIBE.
func (s *subscription) confirmed(c *redisConn) error {
	for {
		kind, _, used, err := parsePush(s.in.unread())
		if err != nil {
			return err
		}
		if used > 0 {
			s.in.r += used
			if kind != "subscribe" {
				return fmt.Errorf("SUBSCRIBE answered %q", kind)
			}
			return nil
		}
		n, err := c.Conn.Read(s.in.space())
		s.in.w += n
		if err != nil {
			return err
		}
	}
}

// close ends the subscription.
func (s *subscription) close() {
	s.mu.Lock()
	s.closed = true
	c := s.conn
	s.mu.Unlock()
	_ = c.Close()
}

// receive hands the frames of c to OnFrame, in order, until the
// subscription closes; when c fails it subscribes again.
func (s *subscription) receive(c *redisConn) {
	wait := 10 * time.Millisecond
	for {
		err := s.read(c)
		for {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return
			}
			s.n.log.Debug("cluster: reading this node's channel", "err", err)
			time.Sleep(wait)
			wait = min(2*wait, receiveRetry)
			if c, err = s.dial(); err == nil {
				break
			}
		}
		wait = 10 * time.Millisecond
		s.mu.Lock()
		old := s.conn
		s.conn = c
		closed := s.closed
		s.mu.Unlock()
		_ = old.Close()
		if closed {
			_ = c.Close()
			return
		}
	}
}

// read hands the frames of c to OnFrame until c fails.
func (s *subscription) read(c *redisConn) error {
	if err := s.deliver(); err != nil { // what came with SUBSCRIBE's answer
		return err
	}
	if ok, err := readLoop(c.Conn, s.in.space, s.received); ok {
		return err
	}
	for { // no file descriptor (TLS)
		n, err := c.Conn.Read(s.in.space())
		if derr := s.received(n); derr != nil {
			return derr
		}
		if err != nil {
			return err
		}
	}
}

// received hands over what n more bytes read complete.
func (s *subscription) received(n int) error {
	s.in.w += n
	return s.deliver()
}

// deliver hands the whole pushes read to OnFrame.
func (s *subscription) deliver() error {
	for {
		kind, frame, used, err := parsePush(s.in.unread())
		if err != nil || used == 0 {
			return err
		}
		s.in.r += used
		if kind == "message" {
			s.n.received.Add(1)
			if s.n.opts.OnFrame != nil {
				s.n.opts.OnFrame(frame)
			}
		}
	}
}

// pushBuffer holds the bytes read from a subscription's connection: b[r:w]
// are not handed over yet.
type pushBuffer struct {
	b    []byte
	r, w int
}

func (p *pushBuffer) unread() []byte { return p.b[p.r:p.w] }

func (p *pushBuffer) reset() { p.r, p.w = 0, 0 }

// minRead is the least room space leaves for a read.
const minRead = 16 << 10

// space returns room to read into after the unread bytes: they move to the
// front first, and the buffer grows (doubling) when they fill it. A buffer
// grown beyond maxKeptFrame goes once it is empty.
func (p *pushBuffer) space() []byte {
	if p.r == p.w {
		p.r, p.w = 0, 0
		if cap(p.b) > maxKeptFrame {
			p.b = nil
		}
	}
	if len(p.b)-p.w < minRead && p.r > 0 {
		p.w = copy(p.b, p.b[p.r:p.w])
		p.r = 0
	}
	if len(p.b)-p.w < minRead {
		b := make([]byte, max(2*len(p.b), 64<<10))
		p.w = copy(b, p.b[p.r:p.w])
		p.r = 0
		p.b = b
	}
	return p.b[p.w:]
}

// errPush is a pub/sub push that does not parse.
var errPush = errors.New("malformed pub/sub message from Redis")

// maxPushLen bounds a push's header lines.
const maxPushLen = 64

// maxErrorLen bounds an error line from Redis.
const maxErrorLen = 4 << 10

// maxFrame is Redis's own bound on a string (proto-max-bulk-len).
const maxFrame = 512 << 20

// maxKeptFrame is the largest receive buffer kept for the next frame.
const maxKeptFrame = 1 << 20

// parsePush parses the pub/sub push (RESP2: an array of bulk strings and
// integers) at the start of b and returns its kind ("message",
// "subscribe", ...), a message's payload (b's bytes) and the bytes it
// takes; used is 0 when b holds only part of it.
func parsePush(b []byte) (kind string, msg []byte, used int, err error) {
	n, at, err := respHeader(b, 0, '*')
	if err != nil || at == 0 {
		return "", nil, 0, err
	}
	for i := range n {
		if at >= len(b) {
			return "", nil, 0, nil
		}
		if b[at] == ':' { // a subscription count
			_, next, err := respHeader(b, at, ':')
			if err != nil || next == 0 {
				return "", nil, 0, err
			}
			at = next
			continue
		}
		size, next, err := respHeader(b, at, '$')
		if err != nil || next == 0 {
			return "", nil, 0, err
		}
		if size > maxFrame {
			return "", nil, 0, errPush
		}
		if len(b)-next < size+2 {
			return "", nil, 0, nil
		}
		end := next + size
		if b[end] != '\r' || b[end+1] != '\n' {
			return "", nil, 0, errPush
		}
		switch {
		case i == 0 && size <= maxPushLen:
			kind = pushKind(b[next:end])
		case i == 2 && kind == "message":
			msg = b[next:end:end]
		}
		at = end + 2
	}
	return kind, msg, at, nil
}

// pushKind names a push without allocating for the usual ones.
func pushKind(word []byte) string {
	for _, k := range [...]string{"message", "subscribe", "unsubscribe", "pong"} {
		if string(word) == k {
			return k
		}
	}
	return string(word)
}

// respHeader reads the line at b[at:] of type typ ('*' array, '$' bulk
// string, ':' integer) and returns its number and where the line ends;
// next is 0 when b holds only part of it.
func respHeader(b []byte, at int, typ byte) (v, next int, err error) {
	rest := b[at:]
	limit := maxPushLen
	if len(rest) > 0 && rest[0] == '-' {
		limit = maxErrorLen
	}
	end := bytes.IndexByte(rest[:min(len(rest), limit)], '\n')
	if end < 0 {
		if len(rest) >= limit {
			return 0, 0, errPush
		}
		return 0, 0, nil
	}
	line := rest[:end+1]
	if len(line) < 4 || line[0] != typ || line[len(line)-2] != '\r' {
		if line[0] == '-' {
			return 0, 0, fmt.Errorf("redis: %s", bytes.TrimSpace(line[1:]))
		}
		return 0, 0, errPush
	}
	v, err = strconv.Atoi(string(line[1 : len(line)-2]))
	if err != nil || v < 0 {
		return 0, 0, errPush
	}
	return v, at + end + 1, nil
}
