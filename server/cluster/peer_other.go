//go:build !unix

package cluster

import "net"

// closedUnder cannot peek at a socket here: a connection closed under the
// publisher shows when its next write or read fails.
func closedUnder(net.Conn) bool { return false }

// readLoop reads nothing here: the caller reads c with c.Read.
func readLoop(net.Conn, func() []byte, func(int) error) (bool, error) { return false, nil }
