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
				{Server: "alpha", URI: "window://a/low", Contents: text("al"), Priority: fp(0.1)},
				{Server: "alpha", URI: "window://a/high", Contents: text("ah"), Priority: fp(0.9)},
				{Server: "alpha", URI: "window://a/tie1", Contents: text("t1"), Priority: fp(0.1)},
				{Server: "beta", URI: "window://b/1", Contents: text("b1")},
			},
			history: []string{"zed", "beta", "zed"},
			want: []string{"window://z/1\n\nz1", "window://b/1\n\nb1",
				"window://a/high\n\nah", "window://a/low\n\nal", "window://a/tie1\n\nt1"},
		},
		{
			name: "annotations win over the seeds' query, which is read only when they say nothing and dropped from the identifier",
			windows: []Window{
				{Server: "a", URI: "window://a/1", Contents: text("1"), Priority: fp(0.2)},
				{Server: "a", URI: "window://a/2", Contents: text("2"), Priority: fp(0.9)},
				{Server: "a", URI: "window://a/3?priority=5", Contents: text("3"), Priority: fp(1)},
				{Server: "a", URI: "window://a/4?priority=50", Contents: text("4")},
				{Server: "a", URI: "window://a/5?priority=high", Contents: text("5"), Priority: fp(0.3)},
			},
			want: []string{"window://a/3\n\n3", "window://a/2\n\n2", "window://a/4\n\n4", "window://a/5\n\n5", "window://a/1\n\n1"},
		},
		{
			name: "priority outside [0, 1] counts as 0",
			windows: []Window{
				{Server: "a", URI: "window://a/big", Contents: text("big"), Priority: fp(5)},
				{Server: "a", URI: "window://a/neg", Contents: text("neg"), Priority: fp(-1)},
				{Server: "a", URI: "window://a/low", Contents: text("low"), Priority: fp(0.01)},
				{Server: "a", URI: "window://a/big-query?priority=100", Contents: text("bq"), Priority: fp(1.5)},
			},
			want: []string{"window://a/low\n\nlow", "window://a/big\n\nbig", "window://a/neg\n\nneg", "window://a/big-query\n\nbq"},
		},
		{
			name: "fullscreen per server: only the first one, others of that server dropped",
			windows: []Window{
				{Server: "a", URI: "window://a/1?priority=100", Contents: text("1")},
				{Server: "a", URI: "window://a/fs1?fullscreen=true", Contents: text("f1")},
				{Server: "a", URI: "window://a/fs2?fullscreen=yes&priority=99", Contents: text("f2")},
				{Server: "b", URI: "window://b/1", Contents: text("b1")},
				{Server: "b", URI: "window://b/2", Contents: text("b2"), Fullscreen: true},
				{Server: "c", URI: "window://c/1?fullscreen=true", Contents: text("c1"), Fullscreen: false},
				{Server: "c", URI: "window://c/2", Contents: text("c2"), Fullscreen: "yes"},
				{Server: "c", URI: "window://c/3", Contents: text("c3"), Fullscreen: 1.0},
			},
			want: []string{"window://a/fs1\n\nf1", "window://b/2\n\nb2", "window://c/1\n\nc1", "window://c/2\n\nc2", "window://c/3\n\nc3"},
		},
		{
			name: "an invalid query value no longer drops the window",
			windows: []Window{
				{Server: "a", URI: "window://a/x?priority=high&fullscreen=maybe", Contents: text("x")},
				{Server: "a", URI: "window://a/y?priority=101", Contents: text("y")},
				{Server: "a", URI: "window:///nohost", Contents: text("gone")},
			},
			want: []string{"window://a/x\n\nx", "window://a/y\n\ny"},
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

// Every rule of desktop.md that keeps a window but warns says so in the
// log, naming the window.
func TestOrganizeWarnings(t *testing.T) {
	tests := []struct {
		w    Window
		want string
	}{
		{Window{Server: "a", URI: "window://a/q?priority=5", Contents: text("x")}, `\"?priority=5\" is dropped from its identifier`},
		{Window{Server: "a", URI: "window://a/q?priority=high", Contents: text("x")}, `priority \"high\" must be an integer in [0, 100]; ignored`},
		{Window{Server: "a", URI: "window://a/p", Contents: text("x"), Priority: fp(1.2)}, "annotations.priority is outside [0, 1]"},
		{Window{Server: "a", URI: "window://a/f", Contents: text("x"), Fullscreen: "true"}, "_meta.fullscreen is not a boolean"},
		{Window{Server: "a", URI: "window://a/u", Contents: text("x"), Audience: []string{"user"}}, "audience does not include the assistant"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
		if got := Organize([]Window{tt.w}, nil, nil, log); len(got) != 1 {
			t.Errorf("%s: window not shown: %q", tt.w.URI, got)
		}
		if out := buf.String(); !strings.Contains(out, "level=WARN") || !strings.Contains(out, tt.want) || !strings.Contains(out, tt.w.URI) {
			t.Errorf("%s: log %q lacks %q", tt.w.URI, out, tt.want)
		}
	}
	// No warning for a window that follows desktop.md.
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	Organize([]Window{{Server: "a", URI: "window://a/ok", Contents: text("x"), Priority: fp(0.5), Fullscreen: false,
		Audience: []string{"user", "assistant"}}}, nil, nil, log)
	if buf.Len() != 0 {
		t.Errorf("clean window warned: %q", buf.String())
	}
}

func TestIdentify(t *testing.T) {
	id, seed, warnings, err := Identify("window://h/a%2Fb/c?fullscreen=on&priority=40#top")
	if err != nil || id != "window://h/a%2Fb/c" || *seed.Priority != 40 || !*seed.Fullscreen || len(warnings) != 1 {
		t.Errorf("Identify = %q %+v %q %v", id, seed, warnings, err)
	}
	if id, _, warnings, err := Identify("window://h/x"); err != nil || id != "window://h/x" || warnings != nil {
		t.Errorf("plain URI: %q %q %v", id, warnings, err)
	}
	for _, bad := range []string{"dpe://h/x", "window://", "window://h/%zz"} {
		if _, _, _, err := Identify(bad); err == nil {
			t.Errorf("Identify(%q) accepted", bad)
		}
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
