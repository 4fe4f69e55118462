package tui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
)

// common is what every screen and component shares (soft-serve calls it
// Common): the backend, options, theme, keys, the
// request counter and the status line. It is owned by the App and touched only
// from Update, so it needs no locking.
type common struct {
	backend Backend
	opts    Options
	styles  Styles
	keys    KeyMap
	office  string

	// tick schedules a timer message (tea.Tick; tests replace it to fire
	// debounce timers by hand).
	tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
	// previewDelay is how long the catalog cursor must rest before the
	// preview is fetched.
	previewDelay time.Duration

	// sys reaches the machine: environment, programs (clipboard tools, a
	// browser); tests replace it.
	sys system

	nextReq uint64 // the last request number handed out
	notice  string // transient status-bar notice
	// refreshed is when the last successful read finished.
	refreshed time.Time
}

func newCommon(b Backend, o Options) *common {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Timeout <= 0 {
		o.Timeout = defaultTimeout
	}
	if o.Debounce <= 0 {
		o.Debounce = defaultDebounce
	}
	if o.DesktopSize <= 0 {
		o.DesktopSize = defaultDesktopSize
	}
	if o.SaveDir == "" {
		o.SaveDir = "."
	}
	if o.Pager == "" {
		o.Pager = "less"
	}
	if o.Editor == "" {
		o.Editor = "vi"
	}
	keys := DefaultKeyMap()
	if o.KeyMap != nil {
		keys = *o.KeyMap
	}
	office := o.Office
	if office == "" && b != nil {
		office = b.Office()
	}
	return &common{
		backend: b,
		opts:    o,
		styles:  NewStyles(!o.Light, o.NoColor),
		keys:    keys,
		office:  office,

		tick:         tea.Tick,
		previewDelay: previewDelay,
		sys:          realSystem(),
	}
}

// req hands out the next request number; a response whose number is not the
// one a screen waits for is stale and dropped.
func (c *common) req() uint64 {
	c.nextReq++
	return c.nextReq
}

// call runs fn with the configured timeout in a command and wraps whatever it
// returns (including a panic in the backend, turned into an error) with wrap.
func call[T any](c *common, fn func(ctx context.Context, b Backend) (T, error), wrap func(T, error) tea.Msg) tea.Cmd {
	b, timeout := c.backend, c.opts.Timeout
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

// now returns the configured clock's time.
func (c *common) now() time.Time { return c.opts.Now() }

// saveDir returns the directory `s` writes into.
func (c *common) saveDir() string { return c.opts.SaveDir }
