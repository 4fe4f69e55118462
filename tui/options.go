package tui

import (
	"context"
	"fmt"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Options configures the browser. The zero value works: it starts on the
// office's computers, with a dark palette, no mouse, saving into the working
// directory and paging with less.
type Options struct {
	// Office names the office in the breadcrumbs; empty means Backend.Office().
	Office string
	// Computer opens the browser on this Computer's catalog; empty starts on
	// the office's computers.
	Computer string
	// KeyMap replaces DefaultKeyMap when set.
	KeyMap *KeyMap
	// Light starts with the light palette (the terminal's reported background
	// still wins when it answers).
	Light bool
	// NoColor draws without colours (set it when NO_COLOR is set).
	NoColor bool
	// Now returns the current time, for relative times; nil means time.Now.
	Now func() time.Time
	// Mouse captures the mouse (wheel scrolling). Off by default because
	// capture breaks the terminal's own text selection.
	Mouse bool
	// SaveDir is where `s` writes Markdown files; empty means ".".
	SaveDir string
	// Pager is the command `o` runs on a temporary Markdown file, split on
	// spaces (e.g. $PAGER); empty means "less".
	Pager string
	// Clipboard receives the OSC 52 sequence `y` emits; nil hands it to Bubble
	// Tea's own clipboard support.
	Clipboard io.Writer
	// Timeout bounds every call to the Backend; zero means 15 s.
	Timeout time.Duration
	// Debounce is the pause after the last keystroke of a filter before the
	// catalog is re-queried; zero means 250 ms.
	Debounce time.Duration
	// DesktopSize is the desktop_size sent with get_desktop; zero means 32.
	DesktopSize int
}

const (
	defaultTimeout     = 15 * time.Second
	defaultDebounce    = 250 * time.Millisecond
	defaultDesktopSize = 32
	catalogChunk       = 50 // documents per get_finder request
	pageChunk          = 50 // pages per depth=pages read
	previewPages       = 8  // page titles shown in the catalog's preview
	previewDelay       = 120 * time.Millisecond
	previewCacheSize   = 256
	widePreview        = 110                   // the catalog shows its preview pane from this width
	resizeSettle       = 80 * time.Millisecond // re-render after a resize pauses this long
)

// env is what every screen shares: the backend, options, theme, keys, the
// request counter and the status line. It is owned by the App and touched only
// from Update, so it needs no locking.
type env struct {
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

	nextReq uint64 // the last request number handed out
	notice  string // transient status-bar notice
	// refreshed is when the last successful read finished.
	refreshed time.Time
}

func newEnv(b Backend, o Options) *env {
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
	keys := DefaultKeyMap()
	if o.KeyMap != nil {
		keys = *o.KeyMap
	}
	office := o.Office
	if office == "" && b != nil {
		office = b.Office()
	}
	return &env{
		backend: b,
		opts:    o,
		styles:  NewStyles(!o.Light, o.NoColor),
		keys:    keys,
		office:  office,

		tick:         tea.Tick,
		previewDelay: previewDelay,
	}
}

// req hands out the next request number; a response whose number is not the
// one a screen waits for is stale and dropped.
func (e *env) req() uint64 {
	e.nextReq++
	return e.nextReq
}

// call runs fn with the configured timeout in a command and wraps whatever it
// returns (including a panic in the backend, turned into an error) with wrap.
func call[T any](e *env, fn func(ctx context.Context, b Backend) (T, error), wrap func(T, error) tea.Msg) tea.Cmd {
	b, timeout := e.backend, e.opts.Timeout
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
func (e *env) now() time.Time { return e.opts.Now() }

// saveDir returns the directory `s` writes into.
func (e *env) saveDir() string { return e.opts.SaveDir }
