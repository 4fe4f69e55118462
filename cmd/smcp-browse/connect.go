package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/cmd/smcp-browse/internal/demo"
	"github.com/smcp-browse/smcp-browse/docserver"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/sanitize"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Exit codes of the browse, ls and cat commands.
const (
	exitFailure = 1 // a protocol error, a timeout or a connection failure
	exitUsage   = 2 // bad flags or arguments
)

// maxLogSize is the size above which the log file is truncated at start.
const maxLogSize = 8 << 20

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

// codeUnreachable is the code of a Server that cannot be reached at all
// (refused, no such host, no route): the Server did not fail, it was never
// asked.
const codeUnreachable = 503

// unreachable says that the Server cannot be reached when connecting
// failed before any Server answered; other errors (a refused handshake, a
// timeout) are returned as they are.
func unreachable(server string, err error) error {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return err
	}
	var dns *net.DNSError
	var op *net.OpError
	var cause string
	switch {
	case errors.As(err, &dns):
		cause = dns.Error()
	case errors.As(err, &op):
		cause = op.Err.Error()
	default:
		return err
	}
	return protocol.Errorf(codeUnreachable, "cannot reach the Server at %s: %s", server, cause).
		WithDetails(map[string]any{"server": server, "reason": cause})
}

// session is a connected agent joined to an office, with the computer to
// talk to and what to stop at the end.
type session struct {
	agent    *agent.Client
	office   string
	computer string // "" when none was named (the browser lists the office)
	sys      *demo.System
	logPath  string
	closeLog func() error
	log      *slog.Logger
}

// close disconnects and, for the demo, stops the embedded system.
func (s *session) close() {
	if s.sys != nil {
		if err := s.sys.Close(); err != nil {
			s.log.Warn("demo stop", "err", err)
		}
	} else if s.agent != nil {
		_ = s.agent.Close()
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
	s := &session{log: log, logPath: logPath, closeLog: closeLog}
	if f.demo {
		exe, err := os.Executable()
		if err != nil {
			closeLog()
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
			closeLog()
			return nil, err
		}
		s.sys, s.agent, s.office, s.computer = sys, sys.Agent, sys.Office, sys.Computer
		return s, nil
	}
	cctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	ag, err := agent.Connect(cctx, f.server, agent.Options{
		Name: f.name, Token: f.token, Path: f.path, Version: f.version, Timeout: f.timeout, Handlers: h, Logger: log.With("role", "agent"),
	})
	if err != nil {
		closeLog()
		return nil, unreachable(f.server, err)
	}
	if err := ag.JoinOffice(cctx, f.office); err != nil {
		ag.Close()
		closeLog()
		return nil, explainJoin(err, f.office)
	}
	s.agent, s.office, s.computer = ag, f.office, f.computer
	return s, nil
}

// explainJoin says what a refused join means for the user: an office
// holds one agent at a time (4101), so a browser open on it keeps ls and
// cat out.
func explainJoin(err error, office string) error {
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeRoomFull {
		return err
	}
	details := map[string]any{"office": office, "reason": "one agent per office"}
	for k, v := range pe.Details {
		details[k] = v
	}
	return protocol.Errorf(protocol.CodeRoomFull,
		"%s: an office holds one agent at a time (an A2C-SMCP rule), so another agent (a smcp-browse browser open on this office?) keeps this command out; "+
			"quit it or run this command from it, or use another office", pe.Message).WithDetails(details)
}

// defaultLogFile is $XDG_STATE_HOME/smcp-browse/smcp-browse.log (or
// ~/.local/state/..., or the temporary folder).
func defaultLogFile() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".local", "state")
		} else {
			dir = os.TempDir()
		}
	}
	return filepath.Join(dir, "smcp-browse", "smcp-browse.log")
}

// openLog opens path for appending (truncating it first when it grew past
// maxLogSize) and returns a logger writing to it.
func openLog(path, level string) (*slog.Logger, string, func() error, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, "", nil, usageErrorf("--log-level: %v", err)
	}
	if path == "" {
		return slog.New(slog.DiscardHandler), "", func() error { return nil }, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, "", nil, fmt.Errorf("log file: %w", err)
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if st, err := os.Stat(path); err == nil && st.Size() > maxLogSize {
		flags |= os.O_TRUNC
	}
	fh, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return nil, "", nil, fmt.Errorf("log file: %w", err)
	}
	return slog.New(slog.NewTextHandler(fh, &slog.HandlerOptions{Level: lv})), path, fh.Close, nil
}

// usageError is a mistake in the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

// flagError reports cobra's flag parsing errors as usage errors.
func flagError(cmd *cobra.Command, err error) error { return usage(cmd, err.Error()) }

// usageArgs wraps an argument validator so that its errors are reported as
// usage errors.
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return usage(cmd, err.Error())
		}
		return nil
	}
}

// usage prints a usage mistake with a pointer to --help and returns the
// exit status 2.
func usage(cmd *cobra.Command, msg string) error {
	fmt.Fprintf(cmd.ErrOrStderr(), "error: %s\nRun '%s --help' for usage.\n", msg, cmd.CommandPath())
	return exitError{exitUsage}
}

// report prints err and returns the exitError main exits with: a usage
// error as "error: ..." with a pointer to --help (status 2); anything else
// as "error CODE: message" (status 1), and with jsonOut also the flat error
// payload on stdout. Errors without a protocol code are reported as 500, or
// 408 when a deadline passed.
func report(cmd *cobra.Command, err error, jsonOut bool) error {
	if err == nil {
		return nil
	}
	var ue usageError
	if errors.As(err, &ue) {
		return usage(cmd, ue.msg)
	}
	pe, prefix := asProtocolError(err)
	if pe.Code == protocol.CodeTimeout {
		pe = withTimeoutAdvice(pe, cmd)
	}
	if jsonOut {
		_ = writeJSON(cmd.OutOrStdout(), withDetails(pe, cmd, prefix))
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "error %d: %s\n", pe.Code, sanitize.Text(dpe.OneLine(prefix+pe.Message)))
	return exitError{exitFailure}
}

// withTimeoutAdvice says which flag raises the deadline a 408 hit: this
// command's --timeout when the deadline was its own (or, with --demo,
// anyone's: the embedded Server and Computer wait longer than it), else
// the --request-timeout of the Server or Computer that gave up.
func withTimeoutAdvice(pe *protocol.Error, cmd *cobra.Command) *protocol.Error {
	if strings.Contains(pe.Message, "--timeout") {
		return pe // it says so already
	}
	f := cmd.Flags().Lookup("timeout")
	if f == nil {
		return pe
	}
	advice := fmt.Sprintf(" (raise --timeout, now %s, to wait longer)", f.Value)
	if demo := cmd.Flags().Lookup("demo"); demo == nil || demo.Value.String() != "true" {
		switch {
		case strings.HasPrefix(pe.Message, "computer '"):
			advice = " (the Server gave up waiting for the computer: its --request-timeout bounds that)"
		case strings.HasPrefix(pe.Message, "MCP server "):
			advice = " (the computer gave up waiting for its document server: the computer's --request-timeout bounds that)"
		}
	}
	c := *pe
	c.Message += advice
	return &c
}

// withDetails returns the payload --json prints: every error has details
// (the README promises them); one without says at least which command and
// step failed.
func withDetails(pe *protocol.Error, cmd *cobra.Command, prefix string) *protocol.Error {
	if len(pe.Details) > 0 {
		return pe
	}
	c := *pe
	c.Details = map[string]any{"command": cmd.Name()}
	if step := strings.TrimSuffix(strings.TrimSpace(prefix), ":"); step != "" {
		c.Details["step"] = sanitize.Text(step)
	}
	return &c
}

// asProtocolError returns the *protocol.Error in err's chain, or one made
// from err (408 for a passed deadline, 500 otherwise), and the context the
// layers above it added ("join office demo: ").
func asProtocolError(err error) (*protocol.Error, string) {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return pe, strings.TrimSuffix(err.Error(), pe.Error())
	}
	code := protocol.CodeInternalError
	if errors.Is(err, context.DeadlineExceeded) {
		code = protocol.CodeTimeout
	}
	return protocol.NewError(code, err.Error()), ""
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

// writeRawJSON writes a JSON answer indented, keeping every field as
// received, with a final newline; C1 controls are escaped (escapeC1).
func writeRawJSON(w io.Writer, raw json.RawMessage) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return fmt.Errorf("the answer is not JSON: %w", err)
	}
	buf.WriteByte('\n')
	_, err := w.Write(escapeC1(buf.Bytes()))
	return err
}

// writeJSON writes v indented, with a final newline; C1 controls are
// escaped (escapeC1).
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeC1(buf.Bytes()))
	return err
}

// escapeC1 rewrites the C1 controls U+0080-U+009F inside the strings of a
// JSON text as \u0080-\u009f, and bytes that are not UTF-8 as \ufffd.
// encoding/json escapes C0 controls but passes C1 ones through, and a
// terminal reads U+009B as CSI: text from a remote computer must not
// reach the screen as controls. The JSON value is unchanged. Outside
// strings valid JSON has only ASCII, so every non-ASCII byte is in one.
func escapeC1(b []byte) []byte {
	i := bytes.IndexFunc(b, func(r rune) bool { return (r >= 0x80 && r <= 0x9f) || r == utf8.RuneError })
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for len(b[i:]) > 0 {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			out = append(out, `\ufffd`...)
		case r >= 0x80 && r <= 0x9f:
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}
