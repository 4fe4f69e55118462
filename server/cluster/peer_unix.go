//go:build unix

package cluster

import (
	"io"
	"net"
	"syscall"
)

// closedUnder tells whether the peer of c closed it (or sent what nobody
// asked for) while it sat idle, without waiting: one non-blocking peek.
func closedUnder(c net.Conn) bool {
	if u, ok := c.(interface{ NetConn() net.Conn }); ok { // TLS
		c = u.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	closed := false
	err = raw.Read(func(fd uintptr) bool {
		var b [1]byte
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		closed = n > 0 || (n == 0 && err == nil) || (err != nil && err != syscall.EAGAIN && err != syscall.EWOULDBLOCK)
		return true // never wait for the socket to become readable
	})
	return closed || err != nil
}

// readLoop reads c into what space returns and reports each read's size to
// got, until got or a read fails; false when c has no file descriptor of
// its own (TLS), to be read with c.Read. A read that did not fill its
// space emptied the socket: the loop then waits for the poller instead of
// reading again only to be told to wait.
func readLoop(c net.Conn, space func() []byte, got func(n int) error) (bool, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false, nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return true, err
	}
	err = nil
	rerr := raw.Read(func(fd uintptr) bool {
		for {
			buf := space()
			n, e := syscall.Read(int(fd), buf)
			switch {
			case e == syscall.EINTR:
				continue
			case e == syscall.EAGAIN:
				return false
			case e != nil:
				err = e
				return true
			case n == 0:
				err = io.EOF
				return true
			}
			if err = got(n); err != nil {
				return true
			}
			if n < len(buf) {
				return false
			}
		}
	})
	if err == nil {
		err = rerr
	}
	return true, err
}
