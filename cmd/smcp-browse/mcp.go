package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/smcp-browse/smcp-browse/agent/finderclient"
	"github.com/smcp-browse/smcp-browse/agent/mcpfacade"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// newMCPCmd offers an office's Finder to any MCP host.
func newMCPCmd() *cobra.Command {
	var (
		cf       connFlags
		httpAddr string
	)
	cmd := &cobra.Command{
		Use:   "mcp (--demo [--docs DIR] | --server URL --office ID [--computer NAME]) [--http ADDR] [flags]",
		Short: "Offer an office's documents to any MCP host (Claude Desktop, Cursor, the MCP Inspector ...)",
		Long: `mcp is an MCP server that joins an office as its agent and offers the host
the documents of every computer in it (or of --computer's alone):
  tools      finder_computers, finder_list, finder_document, finder_page,
             finder_element and finder_search (ranked, across computers);
  resources  every document as its dpe:// URI, templates for pages and
             elements, completion of their arguments, and list_changed /
             updated notifications as documents change (subscribe to a URI).
It speaks MCP over stdio (what a host's "mcpServers" entry starts), or
Streamable HTTP at http://ADDR/mcp with --http ADDR. Logs go to --log-file,
never to stdout. The office holds one agent at a time: while this runs, the
browser and ls/cat are refused there (4101).`,
		Example: `  smcp-browse mcp --demo
  smcp-browse mcp --server http://10.0.0.5:9000 --office team --token "$SMCP_TOKEN"
  smcp-browse mcp --demo --http 127.0.0.1:8765`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := cf.check(false); err != nil {
				return report(cmd, err, false)
			}
			if err := runMCP(cmd, &cf, httpAddr); err != nil {
				return report(cmd, err, false)
			}
			return nil
		},
	}
	cmd.SetFlagErrorFunc(flagError)
	cf.register(cmd.Flags())
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve Streamable HTTP on this address (host:port) at /mcp instead of stdio")
	return cmd
}

// joinRetry bounds the wait between two tries to join the office.
const (
	joinRetryMin = 2 * time.Second
	joinRetryMax = time.Minute
)

// joinLoop joins the office as the flags say and attaches the façade,
// trying again while the Server cannot be reached (it may start after the
// host starts us); a refusal that a retry cannot change (a wrong token,
// another protocol version, bad flags) ends it. Until then every call
// answers why. The session joined is sent on joined.
func joinLoop(ctx context.Context, cf *connFlags, f *mcpfacade.Facade, log *slog.Logger, logPath string, joined chan<- *finderclient.Session) {
	wait := joinRetryMin
	for {
		s, err := cf.dial(ctx, f.Handlers(), log, logPath)
		if err == nil {
			// The demo's one computer, or --computer's, alone; else
			// every computer of the office.
			f.Attach(s.Agent, s.Computer)
			joined <- s
			return
		}
		f.Unjoined(err)
		code := protocol.CodeOf(err)
		if ctx.Err() != nil || cf.demo || code == protocol.CodeVersionMismatch || code == protocol.CodeUnauthorized || code == protocol.CodeForbidden {
			log.Error("cannot join the office", "err", err)
			return
		}
		log.Warn("cannot join the office yet; trying again", "err", err, "in", wait)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
		wait = min(2*wait, joinRetryMax)
	}
}

// runMCP joins the office and serves the façade until stdin ends, the
// HTTP server fails, or a signal.
func runMCP(cmd *cobra.Command, cf *connFlags, httpAddr string) error {
	ctx := cmd.Context()
	log, logPath, closeLog, err := openLog(cf.logFile, cf.logLevel)
	if err != nil {
		return err
	}
	defer closeLog()
	f := mcpfacade.New(mcpfacade.Options{Timeout: cf.timeout, Version: version, Logger: log.With("role", "mcp")})
	defer f.Close()
	joined := make(chan *finderclient.Session, 1)
	go joinLoop(ctx, cf, f, log, logPath, joined)
	defer func() {
		select {
		case s := <-joined:
			if err := s.Close(); err != nil && cf.demo {
				log.Warn("demo stop", "err", err)
			}
		default:
		}
	}()
	if httpAddr == "" {
		return f.ServeStdio(ctx, cmd.InOrStdin(), cmd.OutOrStdout())
	}
	ln, err := net.Listen("tcp", httpAddr)
	if err != nil {
		return fmt.Errorf("--http %s: %w", httpAddr, err)
	}
	srv := &http.Server{Handler: f.HTTPHandler("/mcp"), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(cmd.ErrOrStderr(), "smcp-browse mcp listening on http://%s/mcp\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
