// Command smcp-browse is a terminal browser for A2C-SMCP Finder documents,
// with the Server, Computer and document MCP server it needs built in.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	// The Socket.IO client library's init subscribes to SIGINT, SIGTERM
	// and SIGQUIT in every program that links it, which among other things
	// turned SIGQUIT into a no-op. Undo that; this program handles SIGINT,
	// SIGTERM and SIGHUP (a closed terminal) itself, stopping cleanly (the
	// demo's temporary corpus removed), and SIGQUIT keeps Go's goroutine
	// dump and exit.
	signal.Reset(os.Interrupt, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGHUP)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	err := newRootCmd().ExecuteContext(ctx)
	stop()
	if err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "smcp-browse:", err)
		if errors.As(err, new(usageError)) {
			os.Exit(exitUsage)
		}
		os.Exit(exitFailure)
	}
}

// exitError carries a process exit code for errors already reported to the
// user (the command printed its own message).
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func newRootCmd() *cobra.Command {
	root := newBrowseCmd()
	root.Version = version
	root.SilenceUsage = true
	root.SilenceErrors = true
	root.AddCommand(
		newServerCmd(),
		newComputerCmd(),
		newServeDocsCmd(),
		newLsCmd(),
		newCatCmd(),
		newSkillsCmd(),
		newSearchCmd(),
		newBlobCmd(),
		newMCPCmd(),
	)
	return root
}
