// Package tui is smcp-browse's terminal browser: Bubble Tea screens that
// drill a Finder from an office's computers to a Computer's catalog, a
// document, a rendered page and an element, plus the Computer's Desktop. It
// talks to the system only through Backend, so the same screens run against
// a live session or a fake.
package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/smcp-browse/smcp-browse/agent"
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

// Navigation messages screens return to the App.
type (
	pushMsg struct{ s screen }
	popMsg  struct{}
)

// pushCmd opens s on top of the current screen.
func pushCmd(s screen) tea.Cmd { return func() tea.Msg { return pushMsg{s} } }

// popCmd goes back to the previous screen.
func popCmd() tea.Msg { return popMsg{} }

// themeMsg tells screens the palette changed, so cached renders are stale.
type themeMsg struct{}

// App is the browser's root model: the screen stack, breadcrumbs, help and
// status bar.
type App struct {
	c     *common
	stack []screen
	// linked marks the screens opened by following a link (their crumbs
	// say so); forward holds the screens left by going back, newest last,
	// for HistoryForward. A new screen opened otherwise clears it.
	linked   []bool
	forward  []historyEntry
	w, h     int
	conn     agent.State
	showHelp bool
	help     help.Model
	mouse    bool

	// picker and prompt are the overlays a screen opened: while one is
	// open it has the keyboard.
	picker *picker
	prompt *prompt

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
	c := newCommon(backend, opts)
	a := &App{c: c, conn: ConnConnected, help: help.New(), mouse: opts.Mouse}
	a.help.Styles = c.styles.Help
	a.stack, a.linked = []screen{newComputersScreen(c, opts.Computer == "")}, []bool{false}
	if opts.Computer != "" {
		a.stack, a.linked = append(a.stack, newCatalogScreen(c, opts.Computer)), append(a.linked, false)
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

// bodySize is the room between the breadcrumbs and the help and status
// lines (and the prompt's line when one is open).
func (a *App) bodySize() (int, int) {
	h := a.h - 3
	if a.prompt != nil {
		h--
	}
	return a.w, max(h, 1)
}

// Update routes msg; see screen.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.w, a.h = msg.Width, msg.Height
		a.help.SetWidth(a.w)
		a.sizeOverlays()
		return a, a.broadcastSize()
	case tea.BackgroundColorMsg:
		if a.c.styles.Dark != msg.IsDark() {
			a.c.styles = NewStyles(msg.IsDark(), a.c.opts.NoColor)
			a.help.Styles = a.c.styles.Help
			if a.prompt != nil {
				a.prompt.Update(themeMsg{})
			}
			return a, a.broadcast(themeMsg{})
		}
		return a, nil
	case openPickerMsg:
		a.showHelp = false
		a.picker = msg.p
		a.sizeOverlays()
		return a, nil
	case openPromptMsg:
		a.showHelp = false
		a.prompt = msg.p
		a.sizeOverlays()
		return a, tea.Batch(msg.p.Init(), a.broadcastSize())
	case ConnStateMsg:
		was := a.conn
		a.conn = msg.State
		if msg.State == ConnConnected && was != ConnConnected {
			// Notifications may have been missed while away: refresh.
			a.c.notice = "reconnected"
			return a, a.broadcast(reconnectedMsg{})
		}
		return a, nil
	case pushMsg:
		a.forward = nil
		return a, a.pushScreen(msg.s, false, true)
	case followedMsg:
		if msg.notice != "" {
			a.c.notice = msg.notice
		}
		if msg.s == nil {
			return a, nil
		}
		a.forward = nil
		return a, a.pushScreen(msg.s, true, true)
	case popMsg:
		return a, a.popScreen()
	case tea.KeyPressMsg:
		return a, a.key(msg)
	case tea.MouseMsg:
		switch {
		case a.showHelp || a.prompt != nil:
			return a, nil
		case a.picker != nil:
			a.picker.Update(msg)
			return a, nil
		}
		return a, a.top().update(msg)
	case copiedMsg:
		a.c.notice = msg.text
		if msg.terminal != "" {
			return a, tea.SetClipboard(msg.terminal)
		}
		return a, nil
	case noticeMsg:
		a.c.notice = string(msg)
		return a, nil
	case exportedMsg:
		return a, a.exported(msg)
	case execDoneMsg:
		return a, msg.cleanup()
	}
	return a, a.broadcast(msg)
}

func (a *App) key(msg tea.KeyPressMsg) tea.Cmd {
	k := a.c.keys
	if key.Matches(msg, k.Global.ForceQuit) {
		return tea.Quit
	}
	if a.showHelp {
		a.showHelp = false
		return nil
	}
	if a.picker != nil {
		cmd, closed := a.picker.Update(msg)
		if closed {
			a.picker = nil
		}
		return cmd
	}
	if a.prompt != nil {
		cmd, closed := a.prompt.Update(msg)
		if closed {
			a.prompt = nil
			cmd = tea.Batch(cmd, a.broadcastSize())
		}
		return cmd
	}
	top := a.top()
	if top.capturing() {
		return top.update(msg)
	}
	switch {
	case key.Matches(msg, k.Global.Quit):
		return tea.Quit
	case key.Matches(msg, k.Global.HistoryBack):
		return a.popScreen()
	case key.Matches(msg, k.Global.HistoryForward):
		if len(a.forward) == 0 {
			a.c.notice = "nothing to go forward to"
			return nil
		}
		e := a.forward[len(a.forward)-1]
		a.forward = a.forward[:len(a.forward)-1]
		return a.pushScreen(e.s, e.linked, false)
	case key.Matches(msg, k.Global.Help):
		a.showHelp = true
		return nil
	case key.Matches(msg, k.Global.Copy):
		u := top.uri()
		if u == "" {
			a.c.notice = "nothing to copy here"
			return nil
		}
		return a.c.copyCmd(u)
	case key.Matches(msg, k.Global.Save):
		return a.exportCmd(useSave)
	case key.Matches(msg, k.Global.Pager):
		return a.exportCmd(usePager)
	case key.Matches(msg, k.Global.Edit):
		return a.exportCmd(useEditor)
	case key.Matches(msg, k.Global.Desktop):
		if _, ok := top.(*desktopScreen); ok {
			return nil
		}
		c := top.computer()
		if c == "" {
			a.c.notice = "choose a computer first"
			return nil
		}
		return pushCmd(newDesktopScreen(a.c, c))
	}
	a.c.notice = ""
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
		if a.picker != nil {
			body = overlay(body, a.picker.View(), a.w, bh)
		}
	}
	lines := make([]string, 0, a.h)
	lines = append(lines, a.header())
	lines = append(lines, padLines(strings.Split(body, "\n"), bh)...)
	if a.prompt != nil {
		lines = append(lines, a.prompt.View())
	}
	short := a.shortHelp()
	var hk strings.Builder
	hk.WriteString(itoa(a.w))
	for _, b := range short {
		hk.WriteString("\x00" + b.Help().Key + "\x01" + b.Help().Desc)
	}
	lines = append(lines, a.memoized("help", hk.String()+fmt.Sprint(a.c.styles.Dark), func() string {
		return a.shortHelpView(short)
	}))
	lines = append(lines, a.statusBar())
	for i, l := range lines {
		lines[i] = fit(l, a.w)
	}
	v.SetContent(strings.Join(lines[:min(len(lines), a.h)], "\n"))
	return v
}

// shortHelpView draws the help line. When the bindings do not all fit,
// the last ones give way but "? help" stays, so the way to the full help
// is always on screen.
func (a *App) shortHelpView(short []key.Binding) string {
	h := a.help
	h.SetWidth(0)
	if v := h.ShortHelpView(short); lipgloss.Width(v) <= a.w {
		return v
	}
	helpKey := a.c.keys.Global.Help
	rest := make([]key.Binding, 0, len(short))
	for _, b := range short {
		if !slices.Equal(b.Keys(), helpKey.Keys()) {
			rest = append(rest, b)
		}
	}
	for n := len(rest); n > 0; n-- {
		if v := h.ShortHelpView(append(rest[:n:n], helpKey)); lipgloss.Width(v) <= a.w {
			return v
		}
	}
	return a.help.ShortHelpView(short)
}

// windowTitle is "smcp-browse — " and the plain breadcrumbs.
func (a *App) windowTitle() string {
	parts := make([]string, len(a.stack))
	for i := range a.stack {
		parts[i] = oneLine(a.crumbOf(i))
	}
	return "smcp-browse — " + strings.Join(parts, " › ")
}

func (a *App) fullHelp() string {
	groups := append(a.top().keys().FullHelp(), a.c.keys.globalHelp())
	return a.c.styles.Title.Render("Keys") + "\n\n" + helpColumns(a.help, groups, a.w) +
		"\n\n" + a.c.styles.Muted.Render("press any key to close")
}

// helpColumns lays the help groups out as columns, starting a new row of
// columns when the next one would not fit in w cells, so that nothing is
// dropped on a narrow terminal (help.Model cuts the columns that do not fit).
func helpColumns(h help.Model, groups [][]key.Binding, w int) string {
	h.SetWidth(0)
	const gap = "    "
	var rows, row []string
	rowW := 0
	for _, g := range groups {
		col := h.FullHelpView([][]key.Binding{g})
		if col == "" {
			continue
		}
		cw := lipgloss.Width(col)
		if len(row) > 0 && rowW+len(gap)+cw > w {
			rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
			row, rowW = nil, 0
		}
		if len(row) > 0 {
			row = append(row, gap)
			rowW += len(gap)
		}
		row = append(row, col)
		rowW += cw
	}
	if len(row) > 0 {
		rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
	}
	return strings.Join(rows, "\n\n")
}

// crumbs joins the screens' crumbs, dropping the oldest ones when they do
// not fit in w cells. A crumb is cut to crumbWidth cells unless every
// crumb fits whole.
func (a *App) crumbs(w int) string {
	st := a.c.styles
	parts := make([]string, len(a.stack))
	whole := 0
	for i := range a.stack {
		parts[i] = oneLine(a.crumbOf(i))
		whole += ansi.StringWidth(parts[i]) + 3
	}
	if whole > w {
		for i := range parts {
			parts[i] = ansi.Truncate(parts[i], crumbWidth, "…")
		}
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

// crumbWidth is the most a crumb takes when the whole path does not fit.
const crumbWidth = 32

func (a *App) header() string {
	var key strings.Builder
	key.WriteString(itoa(a.w) + fmt.Sprint(a.c.styles.Dark))
	for i := range a.stack {
		key.WriteString("\x00" + a.crumbOf(i))
	}
	fwd := ""
	if n := len(a.forward); n > 0 {
		e := a.forward[n-1]
		fwd = " ⟩ " + ansi.Truncate(oneLine(crumbFor(e.s, e.linked)), 24, "…") + " (" + a.c.keys.Global.HistoryForward.Help().Key + ") "
	}
	key.WriteString("\x01" + fwd)
	return a.memoized("header", key.String(), func() string {
		st := a.c.styles
		right := ""
		if fwd != "" && ansi.StringWidth(fwd)+24 < a.w {
			right = fwd
		}
		left := st.Header.Render(" ") + a.crumbs(a.w-2-ansi.StringWidth(right))
		pad := max(0, a.w-ansi.StringWidth(left)-ansi.StringWidth(right))
		return left + st.Header.Render(strings.Repeat(" ", pad)) + st.Crumb.Render(right)
	})
}

func (a *App) statusBar() string {
	st := a.c.styles
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
	if a.c.notice != "" {
		parts = append(parts, st.StatusNote.Render(" "+oneLine(a.c.notice)+" "))
	}
	if s := a.top().status(); s != "" {
		parts = append(parts, st.StatusInfo.Render(" "+s+" "))
	}
	if !a.c.refreshed.IsZero() {
		parts = append(parts, st.StatusInfo.Render(" refreshed "+a.c.refreshed.Format("15:04:05")+" "))
	}
	line := strings.Join(parts, st.StatusInfo.Render("│"))
	return line + st.Status.Render(strings.Repeat(" ", max(0, a.w-ansi.StringWidth(line))))
}

// reconnectedMsg asks every screen to re-read what it shows.
type reconnectedMsg struct{}
