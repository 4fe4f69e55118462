package tui

import (
	"bytes"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
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
	tm.Send(UpdateFinderMsg{Computer: "laptop"})
	waitFor("added later")

	key("esc", "esc", "esc")
	waitFor("Catalog")
	tm.Send(keyMsg("ctrl+c"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	final := tm.FinalModel(t).(*App)
	view := final.View().Content
	checkFrame(t, view, 100, 30)
	requireGolden(t, "program_back_to_catalog", ansi.Strip(view))
}
