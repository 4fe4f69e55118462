// Package agent is the Agent-side SMCP client: it connects to a Server,
// joins an office, lists its members, queries Computers (Finder catalog,
// resources, desktop, tools, config, tool calls) and reports the office's
// notifications through typed callbacks. It reconnects by itself and
// re-joins its office afterwards.
package agent

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/opt"
	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// DefaultName is the agent name used when Options.Name is empty.
const DefaultName = "smcp-browse"

// DefaultTimeout bounds a request when Options.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// toolCallSlack is added to a tool call's own timeout for the local wait:
// the Server waits the timeout plus its grace first and answers 408 itself.
const toolCallSlack = 10 * time.Second

// rejoinPatience bounds how long a re-join after a reconnect keeps retrying
// while the Server still holds the previous session's seat.
const rejoinPatience = 90 * time.Second

// ErrNotConnected is returned while the connection is down (the client is
// reconnecting); protocol.CodeOf gives 0 for it.
var ErrNotConnected = sio.ErrNotConnected

// ErrClosed is returned after Close.
var ErrClosed = sio.ErrClosed

// ErrNotRouted is wrapped by the error of a request the Server answered
// with an empty acknowledgement instead of the Computer's answer. A Server
// without a handler for the event does that (python-socketio acks an
// unknown event at once with nothing): the official a2c-smcp SDK's Server
// has no Finder events, so it answers client:get_finder and
// client:read_resource this way. (A Computer that acks with nothing is
// reported by this project's Server as a 404 instead.)
var ErrNotRouted = errors.New("the server does not route this request to computers")

// notRoutedError is the error for an empty answer to event; it matches
// ErrNotRouted.
type notRoutedError struct{ event string }

func notRouted(event string) error { return &notRoutedError{event} }

func (e *notRoutedError) Error() string {
	what := e.event
	if what == protocol.EventGetFinder || what == protocol.EventListFinder || what == protocol.EventReadResource {
		what = "Finder requests (" + what + ")"
	}
	return "this server does not route " + what + ": it answered with an empty acknowledgement instead of asking the computer " +
		"(a Server built on the official a2c-smcp SDK has no Finder events; smcp-browse server routes them)"
}

func (e *notRoutedError) Is(target error) bool { return target == ErrNotRouted }

// ErrNoOffice is returned by office-scoped calls before JoinOffice.
var ErrNoOffice = errors.New("not in an office: call JoinOffice first")

// State is the connection state of a Client (the same type as the
// connection's own, sio.State).
type State = sio.State

// The states a Client goes through.
const (
	StateConnecting   = sio.StateConnecting
	StateConnected    = sio.StateConnected
	StateReconnecting = sio.StateReconnecting
	StateClosed       = sio.StateClosed
)

// Handlers are the notification callbacks. Each is optional. They are
// called from the client's goroutines, never while it holds a lock, one at
// a time and in arrival order for each event type.
type Handlers struct {
	EnterOffice    func(protocol.EnterOfficeNotification)
	LeaveOffice    func(protocol.LeaveOfficeNotification)
	UpdateConfig   func(protocol.UpdateComputerConfigReq)
	UpdateToolList func(protocol.UpdateComputerConfigReq)
	UpdateDesktop  func(protocol.UpdateComputerConfigReq)
	UpdateFinder   func(protocol.UpdateComputerConfigReq)
	// UpdateSkills hears notify:update_skills: the computer's SKILLs (or
	// a SKILL's files) changed; call GetSkills again.
	UpdateSkills   func(protocol.UpdateComputerConfigReq)
	ToolCallCancel func(protocol.AgentCallData)
	State          func(State)
}

// Options configure Connect.
type Options struct {
	// Name is the agent's name in its office (default "smcp-browse").
	Name string
	// Token is the Server's shared token, if it has one.
	Token string
	// Timeout bounds each request whose context has no earlier deadline
	// (default 30 s).
	Timeout time.Duration
	// Logger receives the client's logs (default: discard).
	Logger *slog.Logger
	// Handlers receive the office's notifications.
	Handlers Handlers
	// Path is the engine.io HTTP path (default "/socket.io/").
	Path string
	// Version is the a2c_version to speak (default protocol.Version); a
	// Server that speaks another refuses with 4008 and Connect fails.
	Version string
	// ReconnectMin and ReconnectMax bound the reconnect backoff.
	ReconnectMin, ReconnectMax time.Duration
}

// FinderQuery filters, sorts and pages a Finder catalog (one shape for
// every caller: protocol.FinderQuery).
type FinderQuery = protocol.FinderQuery

// Client is a connected Agent. It is safe for concurrent use.
type Client struct {
	conn    *sio.Conn
	name    string
	timeout time.Duration
	log     *slog.Logger
	h       Handlers

	mu     sync.Mutex
	office string
	state  State
	// endRejoin ends the re-join under way (rejoin), if any.
	endRejoin context.CancelFunc
}

// Connect connects to the Server at serverURL (e.g. http://127.0.0.1:9000).
// A refused handshake is a *protocol.Error (400, 4008 with the versions,
// 401 for a wrong token).
func Connect(ctx context.Context, serverURL string, opts Options) (*Client, error) {
	opt.Default(&opts.Name, DefaultName)
	opt.Default(&opts.Timeout, DefaultTimeout)
	opts.Logger = opt.Logger(opts.Logger)
	c := &Client{
		name:    opts.Name,
		timeout: opts.Timeout,
		log:     opts.Logger.With("agent", opts.Name),
		h:       opts.Handlers,
		state:   StateConnecting,
	}
	c.notifyState(StateConnecting)
	conn, err := sio.Dial(ctx, sio.Options{
		URL:          serverURL,
		Token:        opts.Token,
		Logger:       opts.Logger,
		Path:         opts.Path,
		Version:      opts.Version,
		ReconnectMin: opts.ReconnectMin,
		ReconnectMax: opts.ReconnectMax,
		CallTimeout:  opts.Timeout,
	})
	if err != nil {
		c.notifyState(StateClosed)
		return nil, err
	}
	c.conn = conn
	c.listen()
	conn.OnState(c.setState)
	conn.OnReconnect(c.rejoin)
	c.setState(StateConnected)
	return c, nil
}

// setState records s and reports it when it changed. A connection that
// is not up any more ends the re-join under way: the next reconnect starts
// another.
func (c *Client) setState(s State) {
	c.mu.Lock()
	changed := c.state != s
	c.state = s
	end := c.endRejoin
	if s != StateConnected {
		c.endRejoin = nil
	}
	c.mu.Unlock()
	if s != StateConnected && end != nil {
		end()
	}
	if changed {
		c.notifyState(s)
	}
}

func (c *Client) notifyState(s State) {
	if c.h.State != nil {
		c.h.State(s)
	}
}

// listen wires the notify:* events to the typed callbacks.
func (c *Client) listen() {
	on := func(event string, fn func(json.RawMessage) error) {
		c.conn.Listen(event, func(raw json.RawMessage) {
			if err := fn(raw); err != nil {
				c.log.Warn("bad notification payload", "event", event, "err", err)
			}
		})
	}
	h := c.h
	if h.EnterOffice != nil {
		on(protocol.NotifyEnterOffice, decodeTo(h.EnterOffice))
	}
	if h.LeaveOffice != nil {
		on(protocol.NotifyLeaveOffice, decodeTo(h.LeaveOffice))
	}
	if h.UpdateConfig != nil {
		on(protocol.NotifyUpdateConfig, decodeTo(h.UpdateConfig))
	}
	if h.UpdateToolList != nil {
		on(protocol.NotifyUpdateToolList, decodeTo(h.UpdateToolList))
	}
	if h.UpdateDesktop != nil {
		on(protocol.NotifyUpdateDesktop, decodeTo(h.UpdateDesktop))
	}
	if h.UpdateFinder != nil {
		on(protocol.NotifyUpdateFinder, decodeTo(h.UpdateFinder))
	}
	if h.UpdateSkills != nil {
		on(protocol.NotifyUpdateSkills, decodeTo(h.UpdateSkills))
	}
	if h.ToolCallCancel != nil {
		on(protocol.NotifyToolCallCancel, decodeTo(h.ToolCallCancel))
	}
}

func decodeTo[T any](fn func(T)) func(json.RawMessage) error {
	return func(raw json.RawMessage) error {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		fn(v)
		return nil
	}
}

// rejoin re-joins the office after a reconnect. The Server may still hold
// the previous session's seat until it notices the drop, so a refusal for
// that reason (4101 / 4105) is retried for a while.
//
// The connection calls rejoin on the goroutine that also reports its state
// changes, one after the other, so the retries run on a goroutine of their
// own: run in place, a re-join retried for long held back the report of
// the next drop, and State said Connected while the client was
// reconnecting (TestRejoinDoesNotHoldBackState). The re-join ends when the
// connection drops again (setState) or the next reconnect starts another.
func (c *Client) rejoin(ctx context.Context) {
	office := c.Office()
	if office == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, rejoinPatience)
	c.mu.Lock()
	prev := c.endRejoin
	c.endRejoin = cancel
	c.mu.Unlock()
	if prev != nil {
		prev()
	}
	go func() {
		defer cancel()
		err := c.joinRetrying(ctx, office, func(err error) bool {
			code := protocol.CodeOf(err)
			return code == protocol.CodeRoomFull || code == protocol.CodeNameTaken || errors.Is(err, ErrNotConnected)
		})
		switch {
		case err == nil:
			c.log.Info("re-joined office after reconnect", "office", office)
		case errors.Is(ctx.Err(), context.Canceled):
			c.log.Debug("re-join abandoned: the connection dropped again or closed", "office", office, "err", err)
		default:
			c.log.Error("re-join after reconnect failed", "office", office, "err", err)
		}
	}()
}

// joinRetrying joins office, trying again with backoff while the error is
// one retry accepts and ctx lasts; it returns the last error.
func (c *Client) joinRetrying(ctx context.Context, office string, retry func(error) bool) error {
	for delay := 50 * time.Millisecond; ; delay = min(delay*2, time.Second) {
		err := c.join(ctx, office)
		if err == nil || !retry(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
	}
}

// Close disconnects from the Server.
func (c *Client) Close() error { return c.conn.Close() }

// Name returns the agent's name.
func (c *Client) Name() string { return c.name }

// State returns the connection state.
func (c *Client) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// Office returns the office joined, or "".
func (c *Client) Office() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.office
}

// newReqID returns a fresh request id.
func newReqID() string { return rand.Text() }

// withTimeout bounds ctx by d unless it already ends sooner.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= d {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// call sends a request and decodes its answer into out (when out is not
// nil).
func (c *Client) call(ctx context.Context, event string, payload, out any) error {
	ctx, cancel := withTimeout(ctx, c.timeout)
	defer cancel()
	raw, err := c.conn.Call(ctx, event, payload)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if string(raw) == "null" {
		return notRouted(event)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: unexpected answer: %w", event, err)
	}
	return nil
}

// JoinOffice joins officeID as this agent. A connection that drops on
// the way is waited for (within ctx and the client's Timeout) and the join
// made again; after any later reconnect the client re-joins by itself.
func (c *Client) JoinOffice(ctx context.Context, officeID string) error {
	ctx, cancel := withTimeout(ctx, c.timeout)
	defer cancel()
	if err := c.joinRetrying(ctx, officeID, func(err error) bool { return errors.Is(err, ErrNotConnected) }); err != nil {
		return err
	}
	c.mu.Lock()
	c.office = officeID
	c.mu.Unlock()
	return nil
}

func (c *Client) join(ctx context.Context, officeID string) error {
	return c.call(ctx, protocol.EventJoinOffice, protocol.EnterOfficeReq{
		Role: protocol.RoleAgent, Name: c.name, OfficeID: officeID,
	}, nil)
}

// LeaveOffice leaves the current office.
func (c *Client) LeaveOffice(ctx context.Context) error {
	office := c.Office()
	if office == "" {
		return ErrNoOffice
	}
	if err := c.call(ctx, protocol.EventLeaveOffice, protocol.LeaveOfficeReq{OfficeID: office}, nil); err != nil {
		return err
	}
	c.mu.Lock()
	if c.office == office {
		c.office = ""
	}
	c.mu.Unlock()
	return nil
}

// ListRoom lists the members of the current office.
func (c *Client) ListRoom(ctx context.Context) ([]protocol.SessionInfo, error) {
	office := c.Office()
	if office == "" {
		return nil, ErrNoOffice
	}
	var ret protocol.ListRoomRet
	err := c.call(ctx, protocol.EventListRoom, protocol.ListRoomReq{
		Agent: c.name, ReqID: newReqID(), OfficeID: office,
	}, &ret)
	if err != nil {
		return nil, err
	}
	return ret.Sessions, nil
}

// header returns the request header for computer.
func (c *Client) header(computer string) protocol.ComputerCall {
	return protocol.ComputerCall{Agent: c.name, ReqID: newReqID(), Computer: computer}
}

// GetFinder returns a page of computer's Finder catalog.
func (c *Client) GetFinder(ctx context.Context, computer string, q FinderQuery) (*protocol.GetFinderRet, error) {
	var ret protocol.GetFinderRet
	if err := c.getFinder(ctx, computer, q, &ret); err != nil {
		return nil, err
	}
	return &ret, nil
}

// GetFinderJSON is GetFinder returning the Computer's answer as received,
// fields this client does not model included.
func (c *Client) GetFinderJSON(ctx context.Context, computer string, q FinderQuery) (json.RawMessage, error) {
	var raw json.RawMessage
	if err := c.getFinder(ctx, computer, q, &raw); err != nil {
		return nil, err
	}
	return raw, nil
}

func (c *Client) getFinder(ctx context.Context, computer string, q FinderQuery, out any) error {
	if q.Offset < 0 || q.Limit < 0 {
		return protocol.Errorf(protocol.CodeBadRequest, "offset and limit must not be negative (got %d, %d)", q.Offset, q.Limit)
	}
	return c.call(ctx, protocol.EventGetFinder, protocol.NewGetFinderReq(c.header(computer), q), out)
}

// ReadResource reads uri through computer (the MCP ReadResourceResult).
func (c *Client) ReadResource(ctx context.Context, computer, uri string) (*protocol.ReadResourceRet, error) {
	var ret protocol.ReadResourceRet
	if err := c.readResource(ctx, computer, uri, &ret); err != nil {
		return nil, err
	}
	return &ret, nil
}

// ReadResourceJSON is ReadResource returning the ReadResourceResult as
// received, fields this client does not model (such as _meta) included.
func (c *Client) ReadResourceJSON(ctx context.Context, computer, uri string) (json.RawMessage, error) {
	var raw json.RawMessage
	if err := c.readResource(ctx, computer, uri, &raw); err != nil {
		return nil, err
	}
	return raw, nil
}

func (c *Client) readResource(ctx context.Context, computer, uri string, out any) error {
	h := c.header(computer)
	return c.call(ctx, protocol.EventReadResource, protocol.ReadResourceReq{
		Agent: h.Agent, ReqID: h.ReqID, Computer: computer, URI: uri,
	}, out)
}
