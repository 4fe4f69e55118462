// Package common is what the browser's App, screens and components share:
// the backend and options, theme and keys, request numbering, the screen
// contract and its navigation messages, text formatting, sanitizing, error
// sentences and the clipboard (soft-serve's ui/common).
package common

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/internal/opt"
	"github.com/smcp-browse/smcp-browse/tui/keymap"
	"github.com/smcp-browse/smcp-browse/tui/styles"
)

// Common is what every screen and component shares (soft-serve calls it
// Common): the backend, options, theme, keys, the
// request counter and the status line. It is owned by the App and touched only
// from Update, so it needs no locking.
type Common struct {
	Backend Backend
	Opts    Options
	Styles  styles.Styles
	Keys    keymap.KeyMap
	Office  string

	// Tick schedules a timer message (tea.Tick; tests replace it to fire
	// debounce timers by hand).
	Tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
	// PreviewDelay is how long the catalog cursor must rest before the
	// preview is fetched.
	PreviewDelay time.Duration

	// Sys reaches the machine: environment, programs (clipboard tools, a
	// browser); tests replace it.
	Sys System

	nextReq uint64 // the last request number handed out
	Notice  string // transient status-bar notice
	// Refreshed is when the last successful read finished.
	Refreshed time.Time
}

// New returns the state shared by the App, its screens and components, with
// the options' defaults filled in.
func New(b Backend, o Options) *Common {
	if o.Now == nil {
		o.Now = time.Now
	}
	opt.Default(&o.Timeout, defaultTimeout)
	opt.Default(&o.Debounce, defaultDebounce)
	opt.Default(&o.DesktopSize, defaultDesktopSize)
	opt.Default(&o.Pager, "less")
	opt.Default(&o.Editor, "vi")
	keys := keymap.DefaultKeyMap()
	if o.KeyMap != nil {
		keys = *o.KeyMap
	}
	office := o.Office
	if office == "" && b != nil {
		office = b.Office()
	}
	return &Common{
		Backend: b,
		Opts:    o,
		Styles:  styles.New(!o.Light, o.NoColor),
		Keys:    keys,
		Office:  office,

		Tick:         tea.Tick,
		PreviewDelay: previewDelay,
		Sys:          realSystem(),
	}
}

// Req hands out the next request number; a response whose number is not the
// one a screen waits for is stale and dropped.
func (c *Common) Req() uint64 {
	c.nextReq++
	return c.nextReq
}

// Call runs fn with the configured timeout in a command and wraps whatever it
// returns (including a panic in the backend, turned into an error) with wrap.
func Call[T any](c *Common, fn func(ctx context.Context, b Backend) (T, error), wrap func(T, error) tea.Msg) tea.Cmd {
	return CallWithin(c, c.Opts.Timeout, fn, wrap)
}

// CallWithin is Call with its own timeout (a tool call waits for the
// tool's bound plus the Server's grace).
func CallWithin[T any](c *Common, timeout time.Duration, fn func(ctx context.Context, b Backend) (T, error), wrap func(T, error) tea.Msg) tea.Cmd {
	b := c.Backend
	return func() (msg tea.Msg) {
		var zero T
		defer func() {
			if r := recover(); r != nil {
				msg = wrap(zero, fmt.Errorf("backend panic: %v", r))
			}
		}()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		v, err := fn(ctx, b)
		return wrap(v, err)
	}
}

// Now returns the configured clock's time.
func (c *Common) Now() time.Time { return c.Opts.Now() }

// SaveDir returns the directory `s` writes into: Options.SaveDir, else
// the user's Downloads folder (see defaultSaveDir).
func (c *Common) SaveDir() string {
	if c.Opts.SaveDir != "" {
		return c.Opts.SaveDir
	}
	return defaultSaveDir(c.Sys.Getenv)
}
