package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/tui"
)

// newBrowseCmd is the root command: the terminal browser.
func newBrowseCmd() *cobra.Command {
	var (
		cf      connFlags
		mouse   bool
		light   bool
		saveDir string
	)
	cmd := &cobra.Command{
		Use:   "smcp-browse (--demo [--docs DIR] | --server URL --office ID [--computer NAME])",
		Short: "A terminal browser for A2C-SMCP Finder documents",
		Long: `smcp-browse browses the documents of A2C-SMCP computers: an office's
computers, a computer's catalog, a document, a rendered page and an element.

  --demo            runs a Server, a Computer and the document server on this
                    machine, over --docs DIR or the built-in sample corpus
                    (extracted to a temporary folder removed on exit), and
                    opens the browser on the computer's catalog.
  --server URL      attaches to a remote Server's office (--office); without
                    --computer it opens on the office's computers, which
                    follow computers entering and leaving.

$SMCP_SERVER, $SMCP_OFFICE and $SMCP_TOKEN are the defaults of --server,
--office and --token. Logs never go to the screen: they are appended to
--log-file. Press ? in the browser for its keys, q to quit. s saves Markdown
into --save-dir, o pages it with $PAGER, E opens a document in $EDITOR, and
links to the web open with $BROWSER (else xdg-open). The mouse is not
captured unless --mouse (capture breaks the terminal's text selection).

ls and cat are the same views without the browser, for scripts.`,
		Example: `  smcp-browse --demo
  smcp-browse --demo --docs ~/Documents/reports
  SMCP_SERVER=http://10.0.0.5:9000 smcp-browse --office team --computer laptop
  smcp-browse ls --demo --type md
  smcp-browse cat --demo dpe://local.demo.docs/q3-report-4f2bf6/pages/1 --format markdown`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if err := cf.check(false); err != nil {
				return report(cmd, err, false)
			}
			return runBrowser(cmd, &cf, tui.Options{
				NoColor: os.Getenv("NO_COLOR") != "",
				Mouse:   mouse,
				Light:   light,
				Pager:   os.Getenv("PAGER"),
				Editor:  cmp.Or(os.Getenv("VISUAL"), os.Getenv("EDITOR")),
				Browser: os.Getenv("BROWSER"),
				SaveDir: saveDir,
				Timeout: cf.timeout,
			})
		},
	}
	cmd.SetFlagErrorFunc(flagError)
	cf.register(cmd.Flags())
	cmd.Flags().BoolVar(&mouse, "mouse", false, "capture the mouse for wheel scrolling (the terminal's own selection then needs shift)")
	cmd.Flags().BoolVar(&light, "light", false, "start with the light palette (when the terminal does not report its background)")
	cmd.Flags().StringVar(&saveDir, "save-dir", "", "folder where s saves documents, pages and elements as Markdown (default: your Downloads folder)")
	return cmd
}

// runBrowser opens the session, runs the browser on it until the user quits
// (or SIGINT/SIGTERM cancels the command's context) and stops the session
// on every way out, a panic included.
func runBrowser(cmd *cobra.Command, cf *connFlags, opts tui.Options) (err error) {
	ctx := cmd.Context()
	start := time.Now()
	fwd := &forwarder{}
	// Until the browser draws its first screen the terminal would stay
	// blank (a demo over a large folder indexes it first): say what is
	// happening, and erase the line once it is done.
	done := startingLine(cmd.ErrOrStderr(), cf)
	s, err := cf.open(ctx, fwd.handlers())
	done()
	if err != nil {
		return report(cmd, err, false)
	}
	defer s.close()
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic", "value", r, "stack", string(debug.Stack()))
			err = report(cmd, fmt.Errorf("internal error: %v (details in %s)", r, s.logPath), false)
		}
	}()
	s.log.Info("session ready", "office", s.Office, "computer", s.Computer, "demo", s.demo,
		"elapsed", time.Since(start))

	opts.Office, opts.Computer = s.Office, s.Computer
	p := tea.NewProgram(tui.New(s.Agent, opts), tea.WithContext(ctx))
	fwd.attach(p.Send)
	_, err = p.Run()
	fwd.attach(nil)
	switch {
	case err == nil, ctx.Err() != nil && errors.Is(err, tea.ErrProgramKilled):
		return nil
	case errors.Is(err, tea.ErrProgramPanic):
		return report(cmd, fmt.Errorf("the browser stopped on an internal error (details in %s): %w", s.logPath, err), false)
	}
	return report(cmd, fmt.Errorf("browser: %w", err), false)
}

// forwarder hands the agent's notifications to the running program.
// Notifications that arrive before the program runs are dropped: the
// screens read everything fresh when they start.
type forwarder struct {
	mu   sync.Mutex
	send func(tea.Msg)
}

func (f *forwarder) attach(send func(tea.Msg)) {
	f.mu.Lock()
	f.send = send
	f.mu.Unlock()
}

func (f *forwarder) post(msg tea.Msg) {
	f.mu.Lock()
	send := f.send
	f.mu.Unlock()
	if send != nil {
		send(msg) // returns at once once the program has ended
	}
}

// handlers maps the agent's callbacks to the browser's live-event messages.
func (f *forwarder) handlers() agent.Handlers {
	member := func(computer, agentName string) (name, role string) {
		if computer != "" {
			return computer, string(protocol.RoleComputer)
		}
		return agentName, string(protocol.RoleAgent)
	}
	return agent.Handlers{
		EnterOffice: func(n protocol.EnterOfficeNotification) {
			name, role := member(n.Computer, n.Agent)
			f.post(tui.EnterOfficeMsg{Name: name, Role: role})
		},
		LeaveOffice: func(n protocol.LeaveOfficeNotification) {
			name, role := member(n.Computer, n.Agent)
			f.post(tui.LeaveOfficeMsg{Name: name, Role: role})
		},
		UpdateFinder:   func(n protocol.UpdateComputerConfigReq) { f.post(tui.UpdateFinderMsg{Computer: n.Computer}) },
		UpdateDesktop:  func(n protocol.UpdateComputerConfigReq) { f.post(tui.UpdateDesktopMsg{Computer: n.Computer}) },
		UpdateSkills:   func(n protocol.UpdateComputerConfigReq) { f.post(tui.UpdateSkillsMsg{Computer: n.Computer}) },
		UpdateToolList: func(n protocol.UpdateComputerConfigReq) { f.post(tui.UpdateToolsMsg{Computer: n.Computer}) },
		State:          func(st agent.State) { f.post(tui.ConnStateMsg{State: st}) },
	}
}

// startingLine writes what the browser is waiting for on w when w is a
// terminal, and returns the function that erases it.
func startingLine(w io.Writer, cf *connFlags) (erase func()) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return func() {}
	}
	fmt.Fprint(w, startingText(cf))
	return func() { fmt.Fprint(w, "\r\x1b[K") }
}

// startingText says what the browser waits for before its first screen.
func startingText(cf *connFlags) string {
	switch {
	case cf.demo && cf.docs != "":
		return "smcp-browse: starting the demo; the document server reads " + cf.docs + "…"
	case cf.demo:
		return "smcp-browse: starting the demo…"
	}
	return "smcp-browse: connecting to " + cf.server + "…"
}
