//go:build unix

package sioserver

import (
	"net"
	"syscall"
)

// The WebSocket transport's direct socket calls (wstransport.go): reads
// until the socket would block, writes that never wait.

var (
	errInterrupted error = syscall.EINTR
	errWouldBlock  error = syscall.EAGAIN
)

// rawConn returns c's file descriptor access, or nil (TLS, pipes).
func rawConn(c net.Conn) syscall.RawConn {
	if sc, ok := c.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			return raw
		}
	}
	return nil
}

// readFd and writeFd return an Errno, compared with errInterrupted and
// errWouldBlock.
func readFd(fd uintptr, b []byte) (int, error)  { return syscall.Read(int(fd), b) }
func writeFd(fd uintptr, b []byte) (int, error) { return syscall.Write(int(fd), b) }

// shutdownFd ends a socket both ways without closing it.
func shutdownFd(fd uintptr) { _ = syscall.Shutdown(int(fd), syscall.SHUT_RDWR) }
