package mcpclient

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/smcp-browse/smcp-browse/computer/config"
)

// Transport is an opened connection to one MCP server.
type Transport struct {
	// T carries the JSON-RPC messages.
	T transport.Interface
	// Done is closed when the server is gone (its process exited or the
	// connection was lost); nil when the transport cannot tell.
	Done <-chan struct{}
	// Close releases everything Dial started (stops the process); it is
	// called after T.Close and may be nil.
	Close func() error
}

// DialFunc opens the transport of one configured server. The default
// handles stdio, sse and streamable; tests and the embedded demo may
// supply their own (e.g. in-process servers).
type DialFunc func(ctx context.Context, s config.Server) (Transport, error)

// Dial is the default DialFunc. ctx bounds the life of what it starts
// (a stdio child is stopped when ctx ends).
func Dial(ctx context.Context, s config.Server, log *slog.Logger) (Transport, error) {
	switch s.Type {
	case config.TypeStdio:
		return dialStdio(ctx, s, log)
	case config.TypeSSE:
		opts := []transport.ClientOption{transport.WithHTTPClient(boundedClient(log, s.BundleID))}
		if len(s.Params.Headers) > 0 {
			opts = append(opts, transport.WithHeaders(s.Params.Headers))
		}
		if s.Params.Timeout > 0 {
			opts = append(opts, transport.WithEndpointTimeout(s.Params.Timeout))
		}
		t, err := transport.NewSSE(s.Params.URL, opts...)
		if err != nil {
			return Transport{}, fmt.Errorf("sse %s: %w", s.Params.URL, err)
		}
		return lostAware(t), nil
	case config.TypeStreamable:
		opts := []transport.StreamableHTTPCOption{transport.WithHTTPBasicClient(boundedClient(log, s.BundleID))}
		if len(s.Params.Headers) > 0 {
			opts = append(opts, transport.WithHTTPHeaders(s.Params.Headers))
		}
		if s.Params.Timeout > 0 {
			opts = append(opts, transport.WithHTTPTimeout(s.Params.Timeout))
		}
		t, err := transport.NewStreamableHTTP(s.Params.URL, opts...)
		if err != nil {
			return Transport{}, fmt.Errorf("streamable http %s: %w", s.Params.URL, err)
		}
		return lostAware(t), nil
	}
	return Transport{}, fmt.Errorf("unknown server type %q", s.Type)
}

// lostAware turns a transport's connection-lost callback into Done.
func lostAware(t transport.Interface) Transport {
	done := make(chan struct{})
	var once sync.Once
	if setter, ok := t.(interface{ SetConnectionLostHandler(func(error)) }); ok {
		setter.SetConnectionLostHandler(func(error) { once.Do(func() { close(done) }) })
	}
	return Transport{T: t, Done: done}
}

// Grace periods of a stdio child's shutdown: stdin closed, then SIGTERM,
// then SIGKILL (to its whole process group).
const (
	stdinGrace = 2 * time.Second
	termGrace  = 2 * time.Second
)

// maxStderrLine bounds one logged line of a child's stderr.
const maxStderrLine = 2048

// dialStdio starts the server's command with its own pipes (so this
// package, not the transport, owns the process: it sees the exit at once
// and can stop the whole process group) and speaks JSON-RPC over them.
func dialStdio(ctx context.Context, s config.Server, log *slog.Logger) (Transport, error) {
	p := s.Params
	cmd := exec.Command(p.Command, p.Args...)
	cmd.Dir = p.Cwd
	cmd.Env = os.Environ()
	for k, v := range p.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	setProcessGroup(cmd)

	inR, inW, err := os.Pipe()
	if err != nil {
		return Transport{}, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return Transport{}, fmt.Errorf("stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return Transport{}, fmt.Errorf("stderr pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		for _, f := range []*os.File{inR, inW, outR, outW, errR, errW} {
			f.Close()
		}
		return Transport{}, fmt.Errorf("start %s: %w", p.Command, err)
	}
	// The child holds its own copies; closing ours lets reads see EOF when
	// it exits.
	inR.Close()
	outW.Close()
	errW.Close()

	done := make(chan struct{})
	go func() {
		err := cmd.Wait()
		log.Info("mcp server process exited", "server", s.BundleID, "pid", cmd.Process.Pid, "status", exitStatus(err))
		close(done)
	}()
	go logStderr(errR, log, s.BundleID)

	var stopOnce sync.Once
	stop := func() error {
		stopOnce.Do(func() {
			inW.Close()
			if waitDone(done, stdinGrace) {
				return
			}
			signalGroup(cmd, false)
			if waitDone(done, termGrace) {
				return
			}
			signalGroup(cmd, true)
			waitDone(done, termGrace)
		})
		outR.Close()
		return nil
	}
	go func() {
		select {
		case <-ctx.Done():
			stop()
		case <-done:
		}
	}()
	t := transport.NewIO(newGuard(outR, log, s.BundleID), inW, nil)
	return Transport{T: t, Done: done, Close: stop}, nil
}

func exitStatus(err error) string {
	if err == nil {
		return "exit 0"
	}
	return err.Error()
}

func waitDone(done <-chan struct{}, d time.Duration) bool {
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

func logStderr(r io.ReadCloser, log *slog.Logger, server string) {
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if len(line) > maxStderrLine {
			line = line[:maxStderrLine] + "…"
		}
		log.Debug("mcp server stderr", "server", server, "line", line)
	}
}

// errTransportClosed reports whether err means the connection is gone.
func errTransportClosed(err error) bool {
	return errors.Is(err, transport.ErrTransportClosed) || errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed)
}
