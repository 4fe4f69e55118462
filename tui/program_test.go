package tui

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/tui/common"
)

// TestProgramWalkthrough runs the browser in a real tea.Program (teatest):
// catalog → document → page → element and back, with a live update on the
// way, and compares the final frame with a golden file.
func TestProgramWalkthrough(t *testing.T) {
	f := newFake()
	o := testOptions()
	o.Computer = "laptop"
	tm := teatest.NewTestModel(t, New(f, o),
		teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))

	waitFor := func(s string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			return bytes.Contains([]byte(ansi.Strip(string(b))), []byte(s))
		}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	}
	key := func(keys ...string) {
		for _, k := range keys {
			tm.Send(keyMsg(k))
		}
	}

	waitFor("1–7 of 7")
	key("j", "j", "j", "enter")
	waitFor("收入分析")
	key("enter")
	waitFor("Page 1/3")
	key("e", "j", "j", "enter")
	waitFor("── Content")
	key("esc")
	waitFor("Elements (4)")

	// A live change: the page gains an element; the open page reloads.
	f.mutate(func(docs *[]fakeDoc) {
		p := &(*docs)[0].pages[0]
		p.Elements = append(p.Elements, el("txt-new", "text", "added later", map[string]any{"text": "A paragraph added while you were reading."}))
	})
	tm.Send(common.UpdateFinderMsg{Computer: "laptop"})
	waitFor("added later")

	key("esc", "esc", "esc")
	waitFor("Catalog")
	tm.Send(keyMsg("ctrl+c"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	final := tm.FinalModel(t).(*App)
	view := final.View().Content
	checkFrame(t, view, 100, 30)
	testutil.Golden(t, filepath.Join(tuiGoldens, "program_back_to_catalog.golden"), goldenFrame(ansi.Strip(view)))
}

// TestProgramPager runs `o` inside a real tea.Program: the pager command is
// executed on a temporary Markdown file, which is removed afterwards.
func TestProgramPager(t *testing.T) {
	dir := t.TempDir()
	copyTo := filepath.Join(dir, "paged.md")
	script := filepath.Join(dir, "pager.sh")
	// The "pager" records the file it was given and what it held.
	body := "#!/bin/sh\necho \"$1\" > " + copyTo + ".name\ncat \"$1\" > " + copyTo + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	o := testOptions()
	o.Computer = "laptop"
	o.Pager = script
	tm := teatest.NewTestModel(t, New(newFake(), o), teatest.WithInitialTermSize(100, 30))
	wait := func(cond func() bool, what string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	// The catalog's rows, not just any "2026" (the clock shows one before
	// the catalog has answered, and keys sent then move nothing).
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("1–7 of 7")) },
		teatest.WithDuration(10*time.Second))
	for _, k := range []string{"j", "j", "j", "enter"} {
		tm.Send(keyMsg(k))
	}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("收入分析")) },
		teatest.WithDuration(10*time.Second))
	tm.Send(keyMsg("enter"))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("Page 1/3")) },
		teatest.WithDuration(10*time.Second))
	tm.Send(keyMsg("o"))
	wait(func() bool {
		b, err := os.ReadFile(copyTo)
		return err == nil && bytes.Contains(b, []byte("| Q4   |        1,560 |   +18%   |"))
	}, "the pager to receive the page")
	name, _ := os.ReadFile(copyTo + ".name")
	tmp := strings.TrimSpace(string(name))
	wait(func() bool { _, err := os.Stat(tmp); return os.IsNotExist(err) }, "the temporary file to be removed")
	tm.Send(keyMsg("ctrl+c"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	// Back from the pager, the status bar no longer says it is reading.
	if n := tm.FinalModel(t).(*App).c.Notice; strings.HasPrefix(n, "reading") {
		t.Errorf("after the pager the status bar still says %q", n)
	}
}
