package cluster

import (
	"bufio"
	"bytes"
	"net"
	"strconv"
	"strings"
	"testing"
)

// TestReadPushCutAnywhere: a pub/sub message read in two pieces, cut at
// any byte, still reads as the one message, and the subscription count
// pushes around it are skipped.
func TestReadPushCutAnywhere(t *testing.T) {
	payload := "Q\x01\x02frame with \r\n inside" + strings.Repeat("x", 100)
	stream := "*3\r\n$9\r\nsubscribe\r\n$6\r\nsmcp:x\r\n:1\r\n" +
		"*3\r\n$7\r\nmessage\r\n$6\r\nsmcp:x\r\n$" + strconv.Itoa(len(payload)) + "\r\n" + payload + "\r\n"
	for cut := 1; cut < len(stream); cut++ {
		client, server := net.Pipe()
		go func() {
			_, _ = server.Write([]byte(stream[:cut]))
			_, _ = server.Write([]byte(stream[cut:]))
			_ = server.Close()
		}()
		c := &redisConn{Conn: client, rd: bufio.NewReaderSize(client, 16)}
		kind, _, err := readPush(c, new([]byte))
		if err != nil || kind != "subscribe" {
			t.Fatalf("cut at %d: first push %q %v", cut, kind, err)
		}
		kind, got, err := readPush(c, new([]byte))
		if err != nil || kind != "message" || !bytes.Equal(got, []byte(payload)) {
			t.Fatalf("cut at %d: %q %q %v", cut, kind, got, err)
		}
		_ = client.Close()
	}
}

// TestReadPushRefusesGarbage: what is not a push is an error, not a
// frame.
func TestReadPushRefusesGarbage(t *testing.T) {
	for _, stream := range []string{"-ERR no\r\n", "+OK\r\n", "*x\r\n", "*3\r\n$-5\r\n", "*1\r\n$99999999999999999999\r\n"} {
		client, server := net.Pipe()
		go func() { _, _ = server.Write([]byte(stream)); _ = server.Close() }()
		c := &redisConn{Conn: client, rd: bufio.NewReaderSize(client, 64)}
		if kind, frame, err := readPush(c, new([]byte)); err == nil {
			t.Errorf("%q read as %q %q", stream, kind, frame)
		}
		_ = client.Close()
	}
}
