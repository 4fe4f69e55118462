package cluster

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// redisConn is a connection of its own to the node's Redis, outside
// go-redis's pool, for the frames between nodes (outbox.go, inbox.go):
// go-redis reads an answer to every command, and hands each pub/sub
// message over as a struct of strings (nine allocations a frame).
type redisConn struct {
	net.Conn
	rd *bufio.Reader
}

// dialRedis connects to the node's Redis as its go-redis client does (the
// address, TLS, user and password of the URL), with a read buffer of
// size. The connection's deadline is the command timeout from now: its
// user clears it once set up.
func (n *Node) dialRedis(size int) (*redisConn, error) {
	ro := n.rdb.Options()
	ctx, cancel := context.WithTimeout(context.Background(), n.opts.OpTimeout)
	defer cancel()
	conn, err := ro.Dialer(ctx, ro.Network, ro.Addr)
	if err != nil {
		return nil, err
	}
	c := &redisConn{Conn: conn, rd: bufio.NewReaderSize(conn, size)}
	_ = c.SetDeadline(time.Now().Add(n.opts.OpTimeout))
	if ro.Password == "" {
		return c, nil
	}
	if _, err := c.Write(appendCommand(nil, "AUTH", ro.Username, ro.Password)); err != nil {
		_ = c.Close()
		return nil, err
	}
	if line, err := c.line(); err != nil || !strings.HasPrefix(line, "+") {
		_ = c.Close()
		return nil, cmp.Or(err, fmt.Errorf("AUTH answered %q", line))
	}
	return c, nil
}

// line reads one line of an answer, without its CRLF.
func (c *redisConn) line() (string, error) {
	line, err := c.rd.ReadString('\n')
	if err != nil {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// appendCommand appends a command of its non-empty arguments as RESP.
func appendCommand(buf []byte, args ...string) []byte {
	var words []string
	for _, a := range args {
		if a != "" {
			words = append(words, a)
		}
	}
	buf = append(buf, '*')
	buf = strconv.AppendInt(buf, int64(len(words)), 10)
	buf = append(buf, "\r\n"...)
	for _, w := range words {
		buf = append(buf, '$')
		buf = strconv.AppendInt(buf, int64(len(w)), 10)
		buf = append(buf, "\r\n"...)
		buf = append(buf, w...)
		buf = append(buf, "\r\n"...)
	}
	return buf
}
