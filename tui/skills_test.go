package tui

import (
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
