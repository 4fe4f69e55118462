package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
)

// serviceLogger is the logger of the long-running subcommands (server,
// computer, serve-docs): text records at level on stderr, or appended to
// file when one is named. close releases the file.
func serviceLogger(stderr io.Writer, file, level string) (log *slog.Logger, close func() error, err error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, nil, usageErrorf("--log-level: %v", err)
	}
	out, close := stderr, func() error { return nil }
	if file != "" {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, nil, fmt.Errorf("--log-file: %w", err)
		}
		out, close = f, f.Close
	}
	return slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: lv})), close, nil
}

// maxLogSize is the size above which the log file is truncated at start.
const maxLogSize = 8 << 20

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
