package docserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
	"github.com/smcp-browse/smcp-browse/internal/mcpsubs"
	"github.com/smcp-browse/smcp-browse/internal/opt"
	"github.com/smcp-browse/smcp-browse/internal/rpcerr"
)

// Defaults of Options.
const (
	DefaultHost         = "com.example.docs"
	DefaultMaxFileSize  = 32 << 20
	DefaultDebounce     = 75 * time.Millisecond
	DefaultListPageSize = 200
	DefaultCacheSize    = 64
	DefaultCacheBytes   = 256 << 20
	DefaultParseTimeout = 60 * time.Second
	DefaultPeekTimeout  = 10 * time.Second
	DefaultListWait     = 250 * time.Millisecond
)

// Options configures a Server. Zero values mean the defaults above.
type Options struct {
	Host         string        // the dpe:// host, e.g. com.example.docs
	MaxFileSize  int64         // files larger than this are not served
	Logger       *slog.Logger  // where the server logs; never stdout
	Debounce     time.Duration // how long the watcher gathers changes before notifying
	ListPageSize int           // resources per resources/list page
	CacheSize    int           // parsed documents kept in memory
	CacheBytes   int64         // estimated bytes of the parsed documents kept in memory
	ParseTimeout time.Duration // bound on parsing one file
	PeekTimeout  time.Duration // bound on peeking at one file for its title
	ListWait     time.Duration // how long resources/list waits for peeks before listing files as pending
	MemoryBudget int64         // bytes the parses and peeks in progress may reserve together
	// CacheDir holds the on-disk catalog cache and search index ("" for
	// $XDG_CACHE_HOME/smcp-browse/docs, "off" for none: the search index
	// is then kept in memory).
	CacheDir string
	Extract  extract.Options
	Version  string // reported in the MCP initialize result

	// pdfLinger overrides pdfLinger (tests).
	pdfLinger time.Duration
}

// Server is a document MCP server over one root directory.
type Server struct {
	host    string
	rootDir string // absolute
	root    *os.Root
	opts    Options
	log     *slog.Logger

	mcp    *server.MCPServer
	ledger *rpcerr.Ledger
	index  *index
	docs   *docCache
	peeks  *peeks
	subs   *mcpsubs.Set
	scan   *scanner
	parser *extract.Parser
	mem    *memoryGate
	disk   *diskCache
	text   *textIndex
	// attachedPDFs hold an engine instance for their next page.
	attachedPDFs attachedPDFs
	// counts of the extraction work done, for tests and logs
	peeksRun, parsesRun atomic.Int64
	work                sync.WaitGroup // parses and peeks running, abandoned ones too

	baseCtx    context.Context // parses run under it; Close cancels it
	baseCancel context.CancelFunc

	watchMu sync.Mutex
	watch   *watcher
	// scannedDirs are the folders New's scan found: Start watches them
	// instead of walking the tree again.
	scannedDirs []string
	closed      bool
}

// New opens root and indexes the files under it (a stat walk; nothing is
// parsed). The returned Server answers MCP requests at once; Start adds
// the file watcher.
func New(root string, opts Options) (*Server, error) {
	opt.Default(&opts.Host, DefaultHost)
	opt.Default(&opts.MaxFileSize, DefaultMaxFileSize)
	opt.Default(&opts.Debounce, DefaultDebounce)
	opt.Default(&opts.ListPageSize, DefaultListPageSize)
	opt.Default(&opts.CacheSize, DefaultCacheSize)
	opt.Default(&opts.ParseTimeout, DefaultParseTimeout)
	opt.Default(&opts.PeekTimeout, DefaultPeekTimeout)
	opt.Default(&opts.ListWait, DefaultListWait)
	opt.Default(&opts.CacheBytes, DefaultCacheBytes)
	opt.Default(&opts.MemoryBudget, DefaultMemoryBudget)
	opts.Logger = opt.Logger(opts.Logger)
	opt.Default(&opts.Version, "dev")
	opt.Default(&opts.pdfLinger, pdfLinger)
	if err := validHost(opts.Host); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("docserver: resolve root %q: %w", root, err)
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("docserver: root: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("docserver: root %s is not a directory", abs)
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("docserver: open root: %w", err)
	}
	s := &Server{
		host:    opts.Host,
		rootDir: abs,
		root:    r,
		opts:    opts,
		log:     opts.Logger,
		ledger:  rpcerr.NewLedger(),
		index:   newIndex(),
		docs:    newDocCache(opts.CacheSize, opts.CacheBytes),
		peeks:   newPeeks(),
		subs:    mcpsubs.New(),
		parser:  extract.NewParser(opts.Extract),
		mem:     newMemoryGate(opts.MemoryBudget),
	}
	s.mem.reclaim = s.attachedPDFs.reclaim
	s.baseCtx, s.baseCancel = context.WithCancel(context.Background())
	s.scan = &scanner{fsys: r.FS(), stat: r.Stat, open: s.openRegular, maxFileSize: opts.MaxFileSize, log: s.log, skipped: newSkipLedger()}
	files := map[string]fileInfo{}
	if err := s.scan.walk(s.baseCtx, ".", files, &s.scannedDirs); err != nil {
		r.Close()
		return nil, fmt.Errorf("docserver: scan %s: %w", abs, err)
	}
	s.index.replace(files)
	cacheDir := opts.CacheDir
	switch cacheDir {
	case "":
		cacheDir = defaultCacheDir()
	case "off":
		cacheDir = ""
	}
	s.disk = openDiskCache(cacheDir, abs, s.host, s.log)
	s.text = newTextIndex(s, cacheDir)
	s.restorePeeks(files)
	for _, f := range files {
		if f.kind == extract.KindPDF {
			// Build the PDF engine (or load its cached compilation) now
			// rather than on the first read.
			go extract.WarmPDFEngine()
			break
		}
	}
	s.mcp = s.newMCPServer()
	s.log.Info("document server ready", "root", abs, "host", s.host, "documents", len(files))
	return s, nil
}

// validHost checks that host can be the host of a dpe:// URI.
func validHost(host string) error {
	for _, r := range host {
		if r <= ' ' || r == 0x7f || r == '/' || r == '?' || r == '#' || r == '%' || r == '\\' {
			return fmt.Errorf("docserver: host %q has characters a dpe:// host cannot have", host)
		}
	}
	return nil
}

// Host returns the dpe:// host the server answers for.
func (s *Server) Host() string { return s.host }

// Root returns the absolute path of the served directory.
func (s *Server) Root() string { return s.rootDir }

// MCPServer returns the underlying mcp-go server, for transports this
// package does not wrap. Over those, a failed read is reported with code
// -32603 and the protocol error's text as message; ServeStdio and
// InProcessTransport report the protocol code (4201-4204) and its details.
func (s *Server) MCPServer() *server.MCPServer { return s.mcp }

// InProcessTransport returns an in-process MCP transport to this server
// (for mcp-go's client.NewClient) that reports protocol error codes.
func (s *Server) InProcessTransport() transport.Interface {
	return s.ledger.InProcess(s.mcp)
}

// ServeStdio serves MCP over in and out (newline-delimited JSON-RPC) until
// in ends or ctx is cancelled. Logs never go to out.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	std := server.NewStdioServer(s.mcp)
	std.SetErrorLogger(log.New(&slogWriter{log: s.log}, "", 0))
	err := std.Listen(ctx, in, s.ledger.StdioWriter(out))
	if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, io.EOF)) {
		return nil
	}
	return err
}

// slogWriter adapts mcp-go's *log.Logger output to slog.
type slogWriter struct{ log *slog.Logger }

func (w *slogWriter) Write(p []byte) (int, error) {
	w.log.Warn("mcp transport", "msg", string(trimNewline(p)))
	return len(p), nil
}

func trimNewline(p []byte) []byte {
	for len(p) > 0 && (p[len(p)-1] == '\n' || p[len(p)-1] == '\r') {
		p = p[:len(p)-1]
	}
	return p
}

// Close stops the watcher and releases the root.
func (s *Server) Close() error {
	s.watchMu.Lock()
	if s.closed {
		s.watchMu.Unlock()
		return nil
	}
	s.closed = true
	w := s.watch
	s.watch = nil
	s.watchMu.Unlock()
	s.baseCancel()
	s.attachedPDFs.reclaim() // idle PDFs give their engine back now, busy ones when their read ends
	var errs []error
	if w != nil {
		errs = append(errs, w.close())
	}
	errs = append(errs, s.text.close(), s.disk.close(), s.root.Close())
	return errors.Join(errs...)
}

// newMCPServer builds the mcp-go server: capabilities, templates, hooks,
// completion and tools.
func (s *Server) newMCPServer() *server.MCPServer {
	hooks := &server.Hooks{}
	hooks.AddOnError(s.ledger.Hook)
	hooks.AddAfterListResources(s.afterListResources)
	s.subs.Install(hooks)

	m := server.NewMCPServer("smcp-browse-docs", s.opts.Version,
		server.WithResourceCapabilities(true, true),
		server.WithToolCapabilities(false),
		server.WithCompletions(),
		server.WithResourceCompletionProvider(&completer{s: s}),
		server.WithHooks(hooks),
		server.WithRecovery(),
		server.WithResourceRecovery(),
		server.WithInstructions("Documents of the folder "+filepath.Base(s.rootDir)+
			" as dpe:// resources: list them, read dpe://"+s.host+"/{doc_ref} with ?depth=pages for the page index, "+
			"then pages/{N} and elements/{ID}. The fs_tree, fs_find and fs_grep tools explore the folder itself."),
	)
	for _, t := range s.templates() {
		m.AddResourceTemplate(t, s.readResource)
	}
	s.addTools(m)
	s.addSearchTool(m)
	return m
}

// templates are the resource templates the server declares. The two of
// the specification (pages/{page_index}, elements/{element_id}) and the
// document template come first; the last, dpe://{host}{+path}, matches any
// URI of this host, including the catalog and URIs with query parameters,
// which mcp-go's template matching would otherwise not route here.
func (s *Server) templates() []mcp.ResourceTemplate {
	base := "dpe://" + s.host
	return []mcp.ResourceTemplate{
		mcp.NewResourceTemplate(base+"/{doc_ref}/pages/{page_index}", "Document page",
			mcp.WithTemplateDescription("Level 2: the elements of one page. Query: format=json|markdown|text, categories=table,text,..."),
			mcp.WithTemplateMIMEType("application/json")),
		mcp.NewResourceTemplate(base+"/{doc_ref}/elements/{element_id}", "Document element",
			mcp.WithTemplateDescription("Level 3: one element in full (whole table slice with total_rows/total_columns and metadata). Query: format"),
			mcp.WithTemplateMIMEType("application/json")),
		mcp.NewResourceTemplate(base+"/{doc_ref}", "Document",
			mcp.WithTemplateDescription("Level 1: document metadata; ?depth=pages&offset=0&limit=20 adds the page index"),
			mcp.WithTemplateMIMEType("application/json")),
		mcp.NewResourceTemplate(base+"{+path}", "Any dpe:// URI of this server",
			mcp.WithTemplateDescription("Level 0 (dpe://"+s.host+", the catalog, with offset/limit) and every level with query parameters"),
			mcp.WithTemplateMIMEType("application/json")),
	}
}
