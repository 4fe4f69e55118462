package pager

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/styles"
)

func TestPagerSearchHighlightsStyledCJKText(t *testing.T) {
	st := styles.New(true, true) // attributes only: reverse marks the current match
	p := New()
	p.SetSize(40, 3)
	p.SetContent("\x1b[1m季度\x1b[0m │ 收入（万元）\nplain 收入 line\nnothing")
	if n := p.Search("收入"); n != 2 {
		t.Fatalf("want 2 matches, got %d: %+v", n, p.matches)
	}
	if m := p.matches[0]; m.line != 0 || m.start != 7 || m.end != 11 {
		t.Fatalf("first match at %+v, want line 0 cells 7-11", m)
	}
	out := p.View(st)
	lines := strings.Split(out, "\n")
	if got := ansi.Strip(lines[0]); got != "季度 │ 收入（万元）" {
		t.Fatalf("highlighting changed the text: %q", got)
	}
	if !strings.Contains(lines[0], "\x1b[7m收入") {
		t.Fatalf("current match not shown in reverse video: %q", lines[0])
	}
	if strings.Contains(lines[1], "\x1b[7m") || !strings.Contains(lines[1], "\x1b[4;4m收") {
		t.Fatalf("other match not underlined: %q", lines[1])
	}
	p.Next(1)
	lines = strings.Split(p.View(st), "\n")
	if strings.Contains(lines[0], "\x1b[7m") || !strings.Contains(lines[1], "\x1b[7m收入") {
		t.Fatalf("n did not move the current match to line 2: %q", lines[:2])
	}
	if p.MatchStatus() != "match 2/2 “收入”" {
		t.Fatalf("status %q", p.MatchStatus())
	}
	p.Next(1)
	if p.cur != 0 {
		t.Fatal("next does not wrap around")
	}
	p.Next(-1)
	if p.cur != 1 {
		t.Fatal("prev does not wrap around")
	}
	if p.Search("absent") != 0 || p.MatchStatus() != "no match for “absent”" {
		t.Fatalf("status %q", p.MatchStatus())
	}
}

func TestPagerScrollingAndReveal(t *testing.T) {
	var b strings.Builder
	for i := range 100 {
		b.WriteString("line " + common.Itoa(i) + "\n")
	}
	p := New()
	p.SetSize(20, 10)
	p.SetContent(b.String())
	p.SetY(500)
	if p.y != 90 {
		t.Fatalf("y not clamped to the last screen: %d", p.y)
	}
	p.SetY(0)
	p.Search("line 75")
	if p.y > 75 || p.y+10 <= 75 {
		t.Fatalf("search did not reveal line 75: y=%d", p.y)
	}
	y := p.y
	p.SetContent(b.String()) // same content again, e.g. a live reload
	if p.y != y || len(p.matches) != 1 {
		t.Fatalf("reload lost the position or the search: y=%d matches=%d", p.y, len(p.matches))
	}
	p.SetContent("short")
	if p.y != 0 {
		t.Fatalf("shorter content left y=%d", p.y)
	}
	if got := strings.Count(p.View(styles.New(true, false)), "\n"); got != 9 {
		t.Fatalf("view must fill the height with %d lines, got %d", 10, got+1)
	}
}

func TestPagerTruncatesWideLines(t *testing.T) {
	p := New()
	p.SetSize(10, 2)
	p.SetContent("\x1b[31m" + strings.Repeat("年", 20) + "\x1b[0m\nok")
	for _, l := range strings.Split(p.View(styles.New(true, false)), "\n") {
		if w := ansi.StringWidth(l); w > 10 {
			t.Fatalf("line %q is %d cells", l, w)
		}
	}
}
