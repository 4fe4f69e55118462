package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/agent/finderclient"
	"github.com/smcp-browse/smcp-browse/cmd/smcp-browse/internal/demo"
	"github.com/smcp-browse/smcp-browse/docserver"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// connFlags are the flags that say where the documents are: the embedded
// demo (--demo [--docs DIR]) or a remote Server (--server --office ...).
type connFlags struct {
	demo     bool
	docs     string
	server   string
	office   string
	computer string
	token    string
	name     string
	path     string
	version  string
	timeout  time.Duration
	logFile  string
	logLevel string

	fs *pflag.FlagSet
}

// defaultTimeout bounds each request of the commands: longer than a
// document server may take to read one file (docserver.DefaultParseTimeout,
// 60 s: a big workbook on a loaded machine), so that a read that is slow
// but legitimate is answered rather than cut.
const defaultTimeout = docserver.DefaultParseTimeout + 30*time.Second

// register adds the flags to fs; the environment supplies defaults.
func (f *connFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	fs.BoolVar(&f.demo, "demo", false, "run the embedded Server, Computer and document server on this machine")
	fs.StringVar(&f.docs, "docs", "", "with --demo: serve this folder instead of the built-in sample corpus")
	fs.StringVar(&f.server, "server", os.Getenv("SMCP_SERVER"), "SMCP Server URL, e.g. http://127.0.0.1:9000; the nodes of one Server comma-separated (default $SMCP_SERVER)")
	fs.StringVar(&f.office, "office", os.Getenv("SMCP_OFFICE"), "office to join (default $SMCP_OFFICE)")
	fs.StringVar(&f.computer, "computer", "", "the computer whose documents to show")
	fs.StringVar(&f.token, "token", os.Getenv("SMCP_TOKEN"), "the Server's shared token (default $SMCP_TOKEN)")
	fs.StringVar(&f.name, "name", agent.DefaultName, "this agent's name in the office")
	fs.StringVar(&f.path, "socket-path", "/socket.io/", "the Server's Socket.IO HTTP path (a Server built on the a2c-smcp SDK may use /smcp)")
	fs.StringVar(&f.version, "a2c-version", protocol.Version, "the A2C-SMCP protocol version to speak (pin the Server's when it refuses ours with 4008)")
	fs.DurationVar(&f.timeout, "timeout", defaultTimeout, "timeout of each request to the Server")
	fs.StringVar(&f.logFile, "log-file", defaultLogFile(), "file the logs are appended to (never the screen)")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error")
}

// check reports a usage error when the flags do not name one source of
// documents; needComputer requires a computer in the --server form.
func (f *connFlags) check(needComputer bool) error {
	switch {
	case f.demo && (f.fs.Changed("server") || f.fs.Changed("office")):
		return usageErrorf("--demo runs its own Server and office: drop --server and --office")
	case f.demo && f.fs.Changed("computer"):
		return usageErrorf("--demo has one computer: drop --computer")
	case f.demo:
		if f.timeout <= 0 {
			return usageErrorf("--timeout must be positive")
		}
		if f.docs != "" {
			st, err := os.Stat(f.docs)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return usageErrorf("--docs %s: no such folder", f.docs)
			case err != nil:
				return usageErrorf("--docs %s: %v", f.docs, err)
			case !st.IsDir():
				return usageErrorf("--docs %s: not a folder", f.docs)
			}
		}
		return nil
	case f.docs != "":
		return usageErrorf("--docs needs --demo")
	case f.server == "":
		return usageErrorf("say where the documents are: --demo [--docs DIR], or --server URL --office ID (or $SMCP_SERVER, $SMCP_OFFICE)")
	case f.office == "":
		return usageErrorf("--office is required with --server (or set $SMCP_OFFICE)")
	case needComputer && f.computer == "":
		return usageErrorf("--computer is required with --server")
	case f.timeout <= 0:
		return usageErrorf("--timeout must be positive")
	}
	for _, node := range strings.Split(f.server, ",") {
		if !serverURL(strings.TrimSpace(node)) {
			return usageErrorf("--server %q: not a Server URL (http://host:port, https://, ws:// or wss://)", node)
		}
	}
	if _, err := protocol.ParseVersion(f.version); err != nil {
		return usageErrorf("--a2c-version: %v", err)
	}
	return nil
}

// serverURL reports whether s can name a Server: http, https, ws or wss,
// and a host.
func serverURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return false
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
		return true
	}
	return false
}

// session is a Finder session (finderclient.Session) opened as the flags
// say, with the log it writes to.
type session struct {
	*finderclient.Session
	demo     bool // the embedded demo, which Close stops
	logPath  string
	closeLog func() error
	log      *slog.Logger
}

// close ends the session (for the demo, stops the embedded system) and
// closes the log.
func (s *session) close() {
	if err := s.Close(); err != nil && s.demo {
		s.log.Warn("demo stop", "err", err)
	}
	if s.closeLog != nil {
		_ = s.closeLog()
	}
}

// open connects as the flags say. The handlers receive the office's
// notifications from the moment the agent connects.
func (f *connFlags) open(ctx context.Context, h agent.Handlers) (*session, error) {
	log, logPath, closeLog, err := openLog(f.logFile, f.logLevel)
	if err != nil {
		return nil, err
	}
	fs, err := f.dial(ctx, h, log, logPath)
	if err != nil {
		closeLog()
		return nil, err
	}
	return &session{Session: fs, demo: f.demo, log: log, logPath: logPath, closeLog: closeLog}, nil
}

// dial starts the embedded demo, or connects to the remote Server and
// joins its office.
func (f *connFlags) dial(ctx context.Context, h agent.Handlers, log *slog.Logger, logPath string) (*finderclient.Session, error) {
	if !f.demo {
		return finderclient.Dial(ctx, finderclient.DialOptions{
			Server: f.server, Office: f.office, Computer: f.computer,
			Agent: agent.Options{
				Name: f.name, Token: f.token, Path: f.path, Version: f.version, Timeout: f.timeout, Handlers: h, Logger: log.With("role", "agent"),
			},
		})
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this program to start its document server: %w", err)
	}
	sys, err := demo.Start(ctx, demo.Options{
		Docs: f.docs, Executable: exe, AgentName: f.name, Handlers: h,
		// --timeout raises the start-up bound too, as the advice of a
		// 408 says.
		Timeout: f.timeout, StartTimeout: max(demo.DefaultStartTimeout, f.timeout),
		Logger: log, LogFile: logPath, LogLevel: f.logLevel,
		Version: version,
	})
	if err != nil {
		return nil, err
	}
	return finderclient.Attach(sys.Agent, sys.Office, sys.Computer, sys.Close), nil
}

// with opens a session, runs fn on it and closes it.
func (cf *connFlags) with(ctx context.Context, fn func(*session) error) error {
	s, err := cf.open(ctx, agent.Handlers{})
	if err != nil {
		return err
	}
	defer s.close()
	return fn(s)
}

// wrapf adds context to err, or returns nil.
func wrapf(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
