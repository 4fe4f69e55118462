package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// Issue 23.9: the saved Markdown says its title once (a first page that
// opens with the same heading does not repeat it) and keeps an image's
// title; a page saved alone does not repeat its title either.
func TestSavedMarkdownSaysItsTitleOnceAndKeepsImageTitles(t *testing.T) {
	doc := mkDoc(testHost, "guide", "docs", "md", "Setup guide", nil, "", testNow,
		protocol.DPEPage{Title: "Setup guide", Elements: []protocol.DPEElementDetail{
			el("h-1", "heading", "", map[string]any{"level": 1, "text": "Setup guide"}),
			el("t-1", "text", "", map[string]any{"text": "Install it first."}),
			el("i-1", "image", "", map[string]any{"url": "img/arch.png", "alt": "architecture", "description": "How the parts talk"}),
		}},
		protocol.DPEPage{Title: "Running", Elements: []protocol.DPEElementDetail{
			el("h-2", "heading", "", map[string]any{"level": 2, "text": "Running"}),
			el("t-2", "text", "", map[string]any{"text": "Then run it."}),
		}})
	dir := t.TempDir()
	o := testOptions()
	o.Computer, o.SaveDir = "laptop", dir
	f := newFake()
	f.docs = []fakeDoc{doc}
	hs := newHarness(t, f, o, 100, 30)
	hs.press("s")
	got, err := os.ReadFile(filepath.Join(dir, "guide.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(got), "Setup guide"); n != 1 {
		t.Errorf("the title is said %d times:\n%s", n, got)
	}
	if !strings.Contains(string(got), `![architecture](img/arch.png "How the parts talk")`) {
		t.Errorf("the image lost its title:\n%s", got)
	}
	if n := strings.Count(string(got), "Running"); n != 1 {
		t.Errorf("the second page's heading is said %d times:\n%s", n, got)
	}
	hs.press("enter", "enter", "s")
	page, err := os.ReadFile(filepath.Join(dir, "guide-page-1.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), "Setup guide"); n != 1 {
		t.Errorf("the saved page says its title %d times:\n%s", n, page)
	}
}

// Issue 23.9: without --save-dir, `s` saves into the Downloads folder (as
// a web browser does), never into the folder the browser was started in.
func TestDefaultSaveDirIsDownloads(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	t.Chdir(cwd)
	env := map[string]string{"HOME": home}
	o := testOptions()
	o.Computer = "laptop"
	hs := newHarness(t, newFake(), o, 100, 30)
	hs.fakeSystem(env)
	hs.press("s")
	want := filepath.Join(home, "Downloads", "notes.md")
	if _, err := os.Stat(want); err != nil {
		t.Fatalf("not saved to %s (%v):\n%s", want, err, hs.screen())
	}
	if entries, _ := os.ReadDir(cwd); len(entries) != 0 {
		t.Errorf("the working folder got %v", entries)
	}

	// The desktop's own Downloads folder (xdg-user-dirs), wherever it is.
	if err := os.MkdirAll(filepath.Join(home, ".config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".config", "user-dirs.dirs"), []byte("# written by xdg-user-dirs-update\nXDG_DOWNLOAD_DIR=\"$HOME/下载\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hs = newHarness(t, newFake(), o, 100, 30)
	hs.fakeSystem(env)
	hs.press("s")
	if _, err := os.Stat(filepath.Join(home, "下载", "notes.md")); err != nil {
		t.Fatalf("not saved to the desktop's Downloads folder: %v\n%s", err, hs.screen())
	}
}
