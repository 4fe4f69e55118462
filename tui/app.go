// Package tui is smcp-browse's terminal browser: Bubble Tea screens that
// drill a Finder from an office's computers to a Computer's catalog, a
// document, a rendered page and an element, plus the Computer's Desktop. It
// talks to the system only through Backend, so the same screens run against
// a live session or a fake.
//
// The package itself is the App: the router that stacks screens, draws the
// breadcrumbs, help and status bar, hosts the overlays and runs exports.
// The rest is laid out as soft-serve's ui: common (shared state, the
// screen contract, formatting), keymap and styles (one each), live (the
// live-reload helper), components/* (pager, viewer, picker, prompt,
// overlay, list, render) and pages (the screens).
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

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/components/overlay"
	"github.com/smcp-browse/smcp-browse/tui/components/pager"
	"github.com/smcp-browse/smcp-browse/tui/components/picker"
	"github.com/smcp-browse/smcp-browse/tui/components/prompt"
	"github.com/smcp-browse/smcp-browse/tui/pages"
	"github.com/smcp-browse/smcp-browse/tui/styles"
)

// App is the browser's root model: the screen stack, breadcrumbs, help and
// status bar.
type App struct {
	c     *common.Common
	stack []common.Screen
	// linked marks the screens opened by following a link (their crumbs
	// say so); forward holds the screens left by going back, newest last,
	// for HistoryForward. A new screen opened otherwise clears it.
	linked   []bool
	forward  []historyEntry
	w, h     int
	conn     agent.State
	showHelp bool
	helpPg   pager.Model // the full help, scrolling where it does not fit
	help     help.Model
	mouse    bool

	// picker and prompt are the overlays a screen opened: while one is
	// open it has the keyboard.
	picker *picker.Model
	prompt *prompt.Model

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
func New(backend common.Backend, opts common.Options) tea.Model {
	c := common.New(backend, opts)
	a := &App{c: c, conn: ConnConnected, help: help.New(), mouse: opts.Mouse}
	a.help.Styles = c.Styles.Help
	a.stack, a.linked = []common.Screen{pages.NewComputers(c, opts.Computer == "")}, []bool{false}
	if opts.Computer != "" {
		a.stack, a.linked = append(a.stack, pages.NewCatalog(c, opts.Computer)), append(a.linked, false)
	}
	return a
}

// Init starts every screen on the stack and asks the terminal for its
// background colour.
func (a *App) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	for _, s := range a.stack {
		cmds = append(cmds, s.Init())
	}
	return tea.Batch(cmds...)
}

func (a *App) top() common.Screen { return a.stack[len(a.stack)-1] }

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
		return a, a.resize(msg)
	case tea.BackgroundColorMsg:
		return a, a.background(msg)
	case picker.OpenMsg:
		a.showHelp = false
		a.picker = msg.Picker
		a.sizeOverlays()
		return a, nil
	case prompt.OpenMsg:
		a.showHelp = false
		a.prompt = msg.Prompt
		a.sizeOverlays()
		return a, tea.Batch(msg.Prompt.Init(), a.broadcastSize())
	case ConnStateMsg:
		return a, a.connState(msg)
	case common.PushMsg:
		a.forward = nil
		return a, a.pushScreen(msg.Screen, false, true)
	case common.FollowedMsg:
		if msg.Notice != "" {
			a.c.Notice = msg.Notice
		}
		if msg.Screen == nil {
			return a, nil
		}
		a.forward = nil
		return a, a.pushScreen(msg.Screen, true, true)
	case common.PopMsg:
		return a, a.popScreen()
	case tea.KeyPressMsg:
		return a, a.key(msg)
	case tea.MouseMsg:
		return a, a.mouseEvent(msg)
	case common.CopiedMsg:
		a.c.Notice = msg.Text
		if msg.Terminal != "" {
			return a, tea.SetClipboard(msg.Terminal)
		}
		return a, nil
	case common.NoticeMsg:
		a.c.Notice = string(msg)
		return a, nil
	case exportedMsg:
		return a, a.exported(msg)
	case execDoneMsg:
		return a, msg.cleanup()
	}
	return a, a.broadcast(msg)
}

// resize lays the screens and overlays out for the new window size.
func (a *App) resize(msg tea.WindowSizeMsg) tea.Cmd {
	a.w, a.h = msg.Width, msg.Height
	a.help.SetWidth(a.w)
	a.sizeOverlays()
	if a.showHelp {
		a.layoutHelp()
	}
	return a.broadcastSize()
}

// background switches the styles to a dark or light terminal's, when
// the terminal's background says the other one.
func (a *App) background(msg tea.BackgroundColorMsg) tea.Cmd {
	if a.c.Styles.Dark == msg.IsDark() {
		return nil
	}
	a.c.Styles = styles.New(msg.IsDark(), a.c.Opts.NoColor)
	a.help.Styles = a.c.Styles.Help
	if a.prompt != nil {
		a.prompt.Update(common.ThemeMsg{})
	}
	if a.showHelp {
		a.layoutHelp()
	}
	return a.broadcast(common.ThemeMsg{})
}

// connState records the connection's state; back from away, every screen
// refreshes, since notifications may have been missed.
func (a *App) connState(msg ConnStateMsg) tea.Cmd {
	was := a.conn
	a.conn = msg.State
	if msg.State != ConnConnected || was == ConnConnected {
		return nil
	}
	a.c.Notice = "reconnected"
	return a.broadcast(common.ReconnectedMsg{})
}

// mouseEvent gives a mouse event to the open overlay, or else the top screen.
func (a *App) mouseEvent(msg tea.MouseMsg) tea.Cmd {
	switch {
	case a.showHelp:
		a.helpPg.Update(msg, a.c.Keys)
		return nil
	case a.prompt != nil:
		return nil
	case a.picker != nil:
		a.picker.Update(msg)
		return nil
	}
	return a.top().Update(msg)
}

func (a *App) key(msg tea.KeyPressMsg) tea.Cmd {
	k := a.c.Keys
	if key.Matches(msg, k.Global.ForceQuit) {
		return tea.Quit
	}
	if a.showHelp {
		// Where the help does not fit, the moving keys scroll it; any
		// other key closes it.
		if a.helpPg.MaxY() == 0 || !a.helpPg.Update(msg, k) {
			a.showHelp = false
		}
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
	if top.Capturing() {
		return top.Update(msg)
	}
	switch {
	case key.Matches(msg, k.Global.Quit):
		return tea.Quit
	case key.Matches(msg, k.Global.HistoryBack):
		return a.popScreen()
	case key.Matches(msg, k.Global.HistoryForward):
		return a.goForward()
	case key.Matches(msg, k.Global.Help):
		a.showHelp, a.helpPg = true, pager.New()
		a.layoutHelp()
		return nil
	case key.Matches(msg, k.Global.Copy):
		u := top.URI()
		if u == "" {
			a.c.Notice = "nothing to copy here"
			return nil
		}
		return a.c.CopyCmd(u)
	case key.Matches(msg, k.Global.Save):
		return a.exportCmd(useSave)
	case key.Matches(msg, k.Global.Pager):
		return a.exportCmd(usePager)
	case key.Matches(msg, k.Global.Edit):
		return a.exportCmd(useEditor)
	case key.Matches(msg, k.Global.Desktop):
		if _, ok := top.(*pages.Desktop); ok {
			return nil
		}
		return a.openForComputer(top, func(c string) common.Screen { return pages.NewDesktop(a.c, c) })
	case key.Matches(msg, k.Global.Skills):
		if _, ok := top.(*pages.Skills); ok {
			return nil
		}
		return a.openForComputer(top, func(c string) common.Screen { return pages.NewSkills(a.c, c) })
	case key.Matches(msg, k.Global.Tools):
		if _, ok := top.(*pages.Tools); ok {
			return nil
		}
		return a.openForComputer(top, func(c string) common.Screen { return pages.NewTools(a.c, c) })
	}
	a.c.Notice = ""
	return top.Update(msg)
}

// goForward reopens the screen the last HistoryBack left.
func (a *App) goForward() tea.Cmd {
	if len(a.forward) == 0 {
		a.c.Notice = "nothing to go forward to"
		return nil
	}
	e := a.forward[len(a.forward)-1]
	a.forward = a.forward[:len(a.forward)-1]
	return a.pushScreen(e.s, e.linked, false)
}

// openForComputer opens the screen open makes for the computer the top
// screen is on, or says to choose one first.
func (a *App) openForComputer(top common.Screen, open func(computer string) common.Screen) tea.Cmd {
	c := top.Computer()
	if c == "" {
		a.c.Notice = "choose a computer first"
		return nil
	}
	return common.PushCmd(open(c))
}

func (a *App) broadcast(msg tea.Msg) tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(a.stack))
	for _, s := range a.stack {
		cmds = append(cmds, s.Update(msg))
	}
	return tea.Batch(cmds...)
}

func (a *App) broadcastSize() tea.Cmd {
	w, h := a.bodySize()
	cmds := make([]tea.Cmd, 0, len(a.stack))
	for _, s := range a.stack {
		cmds = append(cmds, s.SetSize(w, h))
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
		body = a.helpPg.View(a.c.Styles)
	} else {
		body = a.top().View()
		if a.picker != nil {
			body = overlay.Place(body, a.picker.View(), a.w, bh)
		}
	}
	lines := make([]string, 0, a.h)
	lines = append(lines, a.header())
	lines = append(lines, common.PadLines(strings.Split(body, "\n"), bh)...)
	if a.prompt != nil {
		lines = append(lines, a.prompt.View())
	}
	short := a.shortHelp()
	var hk strings.Builder
	hk.WriteString(common.Itoa(a.w))
	for _, b := range short {
		hk.WriteString("\x00" + b.Help().Key + "\x01" + b.Help().Desc)
	}
	lines = append(lines, a.memoized("help", hk.String()+fmt.Sprint(a.c.Styles.Dark), func() string {
		return a.shortHelpView(short)
	}))
	lines = append(lines, a.statusBar())
	for i, l := range lines {
		lines[i] = common.Fit(l, a.w)
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
	helpKey := a.c.Keys.Global.Help
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

// windowTitle is "smcp-browse — " and the plain breadcrumbs, each cut to
// crumbWidth (a document may be named with 10 KB of text).
func (a *App) windowTitle() string {
	parts := make([]string, len(a.stack))
	for i := range a.stack {
		parts[i] = ansi.Truncate(common.OneLine(a.crumbOf(i)), crumbWidth, "…")
	}
	return "smcp-browse — " + strings.Join(parts, " › ")
}

// layoutHelp lays the full help out for the body's size in its pager,
// keeping the scroll offset: the top screen's keys, then the global ones,
// in columns that fit the width; what does not fit the height scrolls.
func (a *App) layoutHelp() {
	w, h := a.bodySize()
	groups := append(a.top().Keys().FullHelp(), a.c.Keys.GlobalHelp())
	keys := a.c.Styles.Title.Render("Keys") + "\n\n" + helpColumns(a.help, groups, w) + "\n\n"
	hint := "press any key to close"
	if strings.Count(keys, "\n")+1 > h {
		hint = "↑/↓ pgup/pgdn scroll · any other key closes"
	}
	y := a.helpPg.YOffset()
	a.helpPg.SetSize(w, h)
	a.helpPg.SetContent(keys + a.c.Styles.Muted.Render(hint))
	a.helpPg.SetY(y)
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
	st := a.c.Styles
	parts := make([]string, len(a.stack))
	whole := 0
	for i := range a.stack {
		parts[i] = common.OneLine(a.crumbOf(i))
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
	key.WriteString(common.Itoa(a.w) + fmt.Sprint(a.c.Styles.Dark))
	for i := range a.stack {
		key.WriteString("\x00" + a.crumbOf(i))
	}
	fwd := ""
	if n := len(a.forward); n > 0 {
		e := a.forward[n-1]
		fwd = " ⟩ " + ansi.Truncate(common.OneLine(crumbFor(e.s, e.linked)), 24, "…") + " (" + a.c.Keys.Global.HistoryForward.Help().Key + ") "
	}
	key.WriteString("\x01" + fwd)
	return a.memoized("header", key.String(), func() string {
		st := a.c.Styles
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
	st := a.c.Styles
	var conn string
	switch a.conn {
	case ConnConnected:
		conn = st.Connected.Render(" ● connected ")
	case ConnReconnecting, ConnConnecting:
		conn = st.Reconnect.Render(" ◌ " + a.conn.String() + "… ")
	default:
		conn = st.Closed.Render(" ✕ " + common.OneLine(a.conn.String()) + " ")
	}
	parts := []string{conn}
	if a.c.Notice != "" {
		parts = append(parts, st.StatusNote.Render(" "+common.OneLine(a.c.Notice)+" "))
	}
	if s := a.top().Status(); s != "" {
		parts = append(parts, st.StatusInfo.Render(" "+s+" "))
	}
	if !a.c.Refreshed.IsZero() {
		parts = append(parts, st.StatusInfo.Render(" refreshed "+a.c.Refreshed.Format("15:04:05")+" "))
	}
	line := strings.Join(parts, st.StatusInfo.Render("│"))
	return line + st.Status.Render(strings.Repeat(" ", max(0, a.w-ansi.StringWidth(line))))
}
