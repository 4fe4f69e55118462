package common

import (
	"io"
	"time"

	"github.com/smcp-browse/smcp-browse/tui/keymap"
)

// Options configures the browser. The zero value works: it starts on the
// office's computers, with a dark palette, no mouse, saving into the
// Downloads folder and paging with less.
type Options struct {
	// Office names the office in the breadcrumbs; empty means Backend.Office().
	Office string
	// Computer opens the browser on this Computer's catalog; empty starts on
	// the office's computers.
	Computer string
	// KeyMap replaces DefaultKeyMap when set.
	KeyMap *keymap.KeyMap
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
	// SaveDir is where `s` writes Markdown files; empty means the user's
	// Downloads folder ($XDG_DOWNLOAD_DIR, the desktop's, else ~/Downloads).
	SaveDir string
	// Pager is the command `o` runs on a temporary Markdown file, split on
	// spaces (e.g. $PAGER); empty means "less".
	Pager string
	// Editor is the command `E` runs on a document's file (or a copy of its
	// Markdown when it is not a file on this machine), split on spaces
	// (e.g. $EDITOR); empty means "vi".
	Editor string
	// Browser opens external links (split on spaces, e.g. $BROWSER); empty
	// tries xdg-open, then open. When none works the link is copied.
	Browser string
	// Clipboard receives the OSC 52 sequence `y` emits when no clipboard
	// program is found; nil hands it to Bubble Tea's own clipboard support.
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
	previewDelay       = 120 * time.Millisecond // the catalog cursor's rest before its preview is read
)
