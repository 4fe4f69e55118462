// Package redistest runs a real redis-server (Debian's, installed by
// make redis-deps) for tests. A test that needs one skips with a message
// when redis-server is missing, unless SMCP_REQUIRE_REDIS=1 (set by CI),
// which fails it instead.
//
// Start listens on a unix socket in the test's own temporary directory, an
// address no other process can take: tests kill and restart their Redis
// on the same address while other test packages start theirs in parallel.
// StartTCP listens on a loopback port, for benchmarks that measure Redis
// over TCP as a deployment has it.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
	msg := "redis-server not found: install it with make redis-deps as root (apt-get install redis-server); the cluster tests need a real Redis"
	if os.Getenv("SMCP_REQUIRE_REDIS") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Redis is a running redis-server.
type Redis struct {
	// Addr is the server's address: a unix socket's path (Start) or
	// 127.0.0.1:PORT (StartTCP).
	Addr string
	// URL is what Redis clients take: unix:///PATH?db=0 or
	// redis://127.0.0.1:PORT/0.
	URL string

	t       testing.TB
	network string // "unix" or "tcp"
	bin     string
	dir     string
	cmd     *exec.Cmd
	exited  chan struct{} // closed when cmd has exited
}

// maxSocketPath keeps a unix socket's path under the kernel's limit (108
// bytes on Linux, 104 on the BSDs).
const maxSocketPath = 100

// Start runs an empty redis-server without persistence on a unix socket
// of its own until the test ends.
func Start(t testing.TB) *Redis {
	t.Helper()
	r := &Redis{t: t, network: "unix", bin: Binary(t), dir: t.TempDir()}
	sockDir := r.dir
	if len(sockDir)+len("/redis.sock") > maxSocketPath {
		// A long test name makes a long temporary directory.
		d, err := os.MkdirTemp("/tmp", "redis")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.RemoveAll(d) })
		sockDir = d
	}
	r.Addr = filepath.Join(sockDir, "redis.sock")
	r.URL = "unix://" + r.Addr + "?db=0"
	if !r.start() {
		t.Fatalf("redis-server on %s never answered", r.Addr)
	}
	t.Cleanup(r.Kill)
	return r
}

// StartTCP runs an empty redis-server without persistence on a free
// loopback port until the test ends. Another process may take that port
// while the server is down, so a test that kills and restarts Redis uses
// Start.
func StartTCP(t testing.TB) *Redis {
	t.Helper()
	r := &Redis{t: t, network: "tcp", bin: Binary(t), dir: t.TempDir()}
	for range 20 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		r.Addr = ln.Addr().String()
		_ = ln.Close()
		r.URL = "redis://" + r.Addr + "/0"
		if r.start() {
			t.Cleanup(r.Kill)
			return r
		}
		// Another process took the port in between: another one.
	}
	t.Fatalf("redis-server never answered on a loopback port")
	return nil
}

// start runs the server on r.Addr and waits until it answers as the
// process started; false when it does not.
func (r *Redis) start() bool {
	r.t.Helper()
	args := []string{"--save", "", "--appendonly", "no", "--dir", r.dir, "--daemonize", "no",
		"--protected-mode", "yes", "--loglevel", "warning", "--logfile", r.LogPath()}
	if r.network == "unix" {
		args = append(args, "--port", "0", "--unixsocket", r.Addr, "--unixsocketperm", "700")
	} else {
		_, port, _ := net.SplitHostPort(r.Addr)
		args = append(args, "--bind", "127.0.0.1", "--port", port)
	}
	for try := 0; try < 3; try++ {
		cmd := exec.Command(r.bin, args...)
		cmd.Stdout, cmd.Stderr = nil, nil
		if err := cmd.Start(); err != nil {
			r.t.Fatalf("start redis-server: %v", err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		r.cmd, r.exited = cmd, exited
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if r.Check() == nil {
				return true
			}
			select {
			case <-exited:
				deadline = time.Time{}
			case <-time.After(20 * time.Millisecond):
			}
		}
		_ = cmd.Process.Kill()
		<-exited
		r.cmd = nil
		if r.network == "tcp" {
			return false // the port is someone else's: the caller picks another
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// LogPath is the server's log file.
func (r *Redis) LogPath() string { return r.dir + "/redis.log" }

// Ping sends PING to the server and checks the answer.
func (r *Redis) Ping() error {
	_, err := r.ask("PING", func(line string) bool { return strings.HasPrefix(line, "+PONG") })
	return err
}

// Check reports an error unless the server answering at r's address is
// the process r started.
func (r *Redis) Check() error {
	if r.cmd == nil {
		return fmt.Errorf("redis-server at %s is not running", r.Addr)
	}
	want := "process_id:" + r.PID()
	found, err := r.ask("INFO server", func(line string) bool { return strings.TrimSpace(line) == want })
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("the server at %s is not the one started (pid %s)", r.Addr, r.PID())
	}
	return nil
}

// ask sends an inline command and reads the answer's lines until match
// accepts one (true) or the answer ends (false).
func (r *Redis) ask(command string, match func(line string) bool) (bool, error) {
	c, err := net.DialTimeout(r.network, r.Addr, time.Second)
	if err != nil {
		return false, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte(command + "\r\n")); err != nil {
		return false, err
	}
	rd := bufio.NewReader(c)
	first, err := rd.ReadString('\n')
	if err != nil {
		return false, err
	}
	if match(first) {
		return true, nil
	}
	if !strings.HasPrefix(first, "$") {
		return false, nil // a one-line answer that did not match
	}
	size, err := strconv.Atoi(strings.TrimSpace(first[1:]))
	if err != nil {
		return false, fmt.Errorf("%s answered %q", command, first)
	}
	for read := 0; read < size; {
		line, err := rd.ReadString('\n')
		if err != nil {
			return false, err
		}
		read += len(line)
		if match(line) {
			return true, nil
		}
	}
	return false, nil
}

// Kill stops the server at once (SIGKILL). It is safe to call twice.
func (r *Redis) Kill() {
	if r.cmd == nil {
		return
	}
	r.Resume() // a paused server dies at once too
	_ = r.cmd.Process.Kill()
	<-r.exited // its sockets are closed
	r.cmd = nil
}

// Restart kills the server and starts an empty one on the same address
// after down (the state is lost, as with a Redis without persistence).
func (r *Redis) Restart(down time.Duration) {
	r.t.Helper()
	r.Kill()
	time.Sleep(down)
	if !r.start() {
		r.t.Fatalf("redis-server on %s never answered after a restart", r.Addr)
	}
}

// PID is the server's process id.
func (r *Redis) PID() string { return strconv.Itoa(r.cmd.Process.Pid) }
