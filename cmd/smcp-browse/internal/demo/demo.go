// Package demo composes the whole Finder system inside one process for
// `smcp-browse --demo`: an SMCP Server on a loopback port, a Computer whose
// document MCP server is this same binary's `serve-docs` run as a real stdio
// subprocess, and an Agent joined to the office. The documents come from a
// folder the caller names or from the corpus embedded in the binary,
// extracted to a temporary folder that Close removes.
package demo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/computer"
	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/computer/mcpclient"
	"github.com/smcp-browse/smcp-browse/internal/democorpus"
	"github.com/smcp-browse/smcp-browse/internal/opt"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
)

// Defaults of Options.
const (
	DefaultOffice       = "demo"
	DefaultComputer     = "demo-computer"
	DefaultHost         = "local.demo.docs"
	DefaultStartTimeout = 30 * time.Second
	// innerSlack is how much longer than the agent the embedded Server and
	// Computer wait for their peers.
	innerSlack = 5 * time.Second
	// DocServerName is the bundle name of the demo's document server.
	DocServerName = "docs"
)

// Options configure Start. Executable is required.
type Options struct {
	// Docs is the folder to serve; empty extracts the embedded corpus into
	// a temporary folder.
	Docs string
	// Executable is the smcp-browse binary started as `serve-docs DIR`.
	Executable string
	// Host is the dpe:// host of the documents (default local.demo.docs).
	Host string
	// Office and Computer name the office and the computer (defaults
	// "demo" and "demo-computer").
	Office, Computer string
	// AgentName is the agent's name (default agent.DefaultName).
	AgentName string
	// Handlers receive the agent's notifications.
	Handlers agent.Handlers
	// Timeout bounds each agent request (default agent.DefaultTimeout).
	// The embedded Server and Computer wait a little longer for their
	// peers, so that a slow read ends on the agent's own deadline, the
	// one the user sets.
	Timeout time.Duration
	// StartTimeout bounds Start (default 30 s).
	StartTimeout time.Duration
	// Logger receives the Server's, Computer's and agent's logs (default:
	// discard). Keep it off the terminal the browser draws on.
	Logger *slog.Logger
	// LogFile, when set, is where the document server appends its own logs
	// (--log-file); otherwise its stderr goes to Logger at debug level.
	LogFile string
	// LogLevel is the document server's --log-level (default "info").
	LogLevel string
	// Version is reported by the Computer and the document server.
	Version string
}

// System is a running demo. Close stops it.
type System struct {
	// URL is the Server's base URL (http://127.0.0.1:PORT).
	URL string
	// Office and Computer are the office joined and the computer's name.
	Office, Computer string
	// Docs is the folder served.
	Docs string
	// Agent is the connected agent, joined to Office.
	Agent *agent.Client

	comp     *computer.Computer
	tempDir  string // removed by Close when not empty
	cancel   context.CancelFunc
	compErr  chan error // Computer.Run's result
	srvErr   chan error // Server.Serve's result
	once     sync.Once
	closeErr error
}

// Start runs the demo and returns once the agent has joined the office, the
// computer is in it and its document server is up. ctx bounds start-up
// only; the system runs until Close.
func Start(ctx context.Context, opts Options) (sys *System, err error) {
	if opts.Executable == "" {
		return nil, errors.New("demo: Options.Executable is required")
	}
	opts = withDefaults(opts)
	log := opts.Logger
	ctx, cancelStart := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancelStart()

	runCtx, cancel := context.WithCancel(context.Background())
	sys = &System{Office: opts.Office, Computer: opts.Computer, cancel: cancel}
	defer func() {
		if err != nil {
			_ = sys.Close()
			sys = nil
		}
	}()

	if sys.Docs, sys.tempDir, err = docsFolder(opts.Docs); err != nil {
		return sys, err
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return sys, fmt.Errorf("demo: listen on loopback: %w", err)
	}
	sys.URL = "http://" + ln.Addr().String()
	inner := opts.Timeout + innerSlack
	srv := server.New(server.Options{Logger: log.With("role", "server"), RequestTimeout: inner})
	sys.srvErr = make(chan error, 1)
	go func() { sys.srvErr <- srv.Serve(runCtx, ln) }()

	args := []string{"serve-docs", sys.Docs, "--host", opts.Host, "--log-level", opts.LogLevel}
	if opts.LogFile != "" {
		args = append(args, "--log-file", opts.LogFile)
	}
	comp, err := computer.New(config.Config{}, computer.Options{
		Name: opts.Computer, Office: opts.Office, ServerURL: sys.URL,
		Logger:         log.With("role", "computer"),
		Servers:        []config.Server{config.NewStdio(DocServerName, opts.Executable, args...)},
		Version:        opts.Version,
		RequestTimeout: inner,
	})
	if err != nil {
		return sys, fmt.Errorf("demo: computer: %w", err)
	}
	sys.comp = comp
	sys.compErr = make(chan error, 1)
	go func() { sys.compErr <- comp.Run(runCtx) }()

	sys.Agent, err = agent.Connect(ctx, sys.URL, agent.Options{
		Name: opts.AgentName, Timeout: opts.Timeout, Handlers: opts.Handlers,
		Logger: log.With("role", "agent"),
	})
	if err != nil {
		return sys, fmt.Errorf("demo: connect the agent: %w", err)
	}
	if err := sys.Agent.JoinOffice(ctx, opts.Office); err != nil {
		return sys, fmt.Errorf("demo: join office %s: %w", opts.Office, err)
	}
	if err := sys.waitReady(ctx, opts.StartTimeout); err != nil {
		return sys, err
	}
	log.Info("demo ready", "url", sys.URL, "office", sys.Office, "computer", sys.Computer, "docs", sys.Docs)
	return sys, nil
}

func withDefaults(o Options) Options {
	opt.Default(&o.Host, DefaultHost)
	opt.Default(&o.Office, DefaultOffice)
	opt.Default(&o.Computer, DefaultComputer)
	opt.Default(&o.Timeout, agent.DefaultTimeout)
	opt.Default(&o.StartTimeout, DefaultStartTimeout)
	o.Logger = opt.Logger(o.Logger)
	opt.Default(&o.LogLevel, "info")
	return o
}

// docsFolder checks dir, or extracts the embedded corpus into a new
// temporary folder (returned as temp too) when dir is empty.
func docsFolder(dir string) (docs, temp string, err error) {
	if dir != "" {
		st, err := os.Stat(dir)
		if err != nil {
			return "", "", fmt.Errorf("demo: --docs: %w", err)
		}
		if !st.IsDir() {
			return "", "", fmt.Errorf("demo: --docs %s: not a folder", dir)
		}
		return dir, "", nil
	}
	temp, err = os.MkdirTemp("", "smcp-browse-demo-")
	if err != nil {
		return "", "", fmt.Errorf("demo: temporary folder: %w", err)
	}
	if _, err := democorpus.Extract(temp); err != nil {
		return "", temp, err
	}
	return temp, temp, nil
}

// waitReady polls until the computer is in the office and every document
// server is up, or fails with what is known about why not. A failed room
// listing is retried like any other poll: near the deadline it fails only
// because time is short, and the states say more. bound is the start-up
// bound the error names when ctx ends.
func (s *System) waitReady(ctx context.Context, bound time.Duration) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var listErr error
	for {
		inRoom, err := s.computerInRoom(ctx)
		listErr = err
		states := s.comp.Servers()
		up := len(states) > 0
		for _, st := range states {
			up = up && st.Up
		}
		if inRoom && up {
			return nil
		}
		select {
		case err := <-s.compErr:
			s.compErr <- err // keep it for Close
			return fmt.Errorf("demo: the computer stopped during start-up: %v", err)
		case <-ctx.Done():
			why := fmt.Sprintf("computer in office: %v, document servers: %s", inRoom, describe(states))
			if listErr != nil {
				why += fmt.Sprintf(", last room listing: %v", listErr)
			}
			return fmt.Errorf("demo: not ready within the start-up bound of %v (%s): %w", bound, why, ctx.Err())
		case <-tick.C:
		}
	}
}

func (s *System) computerInRoom(ctx context.Context) (bool, error) {
	members, err := s.Agent.ListRoom(ctx)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(members, func(m protocol.SessionInfo) bool {
		return m.Role == protocol.RoleComputer && m.Name == s.Computer
	}), nil
}

func describe(m map[string]mcpclient.State) string {
	if len(m) == 0 {
		return "none started"
	}
	var parts []string
	for k, v := range m {
		st := "up"
		if !v.Up {
			st = "down"
			if v.LastError != "" {
				st += " (" + v.LastError + ")"
			}
		}
		parts = append(parts, k+": "+st)
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

// Close disconnects the agent, stops the computer (and with it the document
// server subprocess) and the Server, and removes the extracted corpus. It
// waits at most a few seconds for each and is safe to call more than once.
func (s *System) Close() error {
	s.once.Do(func() {
		var errs []error
		if s.Agent != nil {
			_ = s.Agent.Close()
		}
		s.cancel()
		for _, w := range []struct {
			name string
			ch   chan error
		}{{"computer", s.compErr}, {"server", s.srvErr}} {
			if w.ch == nil {
				continue // never started
			}
			select {
			case err := <-w.ch:
				if err != nil && !errors.Is(err, context.Canceled) {
					errs = append(errs, fmt.Errorf("%s: %w", w.name, err))
				}
			case <-time.After(10 * time.Second):
				errs = append(errs, fmt.Errorf("%s did not stop within 10s", w.name))
			}
		}
		if s.tempDir != "" {
			if err := os.RemoveAll(s.tempDir); err != nil {
				errs = append(errs, err)
			}
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}
