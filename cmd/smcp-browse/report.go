package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/sanitize"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Exit codes of the browse, ls and cat commands.
const (
	exitFailure = 1 // a protocol error, a timeout or a connection failure
	exitUsage   = 2 // bad flags or arguments
)

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
