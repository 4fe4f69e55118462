package computer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/computer/mcpclient"
	"github.com/smcp-browse/smcp-browse/computer/resindex"
	"github.com/smcp-browse/smcp-browse/internal/debounce"
	"github.com/smcp-browse/smcp-browse/internal/opt"
	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Defaults of Options.
const (
	DefaultRequestTimeout = 30 * time.Second
	DefaultHandlerTimeout = 25 * time.Second
	DefaultToolTimeout    = 60 * time.Second
	MaxToolTimeout        = time.Hour
	DefaultHistorySize    = 100
	// DefaultMaxAnswerBytes bounds one answer: a Server's message limit
	// (protocol.MaxPayloadBytes) less room for the packet around it.
	DefaultMaxAnswerBytes = protocol.MaxPayloadBytes - 1<<10
)

// Options configure a Computer. Name, Office and ServerURL are required
// for Run.
type Options struct {
	Name      string // the computer's name in its office
	Office    string // office to join
	ServerURL string // SMCP Server base URL, e.g. http://127.0.0.1:9000
	Token     string // the Server's shared token, if any
	Logger    *slog.Logger
	// Servers are MCP servers started beside the configuration's (e.g. the
	// demo's own serve-docs children); their bundle IDs must not clash.
	Servers []config.Server
	// Dial opens MCP transports; nil uses stdio/sse/streamable.
	Dial mcpclient.DialFunc
	// RequestTimeout bounds every MCP request (default 30 s).
	RequestTimeout time.Duration
	// HandlerTimeout bounds the work of one client:* request other than
	// tool calls (default 25 s, under an agent's usual 30 s).
	HandlerTimeout time.Duration
	// HistorySize bounds the tool-call history (default 100).
	HistorySize int
	// MaxAnswerBytes bounds one answer (default DefaultMaxAnswerBytes);
	// a bigger one is refused with 413. Lower it for a Server whose
	// message limit is lower than the protocol's default.
	MaxAnswerBytes int
	// Debounce is the change-notification window (default 75 ms).
	Debounce time.Duration
	// MinBackoff and MaxBackoff bound MCP server restarts (1 s, 30 s).
	MinBackoff, MaxBackoff time.Duration
	// SocketPath is the engine.io HTTP path (default "/socket.io/").
	SocketPath string
	// A2CVersion is the protocol version to speak (default
	// protocol.Version); a Server speaking another refuses with 4008.
	A2CVersion string
	// Version is the Computer's version, sent to MCP servers.
	Version string
	// Blobs bound the binary tool-result items sent by handle (blobs.go);
	// zero fields take the Default* values.
	Blobs BlobOptions
	// Uploads configure client:put_blob (uploads.go); without a
	// LandingRoot every upload is refused with 4019 forbidden.
	Uploads UploadOptions
	// SkillDirs are folders of SKILLs (<dir>/<name>/SKILL.md) offered on
	// the SKILL channel beside the MCP servers' skill:// ones; they are
	// watched, and a change is announced with server:update_skills.
	SkillDirs []string
	// SkillInlineBudget bounds a text resource sent inline by
	// client:get_skill (default DefaultSkillInlineBudget).
	SkillInlineBudget int
}

// BlobOptions bound the blobs of tool results kept by handle.
type BlobOptions struct {
	InlineBudget int           // larger items go by handle (DefaultBlobInlineBudget)
	MaxItemBytes int           // larger items stay inline (DefaultBlobMaxItemBytes)
	ChunkBytes   int           // the largest get_blob chunk (DefaultBlobChunkBytes)
	MaxBytes     int64         // total bytes kept (DefaultBlobMaxBytes)
	MaxCount     int           // blobs kept (DefaultBlobMaxCount)
	Idle         time.Duration // a blob unread this long is forgotten (DefaultBlobIdle)
}

// Computer is one Computer: its MCP servers, resource index and SMCP
// connection.
type Computer struct {
	opts    Options
	cfg     config.Config
	servers []config.Server
	log     *slog.Logger
	mgr     *mcpclient.Manager
	index   *resindex.Index
	hist    *history
	tools   *toolTable
	blobs   *blobStore
	uploads *uploadStore
	skills  *skillSet
	// toolsChanged debounces notify:update_tool_list after servers' tools
	// list_changed notifications.
	toolsChanged *debounce.Bits[uint8]

	mu    sync.Mutex
	conn  *sio.Conn
	calls map[string]context.CancelCauseFunc // in-flight tool calls by req_id
	// notFinder holds the servers seen up without resources.subscribe:
	// they serve no documents, so their absence leaves the catalog whole.
	notFinder map[string]bool
}

// New checks the options and configuration and returns a Computer ready
// to Run.
func New(cfg config.Config, opts Options) (*Computer, error) {
	opts.Logger = opt.Logger(opts.Logger)
	opt.Default(&opts.RequestTimeout, DefaultRequestTimeout)
	opt.Default(&opts.HandlerTimeout, DefaultHandlerTimeout)
	opt.Default(&opts.HistorySize, DefaultHistorySize)
	opt.Default(&opts.MaxAnswerBytes, DefaultMaxAnswerBytes)
	opt.Default(&opts.Debounce, resindex.DefaultDebounce)
	opt.Default(&opts.Version, "dev")
	opt.Default(&opts.Blobs.InlineBudget, DefaultBlobInlineBudget)
	opt.Default(&opts.Blobs.MaxItemBytes, DefaultBlobMaxItemBytes)
	opt.Default(&opts.Blobs.ChunkBytes, DefaultBlobChunkBytes)
	// A chunk's base64 and the answer around it fit in one answer.
	opts.Blobs.ChunkBytes = max(1, min(opts.Blobs.ChunkBytes, (opts.MaxAnswerBytes-4<<10)/4*3))
	opt.Default(&opts.SkillInlineBudget, DefaultSkillInlineBudget)
	servers := slices.Clone(cfg.Servers)
	seen := map[string]bool{}
	hosts := map[string]string{} // configured host -> bundle_id
	for _, s := range servers {
		seen[s.BundleID] = true
		for _, h := range s.Hosts {
			hosts[h] = s.BundleID
		}
	}
	for _, s := range opts.Servers {
		if err := config.ValidBundleID(s.BundleID); err != nil {
			return nil, fmt.Errorf("server %q: %w", s.Key, err)
		}
		if seen[s.BundleID] {
			return nil, fmt.Errorf("server %q: bundle_id %q is already configured", s.Key, s.BundleID)
		}
		for _, h := range s.Hosts {
			if err := config.ValidHost(h); err != nil {
				return nil, fmt.Errorf("server %q: %w", s.Key, err)
			}
			if prev, ok := hosts[h]; ok {
				return nil, fmt.Errorf("server %q: host %q is already owned by %q", s.Key, h, prev)
			}
			hosts[h] = s.BundleID
		}
		seen[s.BundleID] = true
		servers = append(servers, s)
	}
	c := &Computer{
		opts: opts, cfg: cfg, servers: servers, log: opts.Logger.With("computer", opts.Name),
		hist: newHistory(opts.HistorySize), calls: map[string]context.CancelCauseFunc{}, notFinder: map[string]bool{},
	}
	c.tools = newToolTable(c)
	c.blobs = newBlobStore(blobLimits{MaxBytes: opts.Blobs.MaxBytes, MaxCount: opts.Blobs.MaxCount,
		Idle: opts.Blobs.Idle, Chunk: opts.Blobs.ChunkBytes}, c.log)
	uploads, err := newUploadStore(opts.Uploads, c.log)
	if err != nil {
		return nil, err
	}
	c.uploads = uploads
	c.skills = newSkillSet()
	c.toolsChanged = debounce.New(opts.Debounce, func(uint8) { c.emit(protocol.EventUpdateToolList) })
	c.index = resindex.New(resindex.Options{
		Logger: c.log, Debounce: opts.Debounce, Timeout: opts.RequestTimeout, OnChange: c.onChange, Hosts: hosts,
		// A filtered get_finder answers well within the agent's timeout.
		FilterWait: min(resindex.DefaultFilterWait, opts.HandlerTimeout/2),
	})
	c.mgr = mcpclient.New(servers, mcpclient.Options{
		Logger: c.log, RequestTimeout: opts.RequestTimeout, Dial: opts.Dial,
		MinBackoff: opts.MinBackoff, MaxBackoff: opts.MaxBackoff,
		ClientName: "smcp-browse-computer", ClientVersion: opts.Version,
		Events: mcpclient.Events{Up: c.serverUp, Down: c.serverDown, Notification: c.notification},
	})
	return c, nil
}

// Run starts the MCP servers, connects to the SMCP Server, joins the
// office (again after every reconnect) and serves until ctx ends; then it
// disconnects and stops the MCP servers. It fails at once when the Server
// refuses the handshake or the join (a *protocol.Error).
func (c *Computer) Run(ctx context.Context) error {
	if c.opts.Name == "" || c.opts.Office == "" || c.opts.ServerURL == "" {
		return errors.New("computer: Name, Office and ServerURL are required")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer c.startSkills(ctx)()
	mgrDone := make(chan struct{})
	go func() {
		c.mgr.Run(ctx)
		close(mgrDone)
	}()
	defer func() {
		// The index first: its reads still under way end as closed, not
		// as failures of the MCP servers stopping under them.
		cancel()
		c.index.Close()
		<-mgrDone
		c.skills.wg.Wait()
		c.toolsChanged.Stop()
		c.blobs.close()
		c.uploads.close()
	}()

	conn, err := c.dial(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	<-ctx.Done()
	return nil
}

// dial connects and joins, retrying network failures with backoff.
func (c *Computer) dial(ctx context.Context) (*sio.Conn, error) {
	backoff := 200 * time.Millisecond
	for {
		conn, err := c.connectOnce(ctx)
		if err == nil {
			return conn, nil
		}
		var pe *protocol.Error
		if errors.As(err, &pe) || ctx.Err() != nil {
			return nil, err
		}
		c.log.Warn("cannot reach the SMCP server, retrying", "url", c.opts.ServerURL, "err", err, "retry_in", backoff)
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

func (c *Computer) connectOnce(ctx context.Context) (*sio.Conn, error) {
	dctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	conn, err := sio.Dial(dctx, sio.Options{
		URL: c.opts.ServerURL, Token: c.opts.Token, Logger: c.log, Path: c.opts.SocketPath, Version: c.opts.A2CVersion,
	})
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", c.opts.ServerURL, err)
	}
	c.register(conn)
	// Registered before the first join: a connection that drops and comes
	// back while that join is under way must still end up in the office.
	conn.OnReconnect(func(ctx context.Context) {
		for i := 0; ctx.Err() == nil; i++ {
			jctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := c.join(jctx, conn)
			cancel()
			if err == nil || errors.Is(err, sio.ErrClosed) {
				return
			}
			c.log.Warn("re-join after reconnect failed", "err", err)
			select {
			case <-time.After(min(time.Duration(i+1)*200*time.Millisecond, 5*time.Second)):
			case <-ctx.Done():
				return
			}
		}
	})
	if err := c.join(dctx, conn); err != nil {
		conn.Close()
		return nil, err
	}
	c.mu.Lock()
	c.conn = conn
	c.mu.Unlock()
	c.log.Info("joined office", "office", c.opts.Office, "server", c.opts.ServerURL)
	return conn, nil
}

func (c *Computer) join(ctx context.Context, conn *sio.Conn) error {
	_, err := conn.Call(ctx, protocol.EventJoinOffice, protocol.EnterOfficeReq{
		Role: protocol.RoleComputer, Name: c.opts.Name, OfficeID: c.opts.Office,
	})
	if err != nil {
		return fmt.Errorf("join office %s as %s: %w", c.opts.Office, c.opts.Name, err)
	}
	return nil
}

// emit sends a server:update_* event for this computer; while there is no
// connection the change is dropped (agents pull on (re)join anyway).
func (c *Computer) emit(event string) {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if conn == nil {
		return
	}
	if err := conn.Emit(event, protocol.UpdateComputerConfigReq{Computer: c.opts.Name}); err != nil {
		c.log.Debug("update not sent", "event", event, "err", err)
		return
	}
	c.log.Debug("update sent", "event", event)
}

// onChange turns index changes into update events.
func (c *Computer) onChange(ch resindex.Change) {
	if ch.Has(resindex.FinderChanged) {
		c.emit(protocol.EventUpdateFinder)
	}
	if ch.Has(resindex.DesktopChanged) {
		c.emit(protocol.EventUpdateDesktop)
	}
}

// serverUp adds a Finder-capable server to the resource index and announces
// the new tool list.
func (c *Computer) serverUp(conn *mcpclient.Conn) {
	c.tools.reset(conn.Name())
	c.mu.Lock()
	c.notFinder[conn.Name()] = !conn.FinderCapable()
	c.mu.Unlock()
	if conn.FinderCapable() {
		ctx, cancel := context.WithTimeout(context.Background(), 4*c.opts.RequestTimeout)
		c.index.AddSource(ctx, conn.Name(), conn)
		cancel()
	} else {
		c.log.Info("mcp server does not declare resources.subscribe; not part of Finder or Desktop", "server", conn.Name())
	}
	c.goStageSkills(conn)
	c.emit(protocol.EventUpdateToolList)
}

// serverDown takes a server's documents, windows and tools away.
func (c *Computer) serverDown(name string, err error) {
	c.tools.reset(name)
	c.index.RemoveSource(name)
	c.dropSkills(name)
	c.emit(protocol.EventUpdateToolList)
}

// notification routes an MCP notification; it must not block.
func (c *Computer) notification(name string, n mcp.JSONRPCNotification) {
	switch n.Method {
	case mcp.MethodNotificationResourcesListChanged:
		c.index.ResourceListChanged(name)
		c.skillsListChanged(name)
	case mcp.MethodNotificationResourceUpdated:
		uri, _ := n.Params.AdditionalFields["uri"].(string)
		c.index.ResourceUpdated(name, uri)
	case mcp.MethodNotificationSubscriptionsAcknowledged:
		// A new subscriptions/listen stream replaced the previous one;
		// a list change sent in between would be lost, so look again
		// (a change is signalled only if the set differs).
		c.index.ResourceListChanged(name)
	case mcp.MethodNotificationToolsListChanged:
		c.tools.changed(name)
		c.toolsChanged.Trigger(1)
	}
}

// register installs the client:* handlers on conn.
func (c *Computer) register(conn *sio.Conn) {
	limit := c.opts.MaxAnswerBytes
	handle(conn, protocol.EventGetFinder, limit, c.handleGetFinder)
	handle(conn, protocol.EventListFinder, limit, c.handleGetFinder)
	handle(conn, protocol.EventReadResource, limit, c.handleReadResource)
	handle(conn, protocol.EventGetDesktop, limit, c.handleGetDesktop)
	handle(conn, protocol.EventGetTools, limit, c.handleGetTools)
	handle(conn, protocol.EventToolCall, limit, c.handleToolCall)
	handle(conn, protocol.EventGetConfig, limit, c.handleGetConfig)
	handle(conn, protocol.EventGetResources, limit, c.handleGetResources)
	handle(conn, protocol.EventGetSkills, limit, c.handleGetSkills)
	handle(conn, protocol.EventGetSkill, limit, c.handleGetSkill)
	handle(conn, protocol.EventGetBlob, limit, c.handleGetBlob)
	handle(conn, protocol.EventPutBlob, limit, c.handlePutBlob)
	handle(conn, protocol.EventSearchFinder, limit, c.handleSearchFinder)
	conn.Listen(protocol.NotifyToolCallCancel, c.onToolCallCancel)
}

// handle registers h, a handler of event over its decoded request, on conn.
func handle[Req any](conn *sio.Conn, event string, limit int, h func(context.Context, Req) (any, error)) {
	conn.Handle(event, route(event, limit, h))
}

// route adapts h to the connection's raw payloads: one that does not
// decode as Req is a 400 naming event, and an answer bigger than limit
// (a Server closes a connection that sends more than it carries in one
// message, every request in flight with it) is a 413 instead.
func route[Req any](event string, limit int, h func(context.Context, Req) (any, error)) sio.Handler {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var req Req
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, protocol.Errorf(protocol.CodeBadRequest, "%s: malformed request: %v", event, err)
		}
		v, err := h(ctx, req)
		if err != nil || v == nil {
			return v, err
		}
		return encodeAnswer(event, limit, v)
	}
}

// encodeAnswer encodes v (unless it is already JSON) and refuses it with
// a 413 when it is bigger than limit.
func encodeAnswer(event string, limit int, v any) (json.RawMessage, error) {
	b, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if b, err = json.Marshal(v); err != nil {
			return nil, protocol.Errorf(protocol.CodeInternalError, "%s: answer is not JSON: %v", event, err)
		}
	}
	if len(b) > limit {
		return nil, tooLarge(event+": the answer", len(b), limit)
	}
	return b, nil
}

// tooLarge is the 413 for what of n bytes, over limit.
func tooLarge(what string, n, limit int) *protocol.Error {
	return protocol.Errorf(protocol.CodePayloadTooLarge, "%s is %d bytes, more than the %d a Server carries in one message", what, n, limit).
		WithDetails(map[string]any{"bytes": n, "limit": limit})
}

// Servers returns the state of every supervised MCP server by bundle_id.
func (c *Computer) Servers() map[string]mcpclient.State { return c.mgr.States() }

// History returns the tool-call history, oldest first.
func (c *Computer) History() []ToolCallRecord { return c.hist.records() }
