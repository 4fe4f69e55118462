//go:build !unix

package sioserver

import (
	"errors"
	"net"
	"syscall"
)

// Without unix sockets' calls, the transport reads and writes through
// net.Conn (rawConn is nil): the functions below are never called.

var (
	errInterrupted = errors.New("interrupted")
	errWouldBlock  = errors.New("would block")
)

func rawConn(net.Conn) syscall.RawConn { return nil }

func readFd(uintptr, []byte) (int, error)  { return 0, errors.ErrUnsupported }
func writeFd(uintptr, []byte) (int, error) { return 0, errors.ErrUnsupported }
func shutdownFd(uintptr)                   {}
