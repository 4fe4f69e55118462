package tui

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
)

// TestRandomUseNeverBreaks drives the browser with seeded random key
// presses, typing, resizes down to 1×1, live notifications, a computer
// leaving and coming back, and failing requests. After every step the
// frame must fit the terminal and nothing may panic. A failure names the
// seed and the last steps.
func TestRandomUseNeverBreaks(t *testing.T) {
	keys := []tea.KeyPressMsg{
		{Code: tea.KeyEnter}, {Code: tea.KeyEscape}, {Code: tea.KeyUp}, {Code: tea.KeyDown},
		{Code: tea.KeyLeft}, {Code: tea.KeyRight}, {Code: tea.KeyTab}, {Code: tea.KeyBackspace},
		{Code: tea.KeyPgDown}, {Code: tea.KeyPgUp}, {Code: tea.KeyHome}, {Code: tea.KeyEnd},
		{Code: tea.KeySpace, Text: " "},
		{Code: 'd', Mod: tea.ModCtrl}, {Code: 'u', Mod: tea.ModCtrl}, {Code: 'f', Mod: tea.ModCtrl}, {Code: 'b', Mod: tea.ModCtrl},
		{Code: tea.KeyLeft, Mod: tea.ModAlt}, {Code: tea.KeyRight, Mod: tea.ModAlt},
	}
	// Every other binding but q (quit), o and E (run $PAGER, $EDITOR),
	// navigation keys more often.
	for _, r := range "jjjjkkhlgGfbu/trcm[]nNexa?ysdTLFS" {
		keys = append(keys, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	letters := []rune("abcdefghijklmnprstuvwxyz Q3") // typed into filter fields; no q or o
	ops := []string{"list_room", "get_finder", "read_document", "read_json", "read_element", "get_desktop", "search_finder"}
	failures := []error{
		protocol.Errorf(protocol.CodeDocumentNotFound, "document gone"),
		protocol.Errorf(protocol.CodePageOutOfRange, "page out of range"),
		protocol.Errorf(protocol.CodeTimeout, "no answer"),
		protocol.Errorf(protocol.CodeNotFound, "computer 'laptop' not found"),
		fmt.Errorf("transport closed"),
	}
	const steps = 400
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		f := newFake()
		o := testOptions()
		o.Clipboard = &bytes.Buffer{}
		o.SaveDir = t.TempDir()
		w, h := 100, 30
		hs := newHarness(t, f, o, w, h)
		next := func() (string, tea.Msg) {
			switch p := rng.IntN(100); {
			case p < 70:
				k := keys[rng.IntN(len(keys))]
				return "key " + k.String(), k
			case p < 76:
				r := letters[rng.IntN(len(letters))]
				return "type " + string(r), tea.KeyPressMsg{Code: r, Text: string(r)}
			case p < 84:
				w, h = 1+rng.IntN(200), 1+rng.IntN(60)
				return fmt.Sprintf("resize %dx%d", w, h), tea.WindowSizeMsg{Width: w, Height: h}
			case p < 89:
				return "update_finder", common.UpdateFinderMsg{Computer: "laptop"}
			case p < 92:
				return "laptop leaves", common.LeaveOfficeMsg{Name: "laptop", Role: string(protocol.RoleComputer)}
			case p < 95:
				return "laptop enters", common.EnterOfficeMsg{Name: "laptop", Role: string(protocol.RoleComputer)}
			}
			op := ops[rng.IntN(len(ops))]
			if rng.IntN(2) == 0 {
				err := failures[rng.IntN(len(failures))]
				f.setErr(op, err)
				return fmt.Sprintf("%s fails: %v", op, err), nil
			}
			f.setErr(op, nil)
			return op + " works again", nil
		}
		var trail []string
		fail := func(i int, why string) {
			t.Fatalf("seed %d, step %d: %s; last steps %q:\n%s", seed, i, why, trail[max(0, len(trail)-12):], hs.screen())
		}
		for i := range steps {
			step, msg := next()
			trail = append(trail, step)
			func() {
				defer func() {
					if r := recover(); r != nil {
						fail(i, fmt.Sprintf("panic: %v", r))
					}
				}()
				if msg != nil {
					hs.send(msg)
				}
				hs.settle()
			}()
			if hs.quit {
				fail(i, "the browser quit")
			}
			checkFrame(t, hs.app.View().Content, w, h)
			if t.Failed() {
				fail(i, "the frame does not fit")
			}
		}
	}
}
