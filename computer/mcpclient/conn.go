package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/internal/ratelog"
	"github.com/smcp-browse/smcp-browse/internal/rpcerr"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// ErrDown reports a request to a server whose connection is gone.
var ErrDown = errors.New("mcp server is down")

// subscribeConcurrency bounds parallel resources/subscribe calls.
const subscribeConcurrency = 8

// Conn is one live, initialized session with an MCP server. It is safe
// for concurrent use.
type Conn struct {
	cfg     config.Server
	log     *slog.Logger
	c       *client.Client
	tr      Transport
	timeout time.Duration
	caps    mcp.ServerCapabilities
	info    mcp.Implementation
	version string
	modern  bool
	dead    chan struct{}
	cancel  context.CancelFunc // ends what the connection started

	mu         sync.Mutex
	subscribed map[string]bool // legacy: URIs subscribed with resources/subscribe
	listenStop func()          // modern: the current subscriptions/listen stream
	watch      []string        // URIs of the current subscription
	granted    *mcp.SubscriptionFilter
	ackWait    chan struct{} // closed by the next subscriptions/acknowledged
	listenGen  uint64        // identifies the current listen stream
	closeOnce  sync.Once
	deadOnce   sync.Once
	flood      floodMeter
}

// Name returns the server's bundle_id, its identity in the Computer.
func (c *Conn) Name() string { return c.cfg.BundleID }

// Config returns the server's configuration entry.
func (c *Conn) Config() config.Server { return c.cfg }

// Capabilities returns what the server declared at initialization.
func (c *Conn) Capabilities() mcp.ServerCapabilities { return c.caps }

// ServerInfo returns the server's name and version.
func (c *Conn) ServerInfo() mcp.Implementation { return c.info }

// ProtocolVersion returns the MCP revision in effect on the connection.
func (c *Conn) ProtocolVersion() string { return c.version }

// Modern reports whether the connection speaks MCP 2026-07-28 or later,
// where notifications are opted in to through subscriptions/listen.
func (c *Conn) Modern() bool { return c.modern }

// FinderCapable reports whether the server takes part in Finder and
// Desktop: it declared resources.subscribe (on modern connections that is
// also what lets subscriptions/listen grant resource updates).
func (c *Conn) FinderCapable() bool {
	return c.caps.Resources != nil && c.caps.Resources.Subscribe
}

// Granted returns the notification types the server acknowledged on the
// current subscriptions/listen stream (modern connections), or nil.
func (c *Conn) Granted() *mcp.SubscriptionFilter {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.granted == nil {
		return nil
	}
	g := *c.granted
	return &g
}

// Done is closed when the connection is gone.
func (c *Conn) Done() <-chan struct{} { return c.dead }

func (c *Conn) markDead() { c.deadOnce.Do(func() { close(c.dead) }) }

// Close ends the session and stops what was started for it.
func (c *Conn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.mu.Lock()
		stop := c.listenStop
		c.listenStop = nil
		c.mu.Unlock()
		c.cancel()
		if stop != nil {
			go stop() // returns once the stream's request is gone
		}
		err = c.c.Close()
		if c.tr.Close != nil {
			if e := c.tr.Close(); e != nil && err == nil {
				err = e
			}
		}
		c.markDead()
	})
	return err
}

// call runs one request with the connection's timeout and turns its
// failure into a wrapped *rpcerr.Error (the server answered an error, with
// its code and data), ErrDown or a wrapped transport error.
func (c *Conn) call(ctx context.Context, method string, fn func(context.Context) error) error {
	select {
	case <-c.dead:
		return fmt.Errorf("%s %s: %w", c.Name(), method, ErrDown)
	default:
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	ctx, answered := rpcerr.Capture(ctx)
	err := fn(ctx)
	if err == nil {
		return nil
	}
	if e := answered(); e != nil {
		if r := refused(e.Code, e.Data); r != nil {
			return fmt.Errorf("%s %s: %w", c.Name(), method, r)
		}
		return fmt.Errorf("%s %s: %w", c.Name(), method, e)
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s %s: %w", c.Name(), method, err)
	}
	select {
	case <-c.dead:
		return fmt.Errorf("%s %s: %w (%v)", c.Name(), method, ErrDown, err)
	default:
	}
	if errTransportClosed(err) {
		c.markDead()
		return fmt.Errorf("%s %s: %w (%v)", c.Name(), method, ErrDown, err)
	}
	return fmt.Errorf("%s %s: %w", c.Name(), method, err)
}

// ListResources returns one page of resources/list, the resources as the
// server sent them, and the cursor of the next page ("" after the last).
func (c *Conn) ListResources(ctx context.Context, cursor string) ([]mcp.Resource, string, error) {
	var res *mcp.ListResourcesResult
	err := c.call(ctx, "resources/list", func(ctx context.Context) error {
		req := mcp.ListResourcesRequest{}
		req.Params.Cursor = mcp.Cursor(cursor)
		var err error
		res, err = c.c.ListResourcesByPage(ctx, req)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return res.Resources, string(res.NextCursor), nil
}

// Read performs resources/read and returns the server's result.
func (c *Conn) Read(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	var res *mcp.ReadResourceResult
	err := c.call(ctx, "resources/read", func(ctx context.Context) error {
		req := mcp.ReadResourceRequest{}
		req.Params.URI = uri
		var err error
		res, err = c.c.ReadResource(ctx, req)
		return err
	})
	return res, err
}

// ReadResource performs resources/read and returns the contents.
func (c *Conn) ReadResource(ctx context.Context, uri string) ([]protocol.ResourceContents, error) {
	res, err := c.Read(ctx, uri)
	if err != nil {
		return nil, err
	}
	return Contents(res), nil
}

// Contents converts the contents of an MCP read result.
func Contents(res *mcp.ReadResourceResult) []protocol.ResourceContents {
	out := make([]protocol.ResourceContents, 0, len(res.Contents))
	for _, rc := range res.Contents {
		switch v := rc.(type) {
		case mcp.TextResourceContents:
			out = append(out, protocol.ResourceContents{URI: v.URI, MIMEType: v.MIMEType, Text: v.Text})
		case *mcp.TextResourceContents:
			out = append(out, protocol.ResourceContents{URI: v.URI, MIMEType: v.MIMEType, Text: v.Text})
		case mcp.BlobResourceContents:
			out = append(out, protocol.ResourceContents{URI: v.URI, MIMEType: v.MIMEType, Blob: v.Blob})
		case *mcp.BlobResourceContents:
			out = append(out, protocol.ResourceContents{URI: v.URI, MIMEType: v.MIMEType, Blob: v.Blob})
		}
	}
	return out
}

// ListTools returns every tool, following cursors.
func (c *Conn) ListTools(ctx context.Context) ([]mcp.Tool, error) {
	var res *mcp.ListToolsResult
	err := c.call(ctx, "tools/list", func(ctx context.Context) error {
		var err error
		res, err = c.c.ListTools(ctx, mcp.ListToolsRequest{})
		return err
	})
	if err != nil {
		return nil, err
	}
	return res.Tools, nil
}

// CallTool calls a tool. ctx carries the caller's deadline and
// cancellation (which mcp-go forwards to the server as
// notifications/cancelled on stdio); the connection's own timeout does not
// apply, the caller chooses it.
func (c *Conn) CallTool(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
	select {
	case <-c.dead:
		return nil, fmt.Errorf("%s tools/call: %w", c.Name(), ErrDown)
	default:
	}
	ctx, answered := rpcerr.Capture(ctx)
	ctx, authStatus := captureAuth(ctx)
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.c.CallTool(ctx, req)
	if err != nil {
		if ae := authFailure(c.Name(), err, authStatus()); ae != nil {
			return nil, fmt.Errorf("%s tools/call %s: %w (%v)", c.Name(), name, ae, err)
		}
		if e := answered(); e != nil {
			if r := refused(e.Code, e.Data); r != nil {
				return nil, fmt.Errorf("%s tools/call %s: %w", c.Name(), name, r)
			}
			return nil, fmt.Errorf("%s tools/call %s: %w", c.Name(), name, e)
		}
		if errTransportClosed(err) {
			c.markDead()
			return nil, fmt.Errorf("%s tools/call: %w (%v)", c.Name(), ErrDown, err)
		}
		return nil, fmt.Errorf("%s tools/call %s: %w", c.Name(), name, err)
	}
	return res, nil
}

// Subscribe makes uris the set of resources whose
// notifications/resources/updated the Computer receives.
// Legacy connections subscribe and unsubscribe the difference with
// resources/subscribe; modern ones reopen the subscriptions/listen stream
// with the new set.
func (c *Conn) Subscribe(ctx context.Context, uris []string) error {
	if !c.FinderCapable() {
		return nil
	}
	uris = slices.Clone(uris)
	slices.Sort(uris)
	if c.modern {
		c.mu.Lock()
		same := slices.Equal(c.watch, uris)
		c.mu.Unlock()
		if same {
			return nil
		}
		return c.listen(uris)
	}
	c.mu.Lock()
	var add, drop []string
	want := make(map[string]bool, len(uris))
	for _, u := range uris {
		want[u] = true
		if !c.subscribed[u] {
			add = append(add, u)
		}
	}
	for u := range c.subscribed {
		if !want[u] {
			drop = append(drop, u)
		}
	}
	c.mu.Unlock()
	errs := c.forEach(ctx, add, "resources/subscribe", func(ctx context.Context, u string) error {
		req := mcp.SubscribeRequest{}
		req.Params.URI = u
		//lint:ignore SA1019 connections before MCP 2026-07-28 have no subscriptions/listen
		return c.c.Subscribe(ctx, req)
	}, true)
	errs = append(errs, c.forEach(ctx, drop, "resources/unsubscribe", func(ctx context.Context, u string) error {
		req := mcp.UnsubscribeRequest{}
		req.Params.URI = u
		//lint:ignore SA1019 connections before MCP 2026-07-28 have no subscriptions/listen
		return c.c.Unsubscribe(ctx, req)
	}, false)...)
	if len(errs) > 0 {
		return fmt.Errorf("%d of %d subscription changes failed, first: %w", len(errs), len(add)+len(drop), errs[0])
	}
	return nil
}

// forEach runs fn for every URI on subscribeConcurrency workers (not a
// goroutine per URI: a listing may have tens of thousands), recording
// successes in c.subscribed (as subscribed when add, as gone otherwise).
func (c *Conn) forEach(ctx context.Context, uris []string, method string, fn func(context.Context, string) error, add bool) []error {
	var mu sync.Mutex
	var errs []error
	next := 0
	var wg sync.WaitGroup
	for range min(subscribeConcurrency, len(uris)) {
		wg.Go(func() {
			for {
				mu.Lock()
				if next >= len(uris) {
					mu.Unlock()
					return
				}
				u := uris[next]
				next++
				mu.Unlock()
				err := c.call(ctx, method, func(ctx context.Context) error { return fn(ctx, u) })
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					continue
				}
				c.mu.Lock()
				if add {
					c.subscribed[u] = true
				} else {
					delete(c.subscribed, u)
				}
				c.mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errs
}

// baseFilter is what the Computer always opts in to.
func baseFilter() mcp.SubscriptionFilter {
	return mcp.SubscriptionFilter{ResourcesListChanged: true, ToolsListChanged: true}
}

// listen (re)opens the subscriptions/listen stream with uris; the new
// stream supersedes the previous one.
func (c *Conn) listen(uris []string) error {
	filter := baseFilter()
	filter.ResourceSubscriptions = uris
	ack := make(chan struct{})
	c.mu.Lock()
	c.ackWait = ack
	c.listenGen++
	gen := c.listenGen
	c.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-c.dead:
			cancel()
		case <-ctx.Done():
		}
	}()
	stop, err := c.c.ListenAsync(ctx, filter, func(err error) {
		// A stream the server had acknowledged ended without us asking:
		// notifications would be lost, so the connection counts as gone
		// and the manager reconnects (and subscribes again).
		c.mu.Lock()
		current := c.listenGen == gen // not superseded by a newer stream
		granted := c.granted != nil
		c.mu.Unlock()
		if !current {
			return
		}
		c.log.Warn("mcp subscriptions/listen stream ended", "server", c.Name(), "err", err)
		if granted {
			c.markDead()
		}
	})
	if err != nil {
		cancel()
		return fmt.Errorf("%s subscriptions/listen: %w", c.Name(), err)
	}
	c.mu.Lock()
	old := c.listenStop
	c.listenStop = func() { cancel(); stop() }
	c.watch = uris
	c.mu.Unlock()
	if old != nil {
		go old()
	}
	// mcp-go ends the previous stream when it opens this one; wait until
	// the server acknowledges the new one so that, once this returns,
	// notifications flow again.
	select {
	case <-ack:
	case <-c.dead:
		return fmt.Errorf("%s subscriptions/listen: %w", c.Name(), ErrDown)
	case <-time.After(min(c.timeout, listenAckTimeout)):
		c.log.Warn("mcp subscriptions/listen not acknowledged in time", "server", c.Name())
	}
	return nil
}

// listenAckTimeout bounds the wait for subscriptions/acknowledged.
const listenAckTimeout = 5 * time.Second

// onNotification meters the server's notifications and records what a
// subscriptions/listen stream granted.
func (c *Conn) onNotification(n mcp.JSONRPCNotification) {
	c.flood.note(c, time.Now())
	if n.Method != mcp.MethodNotificationSubscriptionsAcknowledged {
		return
	}
	raw, err := json.Marshal(n.Params.AdditionalFields["notifications"])
	if err != nil {
		return
	}
	var f mcp.SubscriptionFilter
	if json.Unmarshal(raw, &f) != nil {
		return
	}
	c.mu.Lock()
	c.granted = &f
	if c.ackWait != nil {
		close(c.ackWait)
		c.ackWait = nil
	}
	c.mu.Unlock()
	c.log.Debug("mcp subscriptions acknowledged", "server", c.Name(),
		"resources_list_changed", f.ResourcesListChanged, "tools_list_changed", f.ToolsListChanged,
		"resource_subscriptions", len(f.ResourceSubscriptions))
}

// FloodRate is the number of notifications a second over which a server
// is logged as flooding (they are coalesced anyway: re-listings are
// rate-capped and change events debounced).
const FloodRate = 200

// floodLogEvery spaces the warnings about one flooding server.
const floodLogEvery = 30 * time.Second

// floodMeter counts a server's notifications per second and warns, at
// most every floodLogEvery, while there are more than FloodRate.
type floodMeter struct {
	mu    sync.Mutex
	start time.Time
	n     int
	log   ratelog.Logger
}

func (m *floodMeter) note(c *Conn, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if now.Sub(m.start) < time.Second {
		m.n++
		return
	}
	if m.n > FloodRate {
		if m.log.Log == nil {
			m.log = ratelog.Logger{Log: c.log, Every: floodLogEvery}
		}
		m.log.Warn("mcp server floods notifications; re-listings and change events are coalesced",
			"server", c.Name(), "notifications_per_second", m.n*int(time.Second)/int(max(now.Sub(m.start), time.Second)))
	}
	m.start, m.n = now, 1
}
