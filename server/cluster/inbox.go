package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
)

// receiveRetry bounds the wait before subscribing again after the
// subscription's connection failed (Redis gone or restarted).
const receiveRetry = time.Second

// subscription is this node's channel for frames, on a Redis connection
// of its own: it hands each frame to OnFrame as one allocation (go-redis's
// PubSub made nine, and a goroutine hand-off through its Channel).
type subscription struct {
	n       *Node
	channel string

	mu     sync.Mutex
	conn   *redisConn
	closed bool

	buf []byte // receive's: the frame being handed over
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

// dial connects and subscribes.
func (s *subscription) dial() (*redisConn, error) {
	c, err := s.n.dialRedis(64 << 10)
	if err != nil {
		return nil, err
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
	kind, _, err := readPush(c, nil)
	if err != nil {
		return err
	}
	if kind != "subscribe" {
		return fmt.Errorf("SUBSCRIBE answered %q", kind)
	}
	return nil
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
		kind, frame, err := readPush(c, &s.buf)
		if err == nil {
			if kind == "message" {
				s.n.received.Add(1)
				if s.n.opts.OnFrame != nil {
					s.n.opts.OnFrame(frame)
				}
			}
			if cap(s.buf) > maxKeptFrame {
				s.buf = nil
			}
			continue
		}
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

// errPush is a pub/sub push that does not parse.
var errPush = errors.New("malformed pub/sub message from Redis")

// maxPushLen bounds a push's header lines.
const maxPushLen = 64

// maxFrame is Redis's own bound on a string (proto-max-bulk-len).
const maxFrame = 512 << 20

// maxKeptFrame is the largest receive buffer kept for the next frame.
const maxKeptFrame = 1 << 20

// readPush reads one pub/sub push (RESP2: an array of bulk strings and
// integers) and returns its kind ("message", "subscribe", ...) and, for a
// message when buf is not nil, its payload in *buf (grown as needed).
func readPush(c *redisConn, buf *[]byte) (string, []byte, error) {
	n, err := header(c, '*')
	if err != nil {
		return "", nil, err
	}
	var kind string
	var out []byte
	for i := range n {
		b, err := c.rd.Peek(1)
		if err != nil {
			return "", nil, err
		}
		if b[0] == ':' { // a subscription count
			if _, err := header(c, ':'); err != nil {
				return "", nil, err
			}
			continue
		}
		size, err := header(c, '$')
		if err != nil {
			return "", nil, err
		}
		switch {
		case i == 0 && size <= maxPushLen:
			word, err := c.rd.Peek(size)
			if err != nil {
				return "", nil, err
			}
			kind = pushKind(word)
			_, _ = c.rd.Discard(size)
		case i == 2 && buf != nil && kind == "message":
			if size > maxFrame {
				return "", nil, errPush
			}
			if cap(*buf) < size {
				*buf = make([]byte, size)
			}
			out = (*buf)[:size]
			if _, err := io.ReadFull(c.rd, out); err != nil {
				return "", nil, err
			}
		default:
			if _, err := c.rd.Discard(size); err != nil {
				return "", nil, err
			}
		}
		if _, err := c.rd.Discard(2); err != nil { // CRLF
			return "", nil, err
		}
	}
	return kind, out, nil
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

// header reads a line of type typ ('*' array, '$' bulk string, ':'
// integer) and returns its number.
func header(c *redisConn, typ byte) (int, error) {
	line, err := c.rd.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	if len(line) < 4 || line[0] != typ || line[len(line)-2] != '\r' || len(line) > maxPushLen {
		if len(line) > 0 && line[0] == '-' {
			return 0, fmt.Errorf("redis: %s", bytes.TrimSpace(line[1:]))
		}
		return 0, errPush
	}
	v, err := strconv.Atoi(string(line[1 : len(line)-2]))
	if err != nil || v < 0 {
		return 0, errPush
	}
	return v, nil
}
