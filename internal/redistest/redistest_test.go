package redistest_test

import (
	"bufio"
	"net"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/internal/redistest"
)

// TestRestartKeepsItsAddress: between a Kill and the Restart, another
// process (another test package's redis-server, started in parallel) may
// try to take the address the killed server freed. The server answering
// at r's address after the Restart must still be the one r started, not
// the squatter; the cluster tests kill and restart Redis under running
// nodes and would otherwise talk to a stranger's Redis (TestRedisDown
// failed that way once when packages ran in parallel).
func TestRestartKeepsItsAddress(t *testing.T) {
	r := redistest.Start(t)
	r.Kill()
	network := "tcp"
	if strings.HasPrefix(r.URL, "unix:") {
		network = "unix"
	}
	if ln, err := net.Listen(network, r.Addr); err == nil {
		// A squatter that answers PONG, as a Redis does.
		t.Cleanup(func() { _ = ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() {
					defer c.Close()
					rd := bufio.NewReader(c)
					for {
						if _, err := rd.ReadString('\n'); err != nil {
							return
						}
						_, _ = c.Write([]byte("+PONG\r\n"))
					}
				}()
			}
		}()
	}
	r.Restart(0)
	if err := r.Check(); err != nil {
		t.Fatalf("after the restart: %v", err)
	}
}

// TestStartsApart: servers started together never share an address.
func TestStartsApart(t *testing.T) {
	a, b := redistest.Start(t), redistest.Start(t)
	if a.Addr == b.Addr {
		t.Fatalf("two servers at %s", a.Addr)
	}
	for _, r := range []*redistest.Redis{a, b} {
		if err := r.Check(); err != nil {
			t.Fatal(err)
		}
	}
}
