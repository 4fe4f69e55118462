package tui

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/pages"
)

// manualTicks replaces the timer with one the test fires by hand.
func (h *harness) manualTicks() *[]func(time.Time) tea.Msg {
	var ticks []func(time.Time) tea.Msg
	h.app.c.Tick = func(_ time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		ticks = append(ticks, fn)
		return nil
	}
	return &ticks
}

func startOn(t *testing.T, f *fakeBackend, computer string, w, h int) *harness {
	o := testOptions()
	o.Computer = computer
	return newHarness(t, f, o, w, h)
}

func (h *harness) crumbs() string {
	return strings.SplitN(h.screen(), "\n", 2)[0]
}

func TestNavigationInAndBack(t *testing.T) {
	hs := newHarness(t, newFake(), testOptions(), 100, 30)
	hs.requireContains("Computers in office-1", "build-box", "laptop")
	hs.press("down", "enter")
	if got := hs.crumbs(); !strings.Contains(got, "office-1 › laptop") {
		t.Fatalf("crumbs after opening laptop: %q", got)
	}
	hs.requireContains("1–7 of 7", "2026 年度报告")

	hs.press("j", "j", "j", "l") // l opens too
	hs.requireContains("2026 年度报告", "file file:///data/docs/rpt-2026.xlsx", "收入分析", "3 elements")
	hs.press("j", "right") // → opens too
	if got := hs.crumbs(); !strings.Contains(got, "2026 年度报告 › page 2/3") {
		t.Fatalf("crumbs on page 2: %q", got)
	}
	hs.requireContains("新客户", "SUM(B2:B5)")
	hs.press("e", "j", "enter")
	if got := hs.crumbs(); !strings.HasSuffix(strings.TrimSpace(got), "page 2/3 › lst-001") {
		t.Fatalf("crumbs on the element: %q", got)
	}
	hs.requireContains("list  lst-001 · page 2", "── Content", `"ordered": true`)

	// Every back key works; the element list closes before leaving the page.
	hs.press("backspace")
	hs.requireContains("Elements (3)")
	hs.press("h")
	hs.requireNotContains("Elements (3)")
	hs.press("left")
	hs.requireContains("Pages  1–3 of 3")
	hs.press("esc")
	hs.requireContains("Catalog · laptop")
	hs.press("esc")
	hs.requireContains("Computers in office-1")
	hs.press("esc") // the root stays
	hs.requireContains("Computers in office-1")
}

func TestQuitAndHelp(t *testing.T) {
	hs := startOn(t, newFake(), "laptop", 100, 30)
	hs.press("?")
	hs.requireContains("Keys", "open in $PAGER", "file type", "press any key to close")
	hs.press("j") // closes the help, does not move
	hs.requireNotContains("press any key to close")
	hs.requireContains("▸ Meeting notes")

	// While the filter field has the keyboard, q is text.
	hs.manualTicks()
	hs.press("/", "q")
	if hs.quit {
		t.Fatal("q in the filter field quit the browser")
	}
	hs.requireContains("/ q")
	hs.press("esc", "q")
	if !hs.quit {
		t.Fatal("q did not quit")
	}
}

func TestCatalogFilterIsDebouncedAndStaleTicksIgnored(t *testing.T) {
	f := newFake()
	hs := startOn(t, f, "laptop", 100, 30)
	ticks := hs.manualTicks()
	before := f.countCalls("get_finder")

	hs.press("/")
	hs.typeText("gu")
	hs.settle()
	if n := f.countCalls("get_finder"); n != before {
		t.Fatalf("typing queried the computer before the pause: %d calls", n-before)
	}
	if len(*ticks) != 2 {
		t.Fatalf("want one debounce timer per keystroke, got %d", len(*ticks))
	}
	hs.send((*ticks)[0](time.Now())) // the first keystroke's timer is stale
	hs.settle()
	if n := f.countCalls("get_finder"); n != before {
		t.Fatalf("a stale debounce timer queried the computer")
	}
	hs.send((*ticks)[1](time.Now()))
	hs.settle()
	if n := f.countCalls("get_finder [gu]"); n != 1 {
		t.Fatalf("want exactly one query for [gu], log: %v", f.callLog())
	}
	hs.requireContains("1–2 of 2", "README — smcp-browse", "Onboarding guide")

	hs.typeText(",hr")
	hs.settle()
	hs.send((*ticks)[len(*ticks)-1](time.Now()))
	hs.settle()
	hs.requireContains("1–1 of 1", "Onboarding guide") // words narrow: gu AND hr
	hs.requireNotContains("README — smcp-browse")
	if f.countCalls("get_finder [gu hr]") != 1 {
		t.Fatalf("keywords are not split on commas: %v", f.callLog())
	}

	// Enter applies at once; esc on the catalog clears the filter.
	hs.press("backspace", "backspace", "backspace", "enter")
	hs.requireContains("keywords: gu", "1–2 of 2")
	hs.press("esc")
	hs.requireContains("1–7 of 7", "no filter")
}

func TestCatalogDropsStaleResponses(t *testing.T) {
	f := newFake()
	hs := startOn(t, f, "laptop", 100, 30)
	ticks := hs.manualTicks()

	releaseA := f.holdCalls("[合同]")
	releaseB := f.holdCalls("[guide]")
	hs.press("/")
	hs.typeText("合同")
	hs.send((*ticks)[len(*ticks)-1](time.Now())) // query A goes out and is held
	hs.settle()
	hs.press("backspace", "backspace")
	hs.typeText("guide")
	hs.send((*ticks)[len(*ticks)-1](time.Now())) // query B goes out and is held
	hs.settle()
	if f.blockedCalls() != 2 {
		t.Fatalf("want both queries in flight, %d held; log %v", f.blockedCalls(), f.callLog())
	}
	releaseB()
	hs.settle()
	hs.requireContains("README — smcp-browse", "Onboarding guide", "1–2 of 2")
	releaseA() // A answers last: the user already moved on
	hs.settle()
	hs.requireContains("README — smcp-browse", "Onboarding guide", "1–2 of 2")
	hs.requireNotContains("A1 合同")
}

func TestCatalogPagesThroughTenThousandDocuments(t *testing.T) {
	f := newFake()
	f.docs = bigCorpus(10000)
	hs := startOn(t, f, "laptop", 100, 30)
	hs.requireContains("1–25 of 10000", "Generated document number 0 ", "Generated document number 24 ")
	if n := f.countCalls("get_finder"); n != 1 {
		t.Fatalf("first screen made %d get_finder calls, want 1", n)
	}
	hs.press("pgdown")
	hs.requireContains("26–50 of 10000")
	hs.press("pgdown", "pgdown") // rows 76–100 need the second chunk
	hs.requireContains("76–100 of 10000", "Generated document number 99 ")
	if !slices.Contains(f.callLog(), "get_finder []||50|50") {
		t.Fatalf("scrolling past the first chunk did not fetch offset 50: %v", f.callLog())
	}
	hs.press("G")
	hs.requireContains("9976–10000 of 10000", "Generated document number 9999 ")
	log := f.callLog()
	if n := f.countCalls("get_finder"); n > 4 {
		t.Fatalf("jumping to the end fetched %d chunks, want only the visible ones: %v", n, log)
	}
	if !slices.Contains(log, "get_finder []||9950|50") {
		t.Fatalf("the last chunk was not requested: %v", log)
	}
	checkFrame(t, hs.app.View().Content, 100, 30)
}

func TestLiveUpdateKeepsSelectionAndSaysWhatChanged(t *testing.T) {
	f := newFake()
	hs := startOn(t, f, "laptop", 100, 30)
	hs.press("j", "j", "j")
	hs.requireContains("▸ 2026 年度报告")
	calls := f.countCalls("get_finder")

	f.mutate(func(docs *[]fakeDoc) {
		// two new documents sort above the selection, one is removed, one changes
		*docs = slices.DeleteFunc(*docs, func(d fakeDoc) bool { return d.sum.DocRef == "contract-a1" })
		for _, ref := range []string{"new-a", "new-b"} {
			d := mkDoc(testHost, ref, "docs", "md", "Fresh "+ref, nil, "", testNow.Add(-time.Minute),
				protocol.DPEPage{Title: "p"})
			*docs = append(*docs, d)
		}
		(*docs)[2].sum.Title = "README (edited)"
		(*docs)[2].sum.LastModified = testNow.Format(time.RFC3339)
	})
	hs.send(common.UpdateFinderMsg{Computer: "build-box"}) // another computer: ignored
	hs.settle()
	if f.countCalls("get_finder") != calls {
		t.Fatal("an update for another computer reloaded this catalog")
	}
	hs.send(common.UpdateFinderMsg{Computer: "laptop"})
	hs.settle()
	hs.requireContains("▸ 2026 年度报告", "catalog updated: +2 −1 ~1 documents", "1–8 of 8")
	hs.requireContains("● Fresh new-a", "● README (edited)")
	hs.requireNotContains("A1 合同")
}

// TestCursorMovedDuringAReloadStays: a reload remembers the selected
// document to keep it selected; a move the user makes while the reload is
// in flight is the newer choice and must not be undone when the answer
// lands (TestProgramPager lost a "j" this way under load).
func TestCursorMovedDuringAReloadStays(t *testing.T) {
	f := newFake()
	hs := startOn(t, f, "laptop", 100, 30)
	hs.requireContains("1–7 of 7")
	release := f.holdCalls("get_finder")
	hs.send(common.UpdateFinderMsg{Computer: "laptop"})
	hs.settle() // the reload's get_finder waits at the gate
	hs.press("j", "j", "j")
	hs.requireContains("▸ 2026 年度报告")
	release()
	hs.settle()
	hs.requireContains("▸ 2026 年度报告")
}

func TestLivePageReloadKeepsScroll(t *testing.T) {
	f := newFake()
	big := bigTablePage(300)
	f.docs = append(f.docs, mkDoc(testHost, "ledger", "docs", "xlsx", "Ledger", nil, "", testNow, *big))
	hs := startOn(t, f, "laptop", 100, 30)
	hs.press("enter", "enter") // the ledger is the newest document
	hs.requireContains("Page 1/1", "Ledger")
	for range 10 {
		hs.press("pgdown")
	}
	// The table's header is pinned at the top: the first row under it
	// says where the view is.
	firstRow := func() string {
		for _, l := range strings.Split(hs.screen(), "\n")[2:] {
			if l = strings.TrimSpace(l); l != "" && l[0] >= '0' && l[0] <= '9' {
				return l
			}
		}
		return ""
	}
	var top int
	if _, err := fmt.Sscanf(firstRow(), "%d", &top); err != nil || top < 200 {
		t.Fatalf("pgdown did not scroll: the view starts at %q", firstRow())
	}
	before := firstRow()
	f.mutate(func(docs *[]fakeDoc) {
		d := &(*docs)[len(*docs)-1]
		rows := d.pages[0].Elements[1].Content["rows"].([]any)
		rows[top+5] = []any{"EDITED", "changed row", "0", "x"}
	})
	hs.send(common.UpdateFinderMsg{Computer: "laptop"})
	hs.settle()
	if got := firstRow(); strings.Fields(got)[0] != strings.Fields(before)[0] {
		t.Fatalf("live reload moved the view from %q to %q", before, got)
	}
	hs.requireContains("EDITED")
}

func TestErrorsAreShownWhereTheyHappen(t *testing.T) {
	cases := []struct {
		name  string
		setup func(f *fakeBackend)
		keys  []string
		act   func(hs *harness, f *fakeBackend)
		want  []string
	}{
		{
			name: "document deleted while open",
			keys: []string{"j", "j", "j", "enter"},
			act: func(hs *harness, f *fakeBackend) {
				f.mutate(func(docs *[]fakeDoc) { *docs = (*docs)[1:] })
				hs.send(common.UpdateFinderMsg{Computer: "laptop"})
			},
			want: []string{"4201 · this document no longer exists", "2026 年度报告"},
		},
		{
			name: "page gone out of range",
			keys: []string{"j", "j", "j", "enter", "G", "enter"},
			act: func(hs *harness, f *fakeBackend) {
				f.mutate(func(docs *[]fakeDoc) { (*docs)[0].pages = (*docs)[0].pages[:1] })
				hs.send(common.UpdateFinderMsg{Computer: "laptop"})
			},
			want: []string{"4202 · this page is out of range"},
		},
		{
			name: "element deleted",
			keys: []string{"j", "j", "j", "enter", "enter", "e", "j", "j", "enter"},
			act: func(hs *harness, f *fakeBackend) {
				f.mutate(func(docs *[]fakeDoc) {
					p := &(*docs)[0].pages[0]
					p.Elements = p.Elements[:2]
				})
				hs.send(common.UpdateFinderMsg{Computer: "laptop"})
			},
			want: []string{"4203 · this element no longer exists"},
		},
		{
			name:  "finder timeout",
			setup: func(f *fakeBackend) { f.setErr("get_finder", fmtErr(context.DeadlineExceeded)) },
			want:  []string{"408 · timed out waiting for the computer"},
		},
		{
			name: "finder not supported",
			setup: func(f *fakeBackend) {
				f.setErr("get_finder", protocol.Errorf(protocol.CodeNotFound, "unknown event client:get_finder"))
			},
			want: []string{"404 · not supported by this computer"},
		},
		{
			name: "computer left",
			act: func(hs *harness, f *fakeBackend) {
				hs.send(common.LeaveOfficeMsg{Name: "laptop", Role: "computer"})
			},
			want: []string{"computer left the office", "2026 年度报告"},
		},
		{
			name: "backend panics",
			act: func(hs *harness, f *fakeBackend) {
				hs.app.c.Backend = panicky{f}
				hs.press("r")
			},
			want: []string{"backend panic: boom"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			if tc.setup != nil {
				tc.setup(f)
			}
			hs := startOn(t, f, "laptop", 100, 30)
			hs.press(tc.keys...)
			if tc.act != nil {
				tc.act(hs, f)
				hs.settle()
			}
			hs.requireContains(tc.want...)
			checkFrame(t, hs.app.View().Content, 100, 30)
		})
	}
}

func fmtErr(err error) error { return errors.Join(errors.New("get_finder"), err) }

// panicky is a backend whose catalog call panics.
type panicky struct{ *fakeBackend }

func (panicky) GetFinder(context.Context, string, protocol.FinderQuery) (*protocol.GetFinderRet, error) {
	panic("boom")
}

func TestBadDocumentURIShowsCode(t *testing.T) {
	f := newFake()
	hs := startOn(t, f, "laptop", 100, 30)
	hs.send(common.PushMsg{Screen: pages.NewDocument(hs.app.c, "laptop", protocol.DPEDocumentSummary{URI: "http://not-dpe/x", Title: "x"})})
	hs.settle()
	hs.requireContains("4204 · the dpe:// URI is invalid")
}

func TestEveryFrameFitsTheTerminal(t *testing.T) {
	sizes := [][2]int{{20, 6}, {40, 12}, {60, 20}, {100, 30}, {120, 40}, {200, 60}}
	walk := [][]string{nil, {"j", "j", "j", "enter"}, {"enter"}, {"e"}, {"enter"}, {"esc", "esc", "m"}, {"m"}, {"c"}, {"esc", "/", "Q"}, {"enter", "d"}, {"?"}}
	for _, sz := range sizes {
		f := newFake()
		hs := startOn(t, f, "laptop", sz[0], sz[1])
		for i, step := range walk {
			hs.press(step...)
			checkFrame(t, hs.app.View().Content, sz[0], sz[1])
			if t.Failed() {
				t.Fatalf("size %dx%d, step %d (%v):\n%s", sz[0], sz[1], i, step, hs.screen())
			}
		}
	}
}

func TestResizeReRendersThePage(t *testing.T) {
	hs := startOn(t, newFake(), "laptop", 100, 30)
	hs.press("j", "j", "j", "enter", "enter")
	hs.requireContains("Q4 达到最高点 1,560 万元")
	hs.send(tea.WindowSizeMsg{Width: 50, Height: 20})
	hs.settle()
	checkFrame(t, hs.app.View().Content, 50, 20)
	hs.requireContains("达到最高点 1,560 万元") // the text wraps: nothing is cut off
	hs.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	hs.settle()
	hs.requireContains("Q4 达到最高点 1,560 万元") // one line again (the render cache: components/viewer)
}

func TestPageFeatures(t *testing.T) {
	f := newFake()
	hs := startOn(t, f, "laptop", 100, 30)
	hs.press("j", "j", "j", "enter", "enter")

	hs.press("[") // first page: nothing before it
	hs.requireContains("Page 1/3")
	hs.press("]")
	hs.requireContains("Page 2/3  收入分析")
	hs.press("]", "]") // stops at the last page
	hs.requireContains("Page 3/3  成本")
	hs.press("[", "[")
	hs.requireContains("Page 1/3  概览")

	// Category filter: re-requested with categories=
	hs.press("c", "j", "j", "j", "j", "space", "enter")
	if !slices.Contains(f.callLog(), "read_json dpe://com.smcp.docs/rpt-2026/pages/0?categories=table") {
		t.Fatalf("no categories= read: %v", f.callLog())
	}
	hs.requireContains("categories: table", "1,560")
	hs.requireNotContains("季度收入趋势")
	hs.press("c", "a", "enter")
	hs.requireContains("季度收入趋势")

	// Search with n/N.
	hs.press("/")
	hs.typeText("q4")
	hs.press("enter")
	hs.requireContains("match 1/3 “q4”")
	hs.press("n")
	hs.requireContains("match 2/3")
	hs.press("N", "N")
	hs.requireContains("match 3/3")
	hs.press("esc") // clears the search before leaving
	hs.requireNotContains("match")
	hs.requireContains("Page 1/3")

	// Modes.
	hs.press("m")
	hs.requireContains("raw JSON", `"element_id": "h-001"`)
	hs.press("m")
	hs.requireContains("plain text", "Q4      1,560   +18%", "Chart: 季度收入趋势")
	hs.press("m")
	hs.requireContains("rendered")
}

// TestCopySaysWhatHappened: y uses a clipboard program when there is one,
// tmux's buffer inside tmux, else OSC 52, and the notice says which (OSC 52
// may be ignored by the terminal: the notice does not claim success).
func TestCopySaysWhatHappened(t *testing.T) {
	const doc = "dpe://com.smcp.docs/rpt-2026"
	for _, tc := range []struct {
		name  string
		env   map[string]string
		tools []string
		fail  string // a tool that fails
		want  string // in the notice
		ran   string // the program that got the text, "" for none
		osc   bool   // OSC 52 written to the terminal
	}{
		{"wayland", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, []string{"wl-copy", "xclip"}, "", "copied with wl-copy: " + doc, "wl-copy", false},
		{"x11", map[string]string{"DISPLAY": ":0"}, []string{"wl-copy", "xclip"}, "", "copied with xclip: " + doc, "xclip", false},
		{"x11 tool fails, next one", map[string]string{"DISPLAY": ":0"}, []string{"xclip", "xsel"}, "xclip", "copied with xsel: " + doc, "xsel", false},
		{"macos", nil, []string{"pbcopy"}, "", "copied with pbcopy: " + doc, "pbcopy", false},
		{"tmux", map[string]string{"TMUX": "/tmp/tmux-1/default,1,0"}, []string{"tmux"}, "", "in tmux's buffer (the terminal gets it if set-clipboard is on)", "tmux", false},
		{"tool present but no display", nil, []string{"xclip"}, "", "OSC 52 sent, the terminal may ignore it (no clipboard program)", "", true},
		{"only tool fails", map[string]string{"DISPLAY": ":0"}, []string{"xclip"}, "xclip", "OSC 52 sent, the terminal may ignore it (xclip: exit status 1)", "", true},
		{"nothing", nil, nil, "", "OSC 52 sent, the terminal may ignore it (no clipboard program): " + doc, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var clip bytes.Buffer
			o := testOptions()
			o.Computer, o.Clipboard = "laptop", &clip
			hs := newHarness(t, newFake(), o, 100, 30)
			sys := hs.fakeSystem(tc.env, tc.tools...)
			sys.failing = tc.fail
			hs.press("j", "j", "j", "y")
			if n := hs.app.c.Notice; !strings.Contains(n, tc.want) {
				t.Errorf("notice %q, want %q", n, tc.want)
			}
			if got := sys.lastRun(); got.name != tc.ran || (tc.ran != "" && got.stdin != doc) {
				t.Errorf("ran %+v, want %s with the URI", got, tc.ran)
			}
			want := ""
			if tc.osc {
				want = "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(doc)) + "\a"
			}
			if clip.String() != want {
				t.Errorf("terminal got %q, want %q", clip.String(), want)
			}
		})
	}
}

// TestSaveWholeDocument: s saves the whole document's text as Markdown (not
// its page list) from the catalog's highlighted row and from the document,
// into the save folder, and says the full path; on a page it saves the page.
func TestSaveWholeDocument(t *testing.T) {
	dir := t.TempDir()
	o := testOptions()
	o.Computer, o.SaveDir = "laptop", dir
	hs := newHarness(t, newFake(), o, 100, 30)

	hs.press("j", "j", "j", "s") // the catalog's highlighted document
	path := filepath.Join(dir, "rpt-2026.md")
	hs.requireContains("saved " + path)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"# 2026 年度报告", "# 2026 年度总结", "| Q4   |        1,560 |   +18%   |", "## 收入分析", "1. 新客户", "## 成本", "see the appendix"} {
		if !strings.Contains(string(got), s) {
			t.Errorf("saved document lacks %q:\n%s", s, got)
		}
	}
	hs.press("enter", "s") // the document screen: the same text, a new name
	hs.requireContains("saved " + filepath.Join(dir, "rpt-2026-2.md"))
	if again, _ := os.ReadFile(filepath.Join(dir, "rpt-2026-2.md")); string(again) != string(got) {
		t.Errorf("the document screen saved something else:\n%s", again)
	}
	hs.press("enter", "s") // a page saves the page
	hs.requireContains("saved " + filepath.Join(dir, "rpt-2026-page-1.md"))
	page, _ := os.ReadFile(filepath.Join(dir, "rpt-2026-page-1.md"))
	if !strings.Contains(string(page), "# 概览") || strings.Contains(string(page), "收入分析") {
		t.Errorf("page save:\n%s", page)
	}

	// A relative save folder is reported as a full path.
	rel := t.TempDir()
	t.Chdir(rel)
	o.SaveDir = "exports"
	hs = newHarness(t, newFake(), o, 100, 30)
	hs.press("s")
	full := filepath.Join(rel, "exports", "notes.md")
	if real, err := filepath.EvalSymlinks(rel); err == nil {
		full = filepath.Join(real, "exports", "notes.md")
	}
	hs.requireContains("saved " + full[:min(len(full), 60)])
	if _, err := os.Stat(full); err != nil {
		t.Fatal(err)
	}
}

// TestPagerAndEditorGetTheDocument: o pages the highlighted document's
// Markdown from a temporary file (removed afterwards); E opens a local
// document's own file in the editor, and a copy otherwise.
func TestPagerAndEditorGetTheDocument(t *testing.T) {
	o := testOptions()
	o.Computer = "laptop"
	hs := newHarness(t, newFake(), o, 100, 30)
	hs.press("j", "j", "j")
	msg := hs.app.exportCmd(usePager)()
	ex, ok := msg.(exportedMsg)
	if !ok || ex.err != nil || !strings.Contains(ex.md, "| Q1   |        1,250 |   +12%   |") || !strings.Contains(ex.md, "## 成本") {
		t.Fatalf("pager export: %#v", msg)
	}
	if hs.app.exported(ex) == nil {
		t.Fatal("no exec command for the pager")
	}

	local := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(local, []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFake()
	f.mutate(func(docs *[]fakeDoc) { (*docs)[5].sum.FileURI = "file://" + local })
	hs = newHarness(t, f, o, 100, 30)
	job, _ := hs.app.top().(common.Exporter).Export()
	if job.File != local {
		t.Fatalf("a local document's file: %q, want %q", job.File, local)
	}
	hs.press("j")
	if job, _ := hs.app.top().(common.Exporter).Export(); job.File != "" {
		t.Fatalf("a document whose file is not on this machine has file %q", job.File)
	}
	if m := (execDoneMsg{temp: local}).cleanup()(); m != nil {
		t.Fatalf("cleanup: %v", m)
	}
	if _, err := os.Stat(local); !os.IsNotExist(err) {
		t.Fatalf("temporary file left behind: %v", err)
	}
}

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{
		"rpt-2026":      "rpt-2026",
		"../../etc/pwd": "_.._etc_pwd",
		"a/b\\c":        "a_b_c",
		"...":           "export",
		"年度 报告":         "年度_报告",
	} {
		if got := safeName(in); got != want {
			t.Errorf("safeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDesktopLive(t *testing.T) {
	f := newFake()
	hs := startOn(t, f, "laptop", 100, 30)
	hs.press("d")
	hs.requireContains("Desktop · laptop · 2 windows", "window://com.example.logger", "indexing finished")
	calls := f.countCalls("get_desktop")
	f.mu.Lock()
	f.desktop = append(f.desktop, "window://com.example.editor/main.go\n\npackage main")
	f.mu.Unlock()
	hs.send(common.UpdateDesktopMsg{Computer: "build-box"})
	hs.settle()
	if f.countCalls("get_desktop") != calls {
		t.Fatal("a desktop update for another computer was followed")
	}
	hs.send(common.UpdateDesktopMsg{Computer: "laptop"})
	hs.settle()
	hs.requireContains("3 windows", "window://com.example.editor/main.go", "package main")
	hs.press("]")
	hs.requireContains("window 2/3")
	hs.press("esc")
	hs.requireContains("Catalog · laptop")
}

func TestComputersFollowEnterAndLeave(t *testing.T) {
	f := newFake()
	hs := newHarness(t, f, testOptions(), 100, 30)
	hs.requireContains("2 online")
	f.mu.Lock()
	f.computers = append(f.computers, "new-box")
	f.mu.Unlock()
	hs.send(common.EnterOfficeMsg{Name: "new-box", Role: "computer"})
	hs.settle()
	hs.requireContains("3 online", "new-box")
	hs.send(common.EnterOfficeMsg{Name: "other-agent", Role: "agent"}) // agents do not matter here
	f.mu.Lock()
	f.computers = []string{"laptop"}
	f.mu.Unlock()
	hs.send(common.LeaveOfficeMsg{Name: "build-box", Role: "computer"})
	hs.settle()
	hs.requireContains("1 online", "laptop")
	hs.requireNotContains("build-box")
}

func TestConnectionStateAndReconnectRefresh(t *testing.T) {
	f := newFake()
	hs := startOn(t, f, "laptop", 100, 30)
	hs.requireContains("● connected")
	hs.send(ConnStateMsg{State: ConnReconnecting})
	hs.settle()
	hs.requireContains("◌ reconnecting…")
	calls := f.countCalls("get_finder")
	hs.send(ConnStateMsg{State: ConnConnected})
	hs.settle()
	hs.requireContains("● connected", "catalog updated: no visible change")
	if f.countCalls("get_finder") == calls {
		t.Fatal("the catalog was not re-read after reconnecting")
	}
	hs.send(ConnStateMsg{State: ConnClosed})
	hs.settle()
	hs.requireContains("✕ closed")
}

func TestMouseIsOptIn(t *testing.T) {
	hs := startOn(t, newFake(), "laptop", 100, 30)
	if hs.app.View().MouseMode != tea.MouseModeNone {
		t.Fatal("mouse captured without Options.Mouse")
	}
	o := testOptions()
	o.Computer, o.Mouse = "laptop", true
	hs = newHarness(t, newFake(), o, 100, 30)
	if hs.app.View().MouseMode != tea.MouseModeCellMotion {
		t.Fatal("Options.Mouse did not enable the mouse")
	}
	hs.send(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	hs.settle()
	hs.requireContains("▸ 2026 年度报告") // wheel moves three rows
}

func TestThemeAndNoColor(t *testing.T) {
	hs := startOn(t, newFake(), "laptop", 100, 30)
	hs.press("j", "j", "j", "enter", "enter")
	dark := hs.app.View().Content
	if hs.app.c.Styles.Glamour != "dark" {
		t.Fatalf("default style %q", hs.app.c.Styles.Glamour)
	}
	hs.send(tea.BackgroundColorMsg{Color: whiteColor{}})
	hs.settle()
	if light := hs.app.View().Content; hs.app.c.Styles.Glamour != "light" || light == dark || ansi.Strip(light) != ansi.Strip(dark) {
		t.Fatalf("a light terminal did not redraw the same page in the light style (%q)", hs.app.c.Styles.Glamour)
	}

	o := testOptions()
	o.Computer, o.NoColor = "laptop", true
	hs = newHarness(t, newFake(), o, 100, 30)
	hs.press("j", "j", "j", "enter", "enter", "m")
	for _, s := range []string{hs.app.View().Content} {
		if strings.Contains(s, "\x1b[38;") || strings.Contains(s, "\x1b[48;") || strings.Contains(s, ";38;") {
			t.Fatalf("NO_COLOR frame has colours: %q", s)
		}
	}
}

type whiteColor struct{}

func (whiteColor) RGBA() (r, g, b, a uint32) { return 0xffff, 0xffff, 0xffff, 0xffff }

func TestUntrustedTextNeverReachesTheTerminal(t *testing.T) {
	hs := startOn(t, newFake(), "laptop", 100, 30)
	check := func() {
		t.Helper()
		raw := hs.app.View().Content
		for _, bad := range []string{"pwned", "\x1b]0;", "\x1b[2J", "http://evil", "\x07", "\x1b[31m"} {
			if strings.Contains(raw, bad) {
				t.Fatalf("frame carries %q from a document", bad)
			}
		}
	}
	check()
	hs.press("enter")
	check()
	hs.press("enter")
	check()
	hs.press("m")
	check()
	hs.press("m")
	check()
	hs.press("e", "enter")
	check()
	if title := hs.app.View().WindowTitle; strings.ContainsAny(title, "\x1b\x07") {
		t.Fatalf("window title %q", title)
	}
}

func TestNotificationBurstsAreCoalesced(t *testing.T) {
	f := newFake()
	hs := startOn(t, f, "laptop", 100, 30)
	hs.press("j", "j", "j", "enter", "enter")
	finder, pages, docs := f.countCalls("get_finder"), f.countCalls("read_json"), f.countCalls("read_document")
	release := f.holdCalls("")
	for range 20 {
		hs.send(common.UpdateFinderMsg{Computer: "laptop"})
	}
	hs.settle()
	release()
	hs.settle()
	if n := f.countCalls("get_finder") - finder; n > 2 {
		t.Errorf("20 notifications made %d catalog reloads, want at most 2", n)
	}
	if n := f.countCalls("read_document") - docs; n > 2 {
		t.Errorf("20 notifications made %d document reloads, want at most 2", n)
	}
	if n := f.countCalls("read_json") - pages; n > 2 {
		t.Errorf("20 notifications made %d page reloads, want at most 2", n)
	}
	hs.requireContains("Page 1/3", "1,560")
}

func TestResizeBurstRendersOnce(t *testing.T) {
	hs := startOn(t, newFake(), "laptop", 100, 30)
	hs.press("j", "j", "j", "enter", "enter")
	ticks := hs.manualTicks()
	for w := 61; w <= 70; w++ {
		hs.send(tea.WindowSizeMsg{Width: w, Height: 30})
	}
	hs.settle()
	if len(*ticks) != 10 {
		t.Fatalf("want one settle timer per resize, got %d", len(*ticks))
	}
	// The old render stays until the size settles (cut to the width, not
	// "rendering…"); components/viewer checks which render is shown.
	if !strings.Contains(hs.screen(), "达到最高点 1,560 万元…") {
		t.Fatalf("the old render is not shown, cut to the width:\n%s", hs.screen())
	}
	for _, tick := range (*ticks)[:9] {
		if _, cmd := hs.app.Update(tick(time.Now())); cmd != nil {
			t.Fatal("a superseded resize started a render")
		}
	}
	hs.send((*ticks)[9](time.Now()))
	hs.settle()
	hs.requireContains("Q4 达到最高点")
	checkFrame(t, hs.app.View().Content, 70, 30)
}

// A notification that comes before the catalog's first answer (the
// computer announces its documents as the browser opens) is not an
// "update" of a catalog the user never saw.
func TestFirstLoadIsNotReportedAsAnUpdate(t *testing.T) {
	f := newFake()
	release := f.holdCalls("get_finder")
	o := testOptions()
	o.Computer = "laptop"
	hs := newHarness(t, f, o, 100, 30)
	hs.requireContains("loading…")
	hs.send(common.UpdateFinderMsg{Computer: "laptop"})
	release()
	hs.settle()
	hs.requireContains("1–7 of 7")
	hs.requireNotContains("catalog updated", "(0 → 7)")
	// A later change is reported as usual.
	f.mutate(func(docs *[]fakeDoc) { *docs = (*docs)[1:] })
	hs.send(common.UpdateFinderMsg{Computer: "laptop"})
	hs.settle()
	hs.requireContains("catalog updated: −1 documents")
}

// Breadcrumbs show a long title whole when the path fits the terminal, and
// cut it when it does not.
func TestBreadcrumbsUseTheWidthThereIs(t *testing.T) {
	const title = "Go, Backwards Compatibility, and GODEBUG"
	for _, tc := range []struct {
		w    int
		want string
	}{
		{200, "office-1 › laptop › " + title + " › page 1/1"},
		{70, "office-1 › laptop › Go, Backwards Compatibility, an… › page 1/1"},
	} {
		f := newFake()
		f.docs = []fakeDoc{mkDoc(testHost, "godebug", "docs", "md", title, nil, "", testNow,
			protocol.DPEPage{Title: "Intro", Elements: []protocol.DPEElementDetail{el("t", "text", "x", map[string]any{"text": "x"})}})}
		hs := startOn(t, f, "laptop", tc.w, 30)
		hs.press("enter", "enter")
		if got := strings.TrimSpace(hs.crumbs()); got != tc.want {
			t.Errorf("at %d columns the crumbs are %q, want %q", tc.w, got, tc.want)
		}
	}
}

// A notification that changes nothing the user can see (the computer
// announcing its catalog as the browser opens) leaves the status bar alone.
func TestNotificationWithoutVisibleChangeIsQuiet(t *testing.T) {
	f := newFake()
	hs := startOn(t, f, "laptop", 100, 30)
	calls := f.countCalls("get_finder")
	hs.send(common.UpdateFinderMsg{Computer: "laptop"})
	hs.settle()
	if f.countCalls("get_finder") == calls {
		t.Fatal("the notification did not re-read the catalog")
	}
	hs.requireNotContains("catalog updated")
	hs.press("r") // asked for: answered
	hs.requireContains("catalog refreshed")
}

// An entry the computer lists before it has read the document (pending)
// shows "…" for its pages, not "0p", and the preview says it is being
// read; once read, its page count shows.
func TestPendingEntriesShowNoPageCount(t *testing.T) {
	f := newFake()
	setPending := func(pending bool, pages int) {
		f.mutate(func(docs *[]fakeDoc) {
			for i := range *docs {
				if d := &(*docs)[i]; d.sum.FileType == "txt" {
					d.sum.Pending, d.sum.PageCount = pending, pages
				}
			}
		})
	}
	setPending(true, 0)
	hs := startOn(t, f, "laptop", 140, 30)
	row := func() string {
		for l := range strings.SplitSeq(hs.screen(), "\n") {
			if strings.Contains(l, "Meeting notes") && strings.Contains(l, "TXT ") {
				return l
			}
		}
		return ""
	}
	if r := row(); !strings.Contains(r, "… docs") || strings.Contains(r, "0p") {
		t.Errorf("pending row: %q", r)
	}
	hs.requireContains("TXT · being read")
	setPending(false, 1)
	hs.send(common.UpdateFinderMsg{Computer: "laptop"})
	hs.settle()
	if r := row(); !strings.Contains(r, "1p docs") {
		t.Errorf("read row: %q", r)
	}
	hs.requireContains("TXT · 1 page")
}

// While the computer is still listing its documents (a big folder just
// served), the catalog's count is a lower bound and says so; the
// notify:update_finder that follows the listing clears it.
func TestCatalogSaysWhileTheComputerIsListing(t *testing.T) {
	f := newFake()
	f.mu.Lock()
	f.listing = true
	f.mu.Unlock()
	hs := startOn(t, f, "laptop", 120, 30)
	hs.requireContains("so far · listing…")
	f.mu.Lock()
	f.listing = false
	f.mu.Unlock()
	hs.send(common.UpdateFinderMsg{Computer: "laptop"})
	hs.settle()
	hs.requireNotContains("listing…")
}
