// Package tui is smcp-browse's terminal browser: Bubble Tea screens that
// drill a Finder from an office's computers to a Computer's catalog, a
// document, a rendered page and an element, plus the Computer's Desktop. It
// talks to the system only through Backend, so the same screens run against
// a live session or a fake.
package tui

import (
	"encoding/base64"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/smcp-browse/smcp-browse/internal/sio"
)

// screen is one page of the browser. Screens are pointers mutated by update;
// the App owns the stack and routes messages: keys and mouse to the top
// screen, everything else (responses, live events) to every screen, each of
// which ignores what it did not ask for.
type screen interface {
	// init starts the screen's first requests.
	init() tea.Cmd
	// update handles a message; it never blocks.
	update(msg tea.Msg) tea.Cmd
	// setSize gives the body's size.
	setSize(w, h int) tea.Cmd
	// view draws the body: at most h lines of at most w cells.
	view() string
	// crumb is the screen's part of the breadcrumbs.
	crumb() string
	// keys lists the bindings for the help views.
	keys() help.KeyMap
	// uri is what `y` copies; "" when there is nothing.
	uri() string
	// capturing reports that a text field or picker has the keyboard, so
	// global keys (q, ?, y ...) are typed into it instead.
	capturing() bool
	// status is the screen's part of the status bar (filters, position).
	status() string
	// computer is the Computer the screen shows ("" when none).
	computer() string
}

// exporter is a screen whose content `s` saves and `o` pages.
type exporter interface {
	// export returns a file name stem and the Markdown to write.
	export() (name, markdown string, ok bool)
}

// Navigation messages screens return to the App.
type (
	pushMsg struct{ s screen }
	popMsg  struct{}
)

func push(s screen) tea.Cmd { return func() tea.Msg { return pushMsg{s} } }

func pop() tea.Msg { return popMsg{} }

// themeMsg tells screens the palette changed, so cached renders are stale.
type themeMsg struct{}

// App is the browser's root model: the screen stack, breadcrumbs, help and
// status bar.
type App struct {
	e        *env
	stack    []screen
	w, h     int
	conn     sio.State
	showHelp bool
	help     help.Model
	mouse    bool

	// memo holds the last short-help and breadcrumb lines: they rarely
	// change between frames and are costly to lay out.
	memo map[string]string
}

// memoized returns fn's result, recomputed when key changes.
func (a *App) memoized(slot, key string, fn func() string) string {
	if a.memo == nil {
		a.memo = map[string]string{}
	}
	if a.memo[slot+"/key"] == key {
		return a.memo[slot]
	}
	v := fn()
	a.memo[slot+"/key"], a.memo[slot] = key, v
	return v
}

// New returns the browser as a tea.Model. It starts on opts.Computer's
// catalog, or on the office's computers when opts.Computer is empty.
func New(backend Backend, opts Options) tea.Model {
	e := newEnv(backend, opts)
	a := &App{e: e, conn: ConnConnected, help: help.New(), mouse: opts.Mouse}
	a.help.Styles = e.styles.Help
	a.stack = []screen{newComputersScreen(e)}
	if opts.Computer != "" {
		a.stack = append(a.stack, newCatalogScreen(e, opts.Computer))
	}
	return a
}

// Init starts every screen on the stack and asks the terminal for its
// background colour.
func (a *App) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	for _, s := range a.stack {
		cmds = append(cmds, s.init())
	}
	return tea.Batch(cmds...)
}

func (a *App) top() screen { return a.stack[len(a.stack)-1] }

// bodySize is the room between the breadcrumbs and the help and status lines.
func (a *App) bodySize() (int, int) { return a.w, max(a.h-3, 1) }

// Update routes msg; see screen.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.w, a.h = msg.Width, msg.Height
		a.help.SetWidth(a.w)
		return a, a.broadcastSize()
	case tea.BackgroundColorMsg:
		if a.e.styles.Dark != msg.IsDark() {
			a.e.styles = NewStyles(msg.IsDark(), a.e.opts.NoColor)
			a.help.Styles = a.e.styles.Help
			return a, a.broadcast(themeMsg{})
		}
		return a, nil
	case ConnStateMsg:
		was := a.conn
		a.conn = msg.State
		if msg.State == ConnConnected && was != ConnConnected {
			// Notifications may have been missed while away: refresh.
			a.e.notice = "reconnected"
			return a, a.broadcast(reconnectedMsg{})
		}
		return a, nil
	case pushMsg:
		a.showHelp = false
		a.stack = append(a.stack, msg.s)
		w, h := a.bodySize()
		return a, tea.Batch(msg.s.setSize(w, h), msg.s.init())
	case popMsg:
		if len(a.stack) > 1 {
			a.stack = a.stack[:len(a.stack)-1]
		}
		return a, nil
	case tea.KeyPressMsg:
		return a, a.key(msg)
	case tea.MouseMsg:
		if a.showHelp {
			return a, nil
		}
		return a, a.top().update(msg)
	case savedMsg:
		a.e.notice = msg.text()
		return a, nil
	case copiedMsg:
		a.e.notice = msg.text()
		return a, nil
	case noticeMsg:
		a.e.notice = string(msg)
		return a, nil
	case pagerReadyMsg:
		return a, a.runPager(msg)
	case pagerDoneMsg:
		return a, msg.cleanup()
	}
	return a, a.broadcast(msg)
}

func (a *App) key(msg tea.KeyPressMsg) tea.Cmd {
	k := a.e.keys
	if key.Matches(msg, k.ForceQuit) {
		return tea.Quit
	}
	if a.showHelp {
		a.showHelp = false
		return nil
	}
	top := a.top()
	if top.capturing() {
		return top.update(msg)
	}
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		a.showHelp = true
		return nil
	case key.Matches(msg, k.Copy):
		return a.copyURI()
	case key.Matches(msg, k.Save):
		return a.save()
	case key.Matches(msg, k.Pager):
		return a.openPager()
	case key.Matches(msg, k.Desktop):
		if _, ok := top.(*desktopScreen); ok {
			return nil
		}
		c := top.computer()
		if c == "" {
			a.e.notice = "choose a computer first"
			return nil
		}
		return push(newDesktopScreen(a.e, c))
	}
	a.e.notice = ""
	return top.update(msg)
}

func (a *App) broadcast(msg tea.Msg) tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(a.stack))
	for _, s := range a.stack {
		cmds = append(cmds, s.update(msg))
	}
	return tea.Batch(cmds...)
}

func (a *App) broadcastSize() tea.Cmd {
	w, h := a.bodySize()
	cmds := make([]tea.Cmd, 0, len(a.stack))
	for _, s := range a.stack {
		cmds = append(cmds, s.setSize(w, h))
	}
	return tea.Batch(cmds...)
}

// copyURI puts the current URI on the clipboard with OSC 52.
func (a *App) copyURI() tea.Cmd {
	u := a.top().uri()
	if u == "" {
		a.e.notice = "nothing to copy here"
		return nil
	}
	if w := a.e.opts.Clipboard; w != nil {
		seq := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(u)) + "\a"
		return func() tea.Msg {
			_, err := w.Write([]byte(seq))
			return copiedMsg{uri: u, err: err}
		}
	}
	a.e.notice = "copied " + u
	return tea.SetClipboard(u)
}

// View draws breadcrumbs, the top screen (or the full help), the short help
// and the status bar. No line is wider than the terminal.
func (a *App) View() tea.View {
	var v tea.View
	v.AltScreen = true
	if a.mouse {
		v.MouseMode = tea.MouseModeCellMotion
	}
	v.WindowTitle = a.windowTitle()
	if a.w <= 0 || a.h <= 0 {
		return v
	}
	_, bh := a.bodySize()
	var body string
	if a.showHelp {
		body = a.fullHelp()
	} else {
		body = a.top().view()
	}
	lines := make([]string, 0, a.h)
	lines = append(lines, a.header())
	lines = append(lines, padLines(strings.Split(body, "\n"), bh)...)
	short := a.top().keys().ShortHelp()
	var hk strings.Builder
	hk.WriteString(itoa(a.w))
	for _, b := range short {
		hk.WriteString("\x00" + b.Help().Key + "\x01" + b.Help().Desc)
	}
	lines = append(lines, a.memoized("help", hk.String()+fmt.Sprint(a.e.styles.Dark), func() string {
		return a.help.ShortHelpView(short)
	}))
	lines = append(lines, a.statusBar())
	for i, l := range lines {
		lines[i] = fit(l, a.w)
	}
	v.SetContent(strings.Join(lines[:min(len(lines), a.h)], "\n"))
	return v
}

// windowTitle is "smcp-browse — " and the plain breadcrumbs.
func (a *App) windowTitle() string {
	parts := make([]string, len(a.stack))
	for i, s := range a.stack {
		parts[i] = oneLine(s.crumb())
	}
	return "smcp-browse — " + strings.Join(parts, " › ")
}

func (a *App) fullHelp() string {
	groups := append(a.top().keys().FullHelp(), a.e.keys.globalKeys())
	return a.e.styles.Title.Render("Keys") + "\n\n" + a.help.FullHelpView(groups) +
		"\n\n" + a.e.styles.Muted.Render("press any key to close")
}

// crumbs joins the screens' crumbs, dropping the oldest ones when they do
// not fit in w cells.
func (a *App) crumbs(w int) string {
	st := a.e.styles
	parts := make([]string, len(a.stack))
	for i, s := range a.stack {
		parts[i] = ansi.Truncate(oneLine(s.crumb()), 32, "…")
	}
	sep := st.CrumbSep.Render(" › ")
	render := func(from int) string {
		out := make([]string, 0, len(parts)-from+1)
		if from > 0 {
			out = append(out, st.Crumb.Render("…"))
		}
		for i := from; i < len(parts); i++ {
			if i == len(parts)-1 {
				out = append(out, st.CrumbLast.Render(parts[i]))
			} else {
				out = append(out, st.Crumb.Render(parts[i]))
			}
		}
		return strings.Join(out, sep)
	}
	for from := 0; from < len(parts); from++ {
		if s := render(from); ansi.StringWidth(s) <= w {
			return s
		}
	}
	return render(len(parts) - 1)
}

func (a *App) header() string {
	var key strings.Builder
	key.WriteString(itoa(a.w) + fmt.Sprint(a.e.styles.Dark))
	for _, s := range a.stack {
		key.WriteString("\x00" + s.crumb())
	}
	return a.memoized("header", key.String(), func() string {
		st := a.e.styles
		left := st.Header.Render(" ") + a.crumbs(a.w-2)
		return left + st.Header.Render(strings.Repeat(" ", max(0, a.w-ansi.StringWidth(left))))
	})
}

func (a *App) statusBar() string {
	st := a.e.styles
	var conn string
	switch a.conn {
	case ConnConnected:
		conn = st.Connected.Render(" ● connected ")
	case ConnReconnecting, ConnConnecting:
		conn = st.Reconnect.Render(" ◌ " + a.conn.String() + "… ")
	default:
		conn = st.Closed.Render(" ✕ " + oneLine(a.conn.String()) + " ")
	}
	parts := []string{conn}
	if a.e.notice != "" {
		parts = append(parts, st.StatusNote.Render(" "+oneLine(a.e.notice)+" "))
	}
	if s := a.top().status(); s != "" {
		parts = append(parts, st.StatusInfo.Render(" "+s+" "))
	}
	if !a.e.refreshed.IsZero() {
		parts = append(parts, st.StatusInfo.Render(" refreshed "+a.e.refreshed.Format("15:04:05")+" "))
	}
	line := strings.Join(parts, st.StatusInfo.Render("│"))
	return line + st.Status.Render(strings.Repeat(" ", max(0, a.w-ansi.StringWidth(line))))
}

// reconnectedMsg asks every screen to re-read what it shows.
type reconnectedMsg struct{}
