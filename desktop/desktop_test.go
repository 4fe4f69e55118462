package desktop

import (
	"bytes"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

func ip(n int) *int         { return &n }
func bp(b bool) *bool       { return &b }
func fp(f float64) *float64 { return &f }

func TestParseWindowURI(t *testing.T) {
	ok := []struct {
		raw  string
		want WindowURI
	}{
		{"window://com.example.browser/main/tab1?priority=80&fullscreen=true",
			WindowURI{Host: "com.example.browser", Path: []string{"main", "tab1"}, Priority: ip(80), Fullscreen: bp(true)}},
		{"window://com.example.logger", WindowURI{Host: "com.example.logger"}},
		{"window://com.example.editor/src%2Fmain/file%20name", WindowURI{Host: "com.example.editor", Path: []string{"src/main", "file name"}}},
		{"window://h?priority=0", WindowURI{Host: "h", Priority: ip(0)}},
		{"window://h?priority=100", WindowURI{Host: "h", Priority: ip(100)}},
		{"window://h?fullscreen=1", WindowURI{Host: "h", Fullscreen: bp(true)}},
		{"window://h?fullscreen=YES", WindowURI{Host: "h", Fullscreen: bp(true)}},
		{"window://h?fullscreen=on", WindowURI{Host: "h", Fullscreen: bp(true)}},
		{"window://h?fullscreen=false", WindowURI{Host: "h", Fullscreen: bp(false)}},
		{"window://h?fullscreen=0", WindowURI{Host: "h", Fullscreen: bp(false)}},
		{"window://h?fullscreen=No", WindowURI{Host: "h", Fullscreen: bp(false)}},
		{"window://h?fullscreen=off", WindowURI{Host: "h", Fullscreen: bp(false)}},
		// other parameters are ignored, even when malformed; the first occurrence wins
		{"window://h/a?x=%zz&priority=%35%30&fullscreen=true&fullscreen=maybe#frag",
			WindowURI{Host: "h", Path: []string{"a"}, Priority: ip(50), Fullscreen: bp(true)}},
		{"WINDOW://h/a/", WindowURI{Host: "h", Path: []string{"a", ""}}},
	}
	for _, tt := range ok {
		t.Run(tt.raw, func(t *testing.T) {
			got, err := ParseWindowURI(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	bad := []struct {
		raw  string
		rule Rule
	}{
		{"", RuleScheme},
		{"dpe://h/x", RuleScheme},
		{"window:/h", RuleScheme},
		{"window://", RuleHost},
		{"window:///path", RuleHost},
		{"window://h?priority=101", RulePriority},
		{"window://h?priority=-1", RulePriority},
		{"window://h?priority=high", RulePriority},
		{"window://h?priority=1.5", RulePriority},
		{"window://h?fullscreen=maybe", RuleFullscreen},
		{"window://h?fullscreen=", RuleFullscreen},
		{"window://h/a%zz", RulePath},
		{"window://h?priority=", RulePriority},
		{"window://h?priority=%zz", RulePriority},
		{"window://h?priority=+5", RulePriority},
		{"window://h?utm=%zz&priority=7;x=1&priority=9", RulePriority},
		{"window://h?fullscreen=%zz", RuleFullscreen},
		{"window://h h/x", RuleHost},
	}
	for _, tt := range bad {
		t.Run("reject "+tt.raw, func(t *testing.T) {
			_, err := ParseWindowURI(tt.raw)
			ue, ok := err.(*URIError)
			if !ok {
				t.Fatalf("err = %v, want *URIError", err)
			}
			if ue.Rule != tt.rule {
				t.Errorf("rule = %d, want %d (%v)", ue.Rule, tt.rule, err)
			}
		})
	}
}

func text(s string) []protocol.ResourceContents {
	return []protocol.ResourceContents{{URI: "x", MIMEType: "text/plain", Text: s}}
}

func TestOrganize(t *testing.T) {
	blob := []protocol.ResourceContents{{URI: "x", Blob: "AAAA"}}
	tests := []struct {
		name    string
		windows []Window
		size    *int
		history []string
		want    []string
	}{
		{name: "empty", want: []string{}},
		{name: "size zero", windows: []Window{{Server: "a", URI: "window://a/w", Contents: text("x")}}, size: ip(0), want: []string{}},
		{name: "size negative", windows: []Window{{Server: "a", URI: "window://a/w", Contents: text("x")}}, size: ip(-1), want: []string{}},
		{
			name: "drops invalid, empty and blob-only; joins texts; blob parts skipped",
			windows: []Window{
				{Server: "a", URI: "dpe://a/w", Contents: text("x")},
				{Server: "a", URI: "window://a/empty"},
				{Server: "a", URI: "window://a/blob", Contents: blob},
				{Server: "a", URI: "window://a/mixed", Contents: append(text("one"), append(blob, text("two")...)...)},
				{Server: "a", URI: "window://a/notext", Contents: text("")},
			},
			want: []string{"window://a/mixed\n\none\n\ntwo", "window://a/notext"},
		},
		{
			name: "servers by history then alphabetical; priority desc inside; ties in input order",
			windows: []Window{
				{Server: "zed", URI: "window://z/1", Contents: text("z1")},
				{Server: "alpha", URI: "window://a/low?priority=10", Contents: text("al")},
				{Server: "alpha", URI: "window://a/high?priority=90", Contents: text("ah")},
				{Server: "alpha", URI: "window://a/tie1?priority=10", Contents: text("t1")},
				{Server: "beta", URI: "window://b/1", Contents: text("b1")},
			},
			history: []string{"zed", "beta", "zed"},
			want: []string{"window://z/1\n\nz1", "window://b/1\n\nb1",
				"window://a/high?priority=90\n\nah", "window://a/low?priority=10\n\nal", "window://a/tie1?priority=10\n\nt1"},
		},
		{
			name: "annotation priority and _meta fullscreen used when the query has none",
			windows: []Window{
				{Server: "a", URI: "window://a/1", Contents: text("1"), Priority: fp(0.2)},
				{Server: "a", URI: "window://a/2", Contents: text("2"), Priority: fp(0.9)},
				{Server: "a", URI: "window://a/3?priority=50", Contents: text("3"), Priority: fp(1)},
			},
			want: []string{"window://a/2\n\n2", "window://a/3?priority=50\n\n3", "window://a/1\n\n1"},
		},
		{
			name: "fullscreen per server: only the first one, others of that server dropped",
			windows: []Window{
				{Server: "a", URI: "window://a/1?priority=100", Contents: text("1")},
				{Server: "a", URI: "window://a/fs1?fullscreen=true", Contents: text("f1")},
				{Server: "a", URI: "window://a/fs2?fullscreen=yes&priority=99", Contents: text("f2")},
				{Server: "b", URI: "window://b/1", Contents: text("b1")},
				{Server: "b", URI: "window://b/2", Contents: text("b2"), Fullscreen: bp(true)},
				{Server: "c", URI: "window://c/1?fullscreen=false", Contents: text("c1"), Fullscreen: bp(true)},
			},
			want: []string{"window://a/fs1?fullscreen=true\n\nf1", "window://b/2\n\nb2", "window://c/1?fullscreen=false\n\nc1"},
		},
		{
			name: "global size cut across servers",
			windows: []Window{
				{Server: "a", URI: "window://a/1", Contents: text("1")},
				{Server: "a", URI: "window://a/2", Contents: text("2")},
				{Server: "b", URI: "window://b/1", Contents: text("3")},
			},
			size: ip(2),
			want: []string{"window://a/1\n\n1", "window://a/2\n\n2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Organize(tt.windows, tt.size, tt.history, nil)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestOrganizeWarnsOnBlob(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	got := Organize([]Window{{Server: "a", URI: "window://a/img", Contents: []protocol.ResourceContents{{URI: "x", Blob: "AAAA"}}}}, nil, nil, log)
	if len(got) != 0 {
		t.Errorf("blob-only window rendered: %q", got)
	}
	if !strings.Contains(buf.String(), "level=WARN") || !strings.Contains(buf.String(), "window://a/img") {
		t.Errorf("no warning naming the window was logged: %q", buf.String())
	}
}

func FuzzParseWindowURI(f *testing.F) {
	for _, s := range []string{"window://h", "window://h/a%2Fb/c?priority=5&fullscreen=on", "window://", "x", "window://h/%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		w, err := ParseWindowURI(raw)
		if err != nil {
			return
		}
		s := w.String()
		w2, err := ParseWindowURI(s)
		if err != nil {
			t.Fatalf("String() = %q does not parse: %v", s, err)
		}
		if !reflect.DeepEqual(w, w2) || w2.String() != s {
			t.Fatalf("round trip changed %q: %+v vs %+v", raw, w, w2)
		}
	})
}

func BenchmarkOrganize1000(b *testing.B) {
	ws := make([]Window, 1000)
	for i := range ws {
		ws[i] = Window{Server: fmt.Sprintf("s%d", i%10), URI: fmt.Sprintf("window://h%d/w%d?priority=%d", i%10, i, i%100), Contents: text("body")}
	}
	b.ReportAllocs()
	for b.Loop() {
		Organize(ws, nil, []string{"s3"}, nil)
	}
}
