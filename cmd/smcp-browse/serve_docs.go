package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/smcp-browse/smcp-browse/docserver"
)

// newServeDocsCmd serves a folder as dpe:// documents over MCP stdio.
func newServeDocsCmd() *cobra.Command {
	var (
		host        string
		maxFileSize int64
		logFile     string
		logLevel    string
		debounce    time.Duration
		pageSize    int
	)
	cmd := &cobra.Command{
		Use:   "serve-docs DIR",
		Short: "Serve the files of DIR as dpe:// documents (an MCP server over stdio)",
		Long: `serve-docs is an MCP server over stdio that exposes every supported file under
DIR (Markdown, text, source code, CSV/TSV, XLSX, PDF, DOCX, PPTX) as an A2C-SMCP
Finder document: resources/list, resources/read at the four dpe:// levels,
completion, change notifications, the fs_tree/fs_find/fs_grep tools, and
dpe_search, a ranked search of the documents' text (what client:search_finder
drives) through a full-text index it builds in the background and keeps in
$XDG_CACHE_HOME/smcp-browse/docs (an unchanged file is never read again).
Logs go to stderr (or --log-file), never to stdout.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			logger, closeLog, err := serviceLogger(cmd.ErrOrStderr(), logFile, logLevel)
			if err != nil {
				return err
			}
			defer closeLog()
			srv, err := docserver.New(args[0], docserver.Options{
				Host:         host,
				MaxFileSize:  maxFileSize,
				Logger:       logger,
				Debounce:     debounce,
				ListPageSize: pageSize,
				Version:      version,
			})
			if err != nil {
				return err
			}
			defer srv.Close()
			ctx := cmd.Context()
			if err := srv.Start(ctx); err != nil {
				return err
			}
			return srv.ServeStdio(ctx, cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&host, "host", docserver.DefaultHost, "dpe:// host of the documents (reverse-domain style)")
	f.Int64Var(&maxFileSize, "max-file-size", docserver.DefaultMaxFileSize, "files larger than this many bytes are not served")
	f.StringVar(&logFile, "log-file", "", "append logs to this file instead of stderr")
	f.StringVar(&logLevel, "log-level", "info", "log level: debug, info, warn or error")
	f.DurationVar(&debounce, "debounce", docserver.DefaultDebounce, "how long file changes are gathered before notifying")
	f.IntVar(&pageSize, "list-page-size", docserver.DefaultListPageSize, "resources per resources/list page")
	return cmd
}
