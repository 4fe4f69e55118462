// Package mcpfacade offers an office's Finder to any MCP host: an MCP
// server whose tools and resources are answered, through an SMCP Agent
// joined to the office, by the office's computers.
//
// Tools list the computers, list and filter a catalog, read a document's
// page index, a page or an element, and search every computer's text
// (client:search_finder); each is bounded and says when it cut something
// and how to see the rest. Every document the office lists is a resource
// with its dpe:// URI unchanged, pages and elements are resource templates,
// and notify:update_finder becomes notifications/resources/list_changed
// and notifications/resources/updated for the documents that changed.
package mcpfacade

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/agent/finderclient"
	"github.com/smcp-browse/smcp-browse/internal/debounce"
	"github.com/smcp-browse/smcp-browse/internal/mcpsubs"
	"github.com/smcp-browse/smcp-browse/internal/opt"
	"github.com/smcp-browse/smcp-browse/internal/rpcerr"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Office is what the façade asks of the agent joined to the office;
// *agent.Client has it.
type Office interface {
	finderclient.Finder
	ListRoom(ctx context.Context) ([]protocol.SessionInfo, error)
	ReadResource(ctx context.Context, computer, uri string) (*protocol.ReadResourceRet, error)
}

// Defaults of Options.
const (
	DefaultTimeout      = 30 * time.Second
	DefaultListPageSize = 100
	DefaultDebounce     = 250 * time.Millisecond
	// DefaultWatchLimit bounds the documents of one computer the façade
	// keeps a stamp of to tell which changed.
	DefaultWatchLimit = 20000
)

// Options configure a Façade.
type Options struct {
	// Timeout bounds each call to the office (default DefaultTimeout).
	Timeout time.Duration
	// ListPageSize is the number of resources of one resources/list page.
	ListPageSize int
	// Debounce gathers the change notifications of a burst of edits.
	Debounce time.Duration
	// WatchLimit bounds the catalog entries remembered per computer.
	WatchLimit int
	// Version is this program's version, given to MCP clients.
	Version string
	Logger  *slog.Logger
}

// Facade is the MCP server. Create it with New, pass Handlers to the
// agent as it connects, then Attach the agent.
type Facade struct {
	opts Options
	log  *slog.Logger
	mcp  *server.MCPServer
	subs *mcpsubs.Set
	errs *rpcerr.Ledger

	// changed gathers the computers whose catalogs changed until the
	// debounce fires.
	changed *debounce.Set[string]

	mu        sync.Mutex
	office    Office
	only      string        // the one computer offered, or "": every computer
	joinErr   error         // why the office could not be joined yet (see Unjoined)
	first     chan struct{} // closed by the first Attach or Unjoined
	state     agent.State
	computers []string          // cached, sorted; nil: ask the office
	hosts     map[string]string // dpe host → computer that answered for it
	stamps    map[string]map[string]stamp
}

// New returns a Façade not attached to an office yet: its calls answer
// that the office is not reachable until Attach.
func New(opts Options) *Facade {
	opt.Default(&opts.Timeout, DefaultTimeout)
	opt.Default(&opts.ListPageSize, DefaultListPageSize)
	opt.Default(&opts.Debounce, DefaultDebounce)
	opt.Default(&opts.WatchLimit, DefaultWatchLimit)
	opt.Default(&opts.Version, "dev")
	f := &Facade{
		opts:   opts,
		log:    opt.Logger(opts.Logger),
		subs:   mcpsubs.New(),
		errs:   rpcerr.NewLedger(),
		hosts:  map[string]string{},
		stamps: map[string]map[string]stamp{},
		state:  agent.StateConnecting,
		first:  make(chan struct{}),
	}
	f.changed = debounce.NewSet(opts.Debounce, f.refresh)
	f.mcp = f.newMCPServer()
	return f
}

// Handlers are the agent's notification callbacks the façade needs.
func (f *Facade) Handlers() agent.Handlers {
	return agent.Handlers{
		EnterOffice:  func(protocol.EnterOfficeNotification) { f.roomChanged() },
		LeaveOffice:  func(protocol.LeaveOfficeNotification) { f.roomChanged() },
		UpdateFinder: func(r protocol.UpdateComputerConfigReq) { f.changed.Add(r.Computer) },
		State:        f.setState,
	}
}

// Attach makes office answer the façade's calls, about computer alone
// when it is not "" (else about every computer of the office), and takes
// the first stamp of every computer's catalog (in the background), from
// which changes are told.
func (f *Facade) Attach(office Office, computer string) {
	f.mu.Lock()
	f.office, f.only = office, computer
	if f.state == agent.StateConnecting {
		f.state = agent.StateConnected
	}
	f.firstLocked()
	f.mu.Unlock()
	go f.stampAll()
}

// Unjoined records why the office could not be joined (yet): until
// Attach, every call answers with err, explained, so that a host learns
// why rather than seeing its server exit.
func (f *Facade) Unjoined(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.joinErr = err
	f.firstLocked()
}

// firstLocked closes first, once (f.mu held).
func (f *Facade) firstLocked() {
	select {
	case <-f.first:
	default:
		close(f.first)
	}
}

// Close stops the pending change notifications.
func (f *Facade) Close() { f.changed.Stop() }

// MCPServer is the mcp-go server, for tests and in-process clients.
func (f *Facade) MCPServer() *server.MCPServer { return f.mcp }

// ServeStdio serves MCP over in and out (newline-delimited JSON-RPC)
// until in ends or ctx is done. Resource read errors keep their codes
// (4201–4204, 404 ...) in the answers.
func (f *Facade) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	err := server.NewStdioServer(f.mcp).Listen(ctx, in, f.errs.StdioWriter(out))
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// HTTPHandler serves MCP's Streamable HTTP transport at path; errors keep
// their codes as over stdio.
func (f *Facade) HTTPHandler(path string) http.Handler {
	return f.errs.HTTP(server.NewStreamableHTTPServer(f.mcp, server.WithEndpointPath(path)))
}

// setState records the agent's connection state. When the connection
// comes back, the computers and catalogs may have changed while it was
// away: they are asked again and the hosts told.
func (f *Facade) setState(s agent.State) {
	f.mu.Lock()
	back := s == agent.StateConnected && f.state == agent.StateReconnecting
	f.state = s
	f.mu.Unlock()
	if back {
		f.roomChanged()
		go f.stampAll()
	}
}

// roomChanged forgets the computers; the hosts hear that the list of
// resources changed.
func (f *Facade) roomChanged() {
	f.mu.Lock()
	f.computers = nil
	f.mu.Unlock()
	f.mcp.SendNotificationToAllClients(mcp.MethodNotificationResourcesListChanged, nil)
}

// attached returns the office, or an error that says why there is none.
// A call that comes while the façade makes its first try to join (a host
// starts it and asks at once) waits for that try, within the call's
// timeout, rather than being told to come back.
func (f *Facade) attached(ctx context.Context) (Office, error) {
	wait := time.NewTimer(f.opts.Timeout)
	select {
	case <-f.first:
	case <-ctx.Done():
	case <-wait.C:
	}
	wait.Stop()
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.office == nil && f.joinErr != nil:
		return nil, f.joinErr
	case f.office == nil:
		return nil, errOfficeNotReady
	case f.state == agent.StateReconnecting:
		return nil, errOfficeAway
	case f.state == agent.StateClosed:
		return nil, errOfficeClosed
	}
	return f.office, nil
}

// call bounds one call to the office by the façade's timeout.
func (f *Facade) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, f.opts.Timeout)
}

// listComputers returns the computers offered, sorted by name.
func (f *Facade) listComputers(ctx context.Context) ([]string, error) {
	f.mu.Lock()
	only, cached := f.only, f.computers
	f.mu.Unlock()
	if only != "" {
		return []string{only}, nil
	}
	if cached != nil {
		return cached, nil
	}
	office, err := f.attached(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := f.call(ctx)
	defer cancel()
	sessions, err := office.ListRoom(ctx)
	if err != nil {
		return nil, err
	}
	names := []string{}
	for _, s := range sessions {
		if s.Role == protocol.RoleComputer && !slices.Contains(names, s.Name) {
			names = append(names, s.Name)
		}
	}
	slices.SortFunc(names, cmp.Compare)
	f.mu.Lock()
	f.computers = names
	f.mu.Unlock()
	return names, nil
}

// InProcessTransport is a client transport to the façade in this process
// (tests, benchmarks), its errors keeping their codes as over stdio.
func (f *Facade) InProcessTransport() transport.Interface { return f.errs.InProcess(f.mcp) }
