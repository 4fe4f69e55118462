package tui

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/tui/common"
)

// M opens the computer's tools (from the computers screen too, on the
// selected one) with their a2c_tool_meta tags, whichever form the meta
// takes; enter opens the call form with the required arguments filled in
// from the schema; ctrl+s calls the tool with what the field holds and
// shows the result's text.
func TestToolsListFormAndCall(t *testing.T) {
	f := newFake()
	hs := newHarness(t, f, testOptions(), 100, 30)
	hs.press("j", "M") // laptop is the second computer in name order
	hs.requireContains("Tools · laptop · 3 tools", "docs__fs_tree", "fs,read", "fs,search", "List the folder tree", "tool 1/3")
	hs.requireNotContains("\x1b[31m")
	if f.countCalls("get_tools laptop") != 1 {
		t.Fatalf("calls: %v", f.callLog())
	}

	hs.press("enter")
	hs.requireContains("Call docs__fs_tree · on laptop · timeout 5s", "path (string, required) — folder, relative to the root",
		"max_entries (integer, required) — entry budget", "hidden (boolean)", `"path": ""`, `"max_entries": 200`)
	hs.press("down", "end", "backspace", "backspace")
	hs.typeText(`docs",`)
	hs.settle()
	hs.press("ctrl+s")
	if log := f.callLog(); !strings.Contains(strings.Join(log, "\n"), `call_tool docs__fs_tree {"max_entries":200,"path":"docs"}`) {
		t.Fatalf("the call sent other arguments: %v", log)
	}
	hs.requireContains("Result of docs__fs_tree · on laptop · 1 item", `docs__fs_tree got {"max_entries":200,"path":"docs"}`)

	// Back on the form the arguments are as they were; ctrl+r puts the
	// skeleton back.
	hs.press("esc")
	hs.requireContains(`"path": "docs"`)
	hs.press("ctrl+r")
	hs.requireContains(`"path": ""`)

	// Nested required objects, enums and arrays get placeholders too.
	hs.press("esc", "j", "enter")
	hs.requireContains(`"pattern": ""`, `"mode": "literal"`, `"paths": []`, `"files": 0`)
}

// Arguments that are not a JSON object are said so, with where JSON
// breaks, and nothing is called; once fixed, the call goes out.
func TestToolCallInvalidJSONDoesNotCall(t *testing.T) {
	f := newFake()
	o := testOptions()
	o.Computer = "laptop"
	hs := newHarness(t, f, o, 100, 30)
	hs.press("M", "enter", "end")
	hs.typeText(" oops")
	hs.settle()
	hs.press("ctrl+s")
	hs.requireContains("✗ the arguments are not valid JSON at line 1, column 3: invalid character 'o'")
	for _, text := range []string{`[1, 2]`, `{"path": "a"} {}`, `{"path": `} {
		hs.press("ctrl+g", "backspace") // select everything and delete it
		hs.typeText(text)
		hs.settle()
		hs.press("ctrl+s")
		hs.requireContains("✗ the arguments ")
	}
	if n := f.countCalls("call_tool"); n != 0 {
		t.Fatalf("invalid arguments were sent %d times: %v", n, f.callLog())
	}
	hs.press("ctrl+g", "backspace")
	hs.typeText(`{"path": "x", "max_entries": 1}`)
	hs.settle()
	hs.requireNotContains("✗ the arguments") // editing clears the error
	hs.press("ctrl+s")
	hs.requireContains("Result of docs__fs_tree")
	if n := f.countCalls("call_tool"); n != 1 {
		t.Fatalf("%d calls, want 1", n)
	}
}

// A result whose image came by blob handle shows its type and size and
// reads nothing until asked; `s` on it reads the blob (get_blob) and
// saves its bytes as .png, `o` opens them with the viewer; an inline
// image is saved from the result itself; text items are sanitized.
func TestToolResultBlobHandleSaveAndOpen(t *testing.T) {
	f := newFake()
	inline := append([]byte("GIF89a"), bytes.Repeat([]byte{1}, 500)...)
	f.results["shots__screenshot"].Content = append(f.results["shots__screenshot"].Content,
		protocol.ToolContent{Type: "image", MIMEType: "image/gif", Data: base64.StdEncoding.EncodeToString(inline)},
		protocol.ToolContent{Type: "resource", Resource: []byte(`{"uri":"file:///tmp/report.pdf","mimeType":"application/pdf"}`),
			Meta: map[string]any{protocol.MetaBlobHandle: "h-gone", protocol.MetaTotalSize: 12}})
	dir := t.TempDir()
	o := testOptions()
	o.Computer, o.SaveDir = "laptop", dir
	hs := newHarness(t, f, o, 100, 30)
	sys := hs.fakeSystem(nil, "xdg-open")
	hs.press("M", "G", "enter", "ctrl+s")
	hs.requireContains("Result of shots__screenshot · on laptop · 4 items", "Captured the screen (1280×800)",
		"2 image · image/png · 2.9 KiB · by blob handle", "s saves it, o opens it with your viewer",
		"3 image · image/gif · 506 B", "4 resource · file:///tmp/report.pdf · application/pdf · 12 B · by blob handle")
	hs.requireNotContains("\x1b]0;pwned", "\x07")
	if n := f.countCalls("get_blob"); n != 0 {
		t.Fatalf("the blob was read %d times before anyone asked", n)
	}

	hs.press("]")
	hs.requireContains("item 2/4")
	hs.press("s")
	path := filepath.Join(dir, "shots__screenshot-2.png")
	hs.requireContains("saved " + path)
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, samplePNG) {
		t.Fatalf("saved %d bytes (%v), want the blob's %d", len(got), err, len(samplePNG))
	}
	if n := f.countCalls("get_blob h-shot"); n != 1 {
		t.Fatalf("get_blob h-shot called %d times: %v", n, f.callLog())
	}
	hs.press("o")
	if r := sys.lastRun(); r.name != "xdg-open" || len(r.args) != 1 || !strings.HasSuffix(r.args[0], ".png") {
		t.Errorf("o ran %+v, want xdg-open on a .png", r)
	} else {
		t.Cleanup(func() { os.Remove(r.args[0]) })
		if got, _ := os.ReadFile(r.args[0]); !bytes.Equal(got, samplePNG) {
			t.Errorf("the viewer got %d bytes", len(got))
		}
	}

	hs.press("]", "s")
	gif := filepath.Join(dir, "shots__screenshot-3.gif")
	if got, err := os.ReadFile(gif); err != nil || !bytes.Equal(got, inline) {
		t.Fatalf("inline image saved as %d bytes (%v):\n%s", len(got), err, hs.screen())
	}
	if n := f.countCalls("get_blob"); n != 2 {
		t.Errorf("an inline image was read by handle: %v", f.callLog())
	}

	// A handle the computer no longer has: the save says so, with its code.
	hs.press("]", "s")
	hs.requireContains("save failed: read the item by its blob handle", "4018")

	hs.press("[", "[", "[", "s")
	if got, err := os.ReadFile(filepath.Join(dir, "shots__screenshot-1.txt")); err != nil || strings.Contains(string(got), "\x1b") ||
		!strings.Contains(string(got), "Captured the screen") {
		t.Errorf("the text item saved as %q (%v)", got, err)
	}
}

// A failed call (isError) is shown as one, with its code and, for a
// refused authorization (4006/4007), the hint the computer gave; a
// request that fails (the computer left) stays on the form with the
// reason.
func TestToolCallErrors(t *testing.T) {
	f := newFake()
	f.results["docs__fs_tree"] = &protocol.CallToolResult{IsError: true,
		Content: []protocol.ToolContent{{Type: "text", Text: "This tool needs authorization."}},
		Meta: map[string]any{protocol.MetaErrorCode: 4006, protocol.MetaMCPServer: "docs",
			protocol.MetaAuthHint: map[string]any{"action": "user_authorization_required", "message": "Authorize it where the computer runs, then try again."}}}
	o := testOptions()
	o.Computer = "laptop"
	hs := newHarness(t, f, o, 100, 30)
	hs.press("M", "enter", "ctrl+s")
	hs.requireContains("✗ the tool reported an error (4006 · Tool Authorization Required)",
		"→ Authorize it where the computer runs, then try again.", "This tool needs authorization.")

	hs.press("esc")
	f.setErr("call_tool", protocol.Errorf(protocol.CodeNotFound, "computer laptop is not in the office"))
	hs.press("ctrl+s")
	hs.requireContains("Call docs__fs_tree", "✗ 404 · the computer is not in the office, or does not support this request")
}

// The tools re-read on notify:update_tool_list for their computer only,
// keeping the cursor on the same tool; a computer that leaves is said
// so on the form.
func TestToolsLiveRefresh(t *testing.T) {
	f := newFake()
	o := testOptions()
	o.Computer = "laptop"
	hs := newHarness(t, f, o, 100, 30)
	hs.press("M", "j")
	hs.requireContains("tool 2/3")
	f.mu.Lock()
	f.tools = append([]protocol.SMCPTool{{Name: "aaa__new", Description: "Came later"}}, f.tools...)
	f.mu.Unlock()
	before := f.countCalls("get_tools")
	hs.send(common.UpdateToolsMsg{Computer: "build-box"})
	hs.send(common.UpdateSkillsMsg{Computer: "laptop"})
	hs.settle()
	if n := f.countCalls("get_tools"); n != before {
		t.Fatalf("get_tools re-read %d times for notifications not about laptop's tools", n-before)
	}
	hs.send(common.UpdateToolsMsg{Computer: "laptop"})
	hs.settle()
	hs.requireContains("4 tools", "aaa__new", "Came later", "tool 3/4") // still on docs__fs_grep

	hs.press("enter")
	hs.send(common.LeaveOfficeMsg{Name: "laptop", Role: "computer"})
	hs.settle()
	hs.requireContains("Call docs__fs_grep", "✗ computer left the office")
}

// The Tools screens fit every terminal size, from 20×6 up.
func TestToolScreensFitTheTerminal(t *testing.T) {
	sizes := [][2]int{{20, 6}, {40, 12}, {60, 20}, {100, 30}, {200, 60}}
	walk := [][]string{{"M"}, {"enter"}, {"esc", "G", "enter"}, {"ctrl+s"}, {"]"}, {"esc"}, {"ctrl+s"}, {"["}}
	for _, sz := range sizes {
		hs := startOn(t, newFake(), "laptop", sz[0], sz[1])
		for i, step := range walk {
			hs.press(step...)
			checkFrame(t, hs.app.View().Content, sz[0], sz[1])
			if t.Failed() {
				t.Fatalf("size %dx%d, step %d (%v):\n%s", sz[0], sz[1], i, step, hs.screen())
			}
		}
		if st := hs.app.top().Status(); st != "item 1/2" {
			t.Errorf("%dx%d: ended on %q, want the second result's first item", sz[0], sz[1], st)
		}
	}
}
