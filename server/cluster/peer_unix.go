//go:build unix

package cluster

import (
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
