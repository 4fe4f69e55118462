package tui

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/tui/common"
)

// TestSkillsLiveRefresh: the Skills screen and an open SKILL.md read again
// on notify:update_skills for their computer (not on another computer's,
// nor on a Finder change), and the cursor stays on the same SKILL.
func TestSkillsLiveRefresh(t *testing.T) {
	f := newFake()
	o := testOptions()
	o.Computer = "laptop"
	hs := newHarness(t, f, o, 100, 30)
	hs.press("K", "j")
	hs.requireContains("2 skills", "skill 2/2")

	f.mu.Lock()
	f.skills = append([]protocol.A2CSkillRef{{Name: "aaa-first", Source: "user", Path: "/p", Description: "Came later"}}, f.skills...)
	f.mu.Unlock()
	before := f.countCalls("get_skills")
	hs.send(common.UpdateFinderMsg{Computer: "laptop"})
	hs.send(common.UpdateSkillsMsg{Computer: "build-box"})
	hs.settle()
	if n := f.countCalls("get_skills"); n != before {
		t.Fatalf("get_skills re-read %d times for notifications not about laptop's skills", n-before)
	}
	hs.send(common.UpdateSkillsMsg{Computer: "laptop"})
	hs.settle()
	hs.requireContains("3 skills", "aaa-first", "Came later", "skill 3/3") // still on mcp:docs:summarize

	hs.press("enter")
	hs.requireContains("Read the document, then write five lines.")
	f.mu.Lock()
	f.skillMD["mcp:docs:summarize"] = "# Summarize\n\nNow in three lines.\n"
	f.mu.Unlock()
	hs.send(common.UpdateSkillsMsg{Computer: "laptop"})
	hs.settle()
	hs.requireContains("Now in three lines.")
	hs.requireNotContains("five lines", "\x1b[31m")
}

// TestSkillsErrors: a failed get_skills says what failed, with its code.
func TestSkillsErrors(t *testing.T) {
	f := newFake()
	f.setErr("get_skill", protocol.Errorf(protocol.CodeMCPServerNotFound, "no skill").WithDetails(map[string]any{"name": "pdf-tools"}))
	o := testOptions()
	o.Computer = "laptop"
	hs := newHarness(t, f, o, 100, 30)
	hs.press("K", "enter")
	hs.requireContains("4014 · no such skill on this computer")
}

// TestSkillFilesLinksAndBlobs: L on SKILL.md lists its links; one to
// another file of the SKILL opens it (a Markdown file that comes by blob
// handle, read with get_blob, rendered), a script shows as code, a binary
// file as its type and size and `s` saves its bytes whole, `o` hands it
// to the desktop's viewer; a link out of the SKILL's folder is not
// followed.
func TestSkillFilesLinksAndBlobs(t *testing.T) {
	f := newFake()
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 3000)...)
	f.skillMD["pdf-tools"] = "# PDF tools\n\nSee [the reference](reference.md), [the filler](scripts/fill.py), " +
		"[the logo](assets/logo.png) and [a secret](../../etc/passwd).\n"
	f.skillFiles = map[string]fakeSkillFile{
		"pdf-tools/reference.md":    {mime: "text/markdown", handle: "h-ref"},
		"pdf-tools/scripts/fill.py": {mime: "text/x-python", body: "def fill(form):\n    return form\n"},
		"pdf-tools/assets/logo.png": {mime: "image/png", handle: "h-logo"},
	}
	f.blobs = map[string][]byte{"h-ref": []byte("# Reference card\n\nFields are filled **in order**.\n"), "h-logo": png}
	dir := t.TempDir()
	o := testOptions()
	o.Computer, o.SaveDir = "laptop", dir
	hs := newHarness(t, f, o, 100, 30)
	sys := hs.fakeSystem(nil, "xdg-open")
	hs.press("K", "enter")
	hs.requireContains("PDF tools", "pdf-tools · SKILL.md")

	hs.press("L")
	hs.requireContains("Links in SKILL.md", "the reference", "the filler", "the logo", "a secret")
	hs.typeText("reference")
	hs.press("enter")
	hs.requireContains("pdf-tools · reference.md", "Reference card", "Fields are filled")
	hs.requireNotContains("**in order**") // rendered, not shown as source
	if f.countCalls("get_blob") != 1 {
		t.Errorf("reference.md came by handle but get_blob was called %d times", f.countCalls("get_blob"))
	}

	hs.press("esc", "L")
	hs.typeText("filler")
	hs.press("enter")
	hs.requireContains("pdf-tools · scripts/fill.py", "def fill(form):", "return form")

	hs.press("esc", "L")
	hs.typeText("logo")
	hs.press("enter")
	hs.requireContains("assets/logo.png", "image/png · 2.9 KiB", "a binary file: s saves it")
	hs.press("s")
	path := filepath.Join(dir, "pdf-tools-assets-logo.png")
	hs.requireContains("saved " + path)
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, png) {
		t.Fatalf("saved %d bytes (%v), want the %d of the blob", len(b), err, len(png))
	}
	hs.press("o")
	if r := sys.lastRun(); r.name != "xdg-open" || len(r.args) != 1 || !strings.HasSuffix(r.args[0], ".png") {
		t.Errorf("o ran %+v, want xdg-open on a .png", r)
	} else {
		t.Cleanup(func() { os.Remove(r.args[0]) })
	}

	hs.press("esc", "L")
	hs.typeText("secret")
	hs.press("enter")
	hs.requireContains("leaves the SKILL's folder: not followed")
	hs.requireContains("pdf-tools · SKILL.md")
}
