package common

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// System is how the browser reaches the rest of the machine: the
// environment, the programs on $PATH and running one. Tests replace it.
type System struct {
	Getenv   func(string) string
	LookPath func(string) (string, error)
	// Run runs name with args, stdin as its input, and waits (bounded).
	Run func(name string, args []string, stdin string) error
	// Start starts name with args in the background (a browser).
	Start func(name string, args []string) error
}

// toolTimeout bounds a clipboard tool.
const toolTimeout = 5 * time.Second

func realSystem() System {
	return System{
		Getenv:   os.Getenv,
		LookPath: exec.LookPath,
		Run: func(name string, args []string, stdin string) error {
			ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
			defer cancel()
			c := exec.CommandContext(ctx, name, args...)
			c.Stdin = strings.NewReader(stdin)
			out, err := c.CombinedOutput()
			if err != nil && len(out) > 0 {
				return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(out)))
			}
			return err
		},
		Start: func(name string, args []string) error {
			c := exec.Command(name, args...)
			c.Stdin, c.Stdout, c.Stderr = nil, nil, nil
			if err := c.Start(); err != nil {
				return err
			}
			go func() { _ = c.Wait() }() // reap it
			return nil
		},
	}
}

// clipboardTool is a program that puts its input on the clipboard, and
// the environment that says it can reach one.
type clipboardTool struct {
	name string
	args []string
	env  string // a variable that must be set ("" none)
}

// clipboardTools are tried in order.
var clipboardTools = []clipboardTool{
	{name: "wl-copy", env: "WAYLAND_DISPLAY"},
	{name: "xclip", args: []string{"-selection", "clipboard"}, env: "DISPLAY"},
	{name: "xsel", args: []string{"--clipboard", "--input"}, env: "DISPLAY"},
	{name: "pbcopy"},
}

// CopiedMsg reports what `y` did, in words that say what really happened;
// terminal asks the App to hand text to Bubble Tea's OSC 52 support (when
// Options.Clipboard is nil).
type CopiedMsg struct {
	Text     string
	Terminal string
}

// CopyCmd puts text on the clipboard the best way the machine offers and
// says how: a clipboard program (wl-copy, xclip, xsel, pbcopy), else tmux's
// buffer (which tmux hands to the terminal when set-clipboard is on), else
// OSC 52, which a terminal may ignore: the notice says so rather than claim
// success.
func (c *Common) CopyCmd(text string) tea.Cmd {
	sys, osc := c.Sys, c.Opts.Clipboard
	return func() tea.Msg {
		var tried []string
		for _, t := range clipboardTools {
			if t.env != "" && sys.Getenv(t.env) == "" {
				continue
			}
			path, err := sys.LookPath(t.name)
			if err != nil {
				continue
			}
			if err := sys.Run(path, t.args, text); err != nil {
				tried = append(tried, t.name+": "+err.Error())
				continue
			}
			return CopiedMsg{Text: "copied with " + t.name + ": " + text}
		}
		seq := osc52(text)
		if sys.Getenv("TMUX") != "" {
			if path, err := sys.LookPath("tmux"); err == nil {
				if err := sys.Run(path, []string{"load-buffer", "-w", "-"}, text); err == nil {
					return CopiedMsg{Text: "in tmux's buffer (the terminal gets it if set-clipboard is on): " + text}
				}
			}
			// tmux passes an escape through to the outer terminal only with
			// allow-passthrough on.
			seq = "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
		}
		if osc == nil {
			return CopiedMsg{Text: osc52Notice(tried, text), Terminal: text}
		}
		if _, err := osc.Write([]byte(seq)); err != nil {
			return CopiedMsg{Text: "copy failed: " + errors.Join(append(errs(tried), err)...).Error()}
		}
		return CopiedMsg{Text: osc52Notice(tried, text)}
	}
}

func errs(ss []string) []error {
	out := make([]error, len(ss))
	for i, s := range ss {
		out[i] = errors.New(s)
	}
	return out
}

// osc52 is the OSC 52 sequence that asks a terminal to set its clipboard.
func osc52(text string) string {
	return "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\a"
}

// osc52Notice says that the text went to the terminal, which may ignore
// it, and why no clipboard program took it.
func osc52Notice(tried []string, text string) string {
	if len(tried) > 0 {
		return "OSC 52 sent, the terminal may ignore it (" + strings.Join(tried, "; ") + "): " + text
	}
	return "OSC 52 sent, the terminal may ignore it (no clipboard program): " + text
}
