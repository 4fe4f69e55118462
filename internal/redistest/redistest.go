// Package redistest runs a real redis-server (Debian's, installed by
// scripts/redis.sh) on a loopback port for tests. A test that needs one
// skips with a message when redis-server is missing, unless
// SMCP_REQUIRE_REDIS=1 (set by CI), which fails it instead.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Binary returns the path of redis-server, or skips (fails under
// SMCP_REQUIRE_REDIS=1) t when there is none.
func Binary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err == nil {
		return bin
	}
	msg := "redis-server not found: install it with scripts/redis.sh (apt-get install redis-server); the cluster tests need a real Redis"
	if os.Getenv("SMCP_REQUIRE_REDIS") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Redis is a running redis-server.
type Redis struct {
	Addr string // 127.0.0.1:PORT
	URL  string // redis://127.0.0.1:PORT/0

	t   testing.TB
	bin string
	dir string
	cmd *exec.Cmd
}

// Start runs an empty redis-server without persistence on a free
// loopback port until the test ends.
func Start(t testing.TB) *Redis {
	t.Helper()
	r := &Redis{t: t, bin: Binary(t), dir: t.TempDir()}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.Addr = ln.Addr().String()
	_ = ln.Close()
	r.URL = "redis://" + r.Addr + "/0"
	r.start()
	t.Cleanup(r.Kill)
	return r
}

func (r *Redis) port() string {
	_, p, _ := net.SplitHostPort(r.Addr)
	return p
}

// start runs the server on r.Addr and waits until it answers PING.
func (r *Redis) start() {
	r.t.Helper()
	var last error
	for try := 0; try < 50; try++ {
		cmd := exec.Command(r.bin, "--bind", "127.0.0.1", "--port", r.port(),
			"--save", "", "--appendonly", "no", "--dir", r.dir, "--daemonize", "no",
			"--protected-mode", "yes", "--loglevel", "warning", "--logfile", r.LogPath())
		cmd.Stdout, cmd.Stderr = nil, nil
		if err := cmd.Start(); err != nil {
			r.t.Fatalf("start redis-server: %v", err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if last = Ping(r.Addr); last == nil {
				r.cmd = cmd
				return
			}
			select {
			case <-exited:
				deadline = time.Time{} // the port may still be taken: try again
			case <-time.After(20 * time.Millisecond):
			}
		}
		_ = cmd.Process.Kill()
		<-exited
		time.Sleep(100 * time.Millisecond)
	}
	r.t.Fatalf("redis-server on %s never answered: %v", r.Addr, last)
}

// LogPath is the server's log file.
func (r *Redis) LogPath() string { return r.dir + "/redis.log" }

// Ping sends PING to addr and checks the answer.
func Ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// Kill stops the server at once (SIGKILL). It is safe to call twice.
func (r *Redis) Kill() {
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGCONT)
	_ = r.cmd.Process.Kill()
	for Ping(r.Addr) == nil {
		time.Sleep(10 * time.Millisecond)
	}
	r.cmd = nil
}

// Restart kills the server and starts an empty one on the same port
// after down (the state is lost, as with a Redis without persistence).
func (r *Redis) Restart(down time.Duration) {
	r.t.Helper()
	r.Kill()
	time.Sleep(down)
	r.start()
}

// Pause stops the server without closing its connections (SIGSTOP): it
// hangs, as an overloaded or partitioned Redis does. Resume undoes it.
func (r *Redis) Pause() { _ = r.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume continues a paused server.
func (r *Redis) Resume() { _ = r.cmd.Process.Signal(syscall.SIGCONT) }

// PID is the server's process id.
func (r *Redis) PID() string { return strconv.Itoa(r.cmd.Process.Pid) }
