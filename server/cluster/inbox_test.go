package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestParsePushCutAnywhere: a stream of pushes read in two pieces, cut at
// any byte, parses as the same pushes: a part of one is left for the next
// read, never taken for a push, and the subscription counts are skipped.
func TestParsePushCutAnywhere(t *testing.T) {
	payload := "Q\x01\x02frame with \r\n inside" + strings.Repeat("x", 100)
	stream := "*3\r\n$9\r\nsubscribe\r\n$6\r\nsmcp:x\r\n:1\r\n" +
		"*3\r\n$7\r\nmessage\r\n$6\r\nsmcp:x\r\n$" + strconv.Itoa(len(payload)) + "\r\n" + payload + "\r\n"
	for cut := 1; cut < len(stream); cut++ {
		var in pushBuffer
		var kinds, msgs []string
		for _, piece := range []string{stream[:cut], stream[cut:]} {
			in.w += copy(in.space(), piece)
			for {
				kind, msg, used, err := parsePush(in.unread())
				if err != nil {
					t.Fatalf("cut at %d: %v", cut, err)
				}
				if used == 0 {
					break
				}
				in.r += used
				kinds, msgs = append(kinds, kind), append(msgs, string(msg))
			}
		}
		if strings.Join(kinds, ",") != "subscribe,message" || msgs[1] != payload || in.r != in.w {
			t.Fatalf("cut at %d: %q %q, %d bytes left", cut, kinds, msgs, in.w-in.r)
		}
	}
}

// TestParsePushRefusesGarbage: what is not a push is an error, not a
// frame nor a push to wait for.
func TestParsePushRefusesGarbage(t *testing.T) {
	for _, stream := range []string{"-ERR no\r\n", "+OK\r\n", "*x\r\n", "*3\r\n$-5\r\n",
		"*1\r\n$99999999999999999999\r\n", "*1\r\n$1\r\nab\r\n", "*1\r\n" + strings.Repeat("$", 100)} {
		if kind, frame, used, err := parsePush([]byte(stream)); err == nil {
			t.Errorf("%q read as %q %q (%d bytes)", stream, kind, frame, used)
		}
	}
}

// TestPushBufferGrowsForLargeFrames: a push larger than the buffer grows
// it as it is read, and its bytes come out whole.
func TestPushBufferGrowsForLargeFrames(t *testing.T) {
	payload := bytes.Repeat([]byte("0123456789"), 300_000)
	stream := append([]byte("*3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$"+strconv.Itoa(len(payload))+"\r\n"), payload...)
	stream = append(stream, "\r\n"...)
	var in pushBuffer
	for len(stream) > 0 {
		k := copy(in.space(), stream[:min(len(stream), 1000)])
		in.w += k
		stream = stream[k:]
		_, msg, used, err := parsePush(in.unread())
		if err != nil {
			t.Fatal(err)
		}
		if used > 0 {
			if len(stream) > 0 || !bytes.Equal(msg, payload) {
				t.Fatalf("push of %d bytes with %d bytes still to read", len(msg), len(stream))
			}
			return
		}
	}
	t.Fatal("the push never completed")
}

// TestSubscriptionReadsWholeFrames: messages written in pieces of any size
// (some larger than the read buffer) reach OnFrame whole and in order,
// over a socket (read with readLoop) and over a connection without a file
// descriptor (read with Read, as TLS is).
func TestSubscriptionReadsWholeFrames(t *testing.T) {
	var stream []byte
	var want []string
	for i := range 200 {
		payload := fmt.Sprintf("%d:%s", i, strings.Repeat("y", (i*7919)%(i%50*4000+1)))
		want = append(want, payload)
		stream = fmt.Appendf(stream, "*3\r\n$7\r\nmessage\r\n$6\r\nsmcp:x\r\n$%d\r\n%s\r\n", len(payload), payload)
		if i%60 == 0 {
			stream = append(stream, "*3\r\n$9\r\nsubscribe\r\n$6\r\nsmcp:x\r\n:1\r\n"...)
		}
	}
	pipe := func(t *testing.T) (net.Conn, net.Conn) { return net.Pipe() }
	tcp := func(t *testing.T) (net.Conn, net.Conn) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		client, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		server, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		return client, server
	}
	for name, connect := range map[string]func(*testing.T) (net.Conn, net.Conn){"pipe": pipe, "tcp": tcp} {
		t.Run(name, func(t *testing.T) {
			client, server := connect(t)
			defer client.Close()
			go func() {
				rest := stream
				for k := 1; len(rest) > 0; k = k*31%70001 + 1 {
					n := min(len(rest), k)
					if _, err := server.Write(rest[:n]); err != nil {
						return
					}
					rest = rest[n:]
				}
				_ = server.Close()
			}()
			var got []string
			s := &subscription{n: &Node{opts: Options{OnFrame: func(f []byte) { got = append(got, string(f)) }}}}
			if err := s.read(&redisConn{Conn: client}); !errors.Is(err, io.EOF) {
				t.Fatalf("read ended with %v, want EOF", err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%d frames, want %d; first differing: %v", len(got), len(want), firstDiff(got, want))
			}
		})
	}
}

func firstDiff(got, want []string) int {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return i
		}
	}
	return min(len(got), len(want))
}
