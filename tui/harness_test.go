package tui

import (
	"errors"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/smcp-browse/smcp-browse/tui/common"
)

// harness drives an App the way tea.Program does: Update on the test
// goroutine, commands on their own goroutines, their messages fed back in
// order of arrival. It never sleeps for a fixed time: settle waits until
// every command has reported (or is held at the fake's gate).
type harness struct {
	t        testing.TB
	app      *App
	fake     *fakeBackend // nil when the backend is a real session
	msgs     chan tea.Msg
	inflight atomic.Int64
	quit     bool
}

func testOptions() common.Options {
	return common.Options{
		Now:      func() time.Time { return testNow },
		Debounce: time.Millisecond,
		Timeout:  5 * time.Second,
		SaveDir:  "",
	}
}

func newHarness(t testing.TB, f *fakeBackend, o common.Options, w, h int) *harness {
	t.Helper()
	return newHarnessWith(t, f, o, w, h, nil)
}

// newHarnessWith is newHarness with a hook run before the browser starts
// (to replace its timers, say).
func newHarnessWith(t testing.TB, f *fakeBackend, o common.Options, w, h int, before func(*harness)) *harness {
	t.Helper()
	return startHarness(t, f, f, o, w, h, before)
}

// newHarnessOn drives the browser on backend b (a real session), whose
// calls settle waits for like any other command.
func newHarnessOn(t testing.TB, b common.Backend, o common.Options, w, h int) *harness {
	t.Helper()
	return startHarness(t, b, nil, o, w, h, nil)
}

func startHarness(t testing.TB, b common.Backend, f *fakeBackend, o common.Options, w, h int, before func(*harness)) *harness {
	t.Helper()
	m := New(b, o)
	app := m.(*App)
	app.c.PreviewDelay = time.Millisecond
	hs := &harness{t: t, app: app, fake: f, msgs: make(chan tea.Msg, 1024)}
	hs.fakeSystem(nil) // never the real clipboard or browser
	if before != nil {
		before(hs)
	}
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.exec(app.Init())
	hs.settle()
	return hs
}

func (h *harness) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	h.inflight.Add(1)
	go func() {
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				h.exec(c)
			}
			h.inflight.Add(-1)
			return
		}
		if msg != nil {
			h.msgs <- msg
		}
		h.inflight.Add(-1)
	}()
}

// send delivers msg to Update and starts the command it returns.
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	if _, ok := msg.(tea.QuitMsg); ok {
		h.quit = true
		return
	}
	_, cmd := h.app.Update(msg)
	h.exec(cmd)
}

// settle processes messages until no command is running except those held
// at the fake's gate.
func (h *harness) settle() {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for n := 0; ; n++ {
		select {
		case msg := <-h.msgs:
			h.send(msg)
			continue
		default:
		}
		if h.inflight.Load() <= int64(h.fake.blockedCalls()) && len(h.msgs) == 0 {
			// A held call is counted once it reached the gate; make sure no
			// message raced in meanwhile.
			select {
			case msg := <-h.msgs:
				h.send(msg)
				continue
			default:
				return
			}
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("harness: commands still running after 10s (%d in flight)", h.inflight.Load())
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// press sends key presses: single characters, or names such as "enter",
// "esc", "down", "ctrl+c", "space", "tab".
func (h *harness) press(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		h.send(keyMsg(k))
		h.settle()
	}
}

// typeText types s one rune at a time without settling in between.
func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	if c, ok := strings.CutPrefix(k, "ctrl+"); ok && len(c) == 1 {
		return tea.KeyPressMsg{Code: rune(c[0]), Mod: tea.ModCtrl}
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

// screen returns the plain text of the current frame.
func (h *harness) screen() string {
	return ansi.Strip(h.app.View().Content)
}

// requireContains fails unless the frame contains every s.
func (h *harness) requireContains(ss ...string) {
	h.t.Helper()
	scr := h.screen()
	for _, s := range ss {
		if !strings.Contains(scr, s) {
			h.t.Fatalf("screen lacks %q:\n%s", s, scr)
		}
	}
}

func (h *harness) requireNotContains(ss ...string) {
	h.t.Helper()
	scr := h.screen()
	for _, s := range ss {
		if strings.Contains(scr, s) {
			h.t.Fatalf("screen unexpectedly has %q:\n%s", s, scr)
		}
	}
}

// checkFrame asserts the frame fits the terminal: h lines, none wider than w.
func checkFrame(t testing.TB, content string, w, h int) {
	t.Helper()
	lines := strings.Split(content, "\n")
	if len(lines) > h {
		t.Errorf("frame has %d lines, terminal has %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw > w {
			t.Errorf("line %d is %d cells wide (terminal %d): %q", i, lw, w, ansi.Strip(l))
		}
	}
}

// tuiGoldens holds the golden frames (rewritten with -update, see
// TestGolden).
const tuiGoldens = "../testdata/tui"

// goldenFrame is a frame as its golden file holds it: each line without
// trailing blanks, and a final newline.
func goldenFrame(frame string) []byte {
	return []byte(strings.Join(trimRight(strings.Split(frame, "\n")), "\n") + "\n")
}

func trimRight(lines []string) []string {
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// fakeSys stands for the machine: an environment, the programs on $PATH,
// and a record of what was run.
type fakeSys struct {
	mu      sync.Mutex
	env     map[string]string
	tools   map[string]bool
	failing string // a program that fails
	runs    []fakeRun
}

type fakeRun struct {
	name  string
	args  []string
	stdin string
}

// fakeSystem makes the App see env and only the programs tools.
func (h *harness) fakeSystem(env map[string]string, tools ...string) *fakeSys {
	fs := &fakeSys{env: env, tools: map[string]bool{}}
	for _, t := range tools {
		fs.tools[t] = true
	}
	h.app.c.Sys = common.System{
		Getenv: func(k string) string { return fs.env[k] },
		LookPath: func(name string) (string, error) {
			if fs.tools[name] {
				return name, nil
			}
			return "", exec.ErrNotFound
		},
		Run: func(name string, args []string, stdin string) error {
			fs.mu.Lock()
			defer fs.mu.Unlock()
			if name == fs.failing {
				return errors.New("exit status 1")
			}
			fs.runs = append(fs.runs, fakeRun{name: name, args: args, stdin: stdin})
			return nil
		},
		Start: func(name string, args []string) error {
			fs.mu.Lock()
			defer fs.mu.Unlock()
			if name == fs.failing {
				return errors.New("exit status 1")
			}
			fs.runs = append(fs.runs, fakeRun{name: name, args: args})
			return nil
		},
	}
	return fs
}

func (fs *fakeSys) lastRun() fakeRun {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if len(fs.runs) == 0 {
		return fakeRun{}
	}
	return fs.runs[len(fs.runs)-1]
}
