package cluster

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// fakeRedis answers the handshake and SUBSCRIBE of one go-redis
// connection in the protocol it asks for (HELLO 2 or 3), then sends one
// pub/sub message on "ch" in two TCP writes cut inside the word "message".
func fakeRedis(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveFake(c)
		}
	}()
	return ln.Addr().String()
}

// readCommand reads one RESP array of bulk strings.
func readCommand(rd *bufio.Reader) ([]string, error) {
	line, err := rd.ReadString('\n')
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil {
		return nil, err
	}
	args := make([]string, n)
	for i := range args {
		if _, err := rd.ReadString('\n'); err != nil { // $len
			return nil, err
		}
		v, err := rd.ReadString('\n')
		if err != nil {
			return nil, err
		}
		args[i] = strings.TrimSuffix(v, "\r\n")
	}
	return args, nil
}

func serveFake(c net.Conn) {
	defer c.Close()
	rd := bufio.NewReader(c)
	push := "*" // RESP2 replies a pub/sub event as an array, RESP3 as a push
	for {
		args, err := readCommand(rd)
		if err != nil {
			return
		}
		switch strings.ToUpper(args[0]) {
		case "HELLO":
			if len(args) > 1 && args[1] == "3" {
				push = ">"
				fmt.Fprint(c, "%1\r\n+server\r\n+redis\r\n")
			} else {
				fmt.Fprint(c, "*2\r\n+server\r\n+redis\r\n")
			}
		case "SUBSCRIBE":
			fmt.Fprintf(c, "%s3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n", push)
			time.Sleep(50 * time.Millisecond)
			msg := push + "3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$5\r\nhello\r\n"
			cut := strings.Index(msg, "sage")
			fmt.Fprint(c, msg[:cut])
			time.Sleep(50 * time.Millisecond)
			fmt.Fprint(c, msg[cut:])
		case "PING":
			fmt.Fprintf(c, "%s2\r\n$4\r\npong\r\n$0\r\n\r\n", push)
		default:
			fmt.Fprint(c, "+OK\r\n")
		}
	}
}

// TestPubSubMessageSplitInItsName: a pub/sub message whose bytes arrive in
// two segments, cut inside its type name, still reaches the subscriber
// with the client options of a node. With go-redis's default RESP3 it is
// dropped (see clientOptions).
func TestPubSubMessageSplitInItsName(t *testing.T) {
	ro, err := clientOptions("redis://"+fakeRedis(t)+"/0", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(ro)
	defer rdb.Close()
	sub := rdb.Subscribe(context.Background(), "ch")
	defer sub.Close()
	select {
	case msg := <-sub.Channel():
		if msg.Payload != "hello" {
			t.Fatalf("message %q", msg.Payload)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the message was dropped")
	}
}
