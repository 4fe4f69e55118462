package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
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
