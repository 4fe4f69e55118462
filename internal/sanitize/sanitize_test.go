package sanitize

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

func TestText(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"plain ascii", "hello world", "hello world"},
		{"unicode kept", "2026 年度报告 — résumé 🚀", "2026 年度报告 — résumé 🚀"},
		{"newline and tab kept", "a\tb\nc", "a\tb\nc"},
		{"crlf folds", "a\r\nb", "a\nb"},
		{"lone cr becomes newline", "secret\rvisible", "secret\nvisible"},
		{"sgr colour", "\x1b[31mred\x1b[0m", "red"},
		{"clear screen", "a\x1b[2Jb", "ab"},
		{"cursor move with params", "a\x1b[10;20Hb", "ab"},
		{"private mode", "\x1b[?1049hx", "x"},
		{"osc title with bel", "\x1b]0;pwned\x07title", "title"},
		{"osc hyperlink with st", "\x1b]8;;http://evil\x1b\\Ann\x1b]8;;\x1b\\", "Ann"},
		{"osc 52 clipboard", "x\x1b]52;c;ZXZpbA==\x07y", "xy"},
		{"dcs", "a\x1bP1$r0m\x1b\\b", "ab"},
		{"apc", "a\x1b_payload\x1b\\b", "ab"},
		{"two byte escape", "a\x1b7b\x1bcc", "abc"},
		{"charset designation", "a\x1b(Bb", "ab"},
		{"bel backspace del", "a\x07b\x08c\x7fd", "abcd"},
		{"nul and other c0", "a\x00b\x01c\x1fd", "abcd"},
		{"c1 csi encoded: shown, nothing after it lost", "a\u009b31mb", "a⟨U+009B⟩31mb"},
		{"c1 before a letter (issue 23.11)", "a C1 \u009bcontrol", "a C1 ⟨U+009B⟩control"},
		{"c1 osc encoded", "a\u009d0;x\u009cb", "a⟨U+009D⟩0;x⟨U+009C⟩b"},
		{"c1 other", "a\u0085b", "a⟨U+0085⟩b"},
		{"raw 8-bit csi", "a\x9b31mb", "ab"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
		{"unterminated osc keeps text", "\x1b]0;rest of the text", "0;rest of the text"},
		{"trailing esc", "abc\x1b", "abc"},
		{"esc before non-ascii", "a\x1b年b", "a年b"},
		{"cjk with continuation byte 0x9c inside osc", "\x1b]0;本\x07x", "x"},
		{"malformed csi", "a\x1b[12\x01b", "ab"},
		{"unicode line separators end lines", "a\u2028b\u2029c", "a\nb\nc"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Text(tc.in); got != tc.want {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{
		"", "plain", "\x1b[31mred", "\x1b]0;t\x07", "\x1b]8;;u\x1b\\l", "\u009b1m", "\x9b1m",
		"\xff\xfe", "a\r\nb\rc", "年\x1bP\x1b\\", "\x1b[", "\x1b]", "\x1b(", "\u009d\u009c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q: %q", s, out)
		}
		for _, r := range out {
			if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
				t.Fatalf("control %U survived in %q -> %q", r, s, out)
			}
		}
		if again := Text(out); again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, out, again)
		}
		if ansi.Strip(out) != out {
			t.Fatalf("ansi.Strip still finds a sequence in %q", out)
		}
		if isClean(s) && out != s {
			t.Fatalf("clean text changed: %q -> %q", s, out)
		}
	})
}

func BenchmarkText(b *testing.B) {
	clean := strings.Repeat("2026 年度报告 quarterly revenue table row ", 50)
	dirty := strings.Repeat("row \x1b[31mred\x1b[0m \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ ", 50)
	b.Run("clean", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = Text(clean)
		}
	})
	b.Run("dirty", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = Text(dirty)
		}
	})
}

// TestDisplayAndTitle: characters that change what a reader sees without
// showing themselves are shown, in page text (bidi controls, zero-width
// space) and in one-line names (every format character), while the joiners
// that emoji and scripts need survive in text.
func TestDisplayAndTitle(t *testing.T) {
	cases := []struct {
		name, in, display, title string
	}{
		{"plain", "Q3 report", "Q3 report", "Q3 report"},
		{"trojan source override", "invoice\u202Efdp.exe", "invoice⟨U+202E⟩fdp.exe", "invoice⟨U+202E⟩fdp.exe"},
		{"isolates", "a\u2066b\u2069c", "a⟨U+2066⟩b⟨U+2069⟩c", "a⟨U+2066⟩b⟨U+2069⟩c"},
		{"zero-width space", "pay\u200Bpal", "pay⟨U+200B⟩pal", "pay⟨U+200B⟩pal"},
		{"word joiner and bom", "\uFEFFa\u2060b", "⟨U+FEFF⟩a⟨U+2060⟩b", "⟨U+FEFF⟩a⟨U+2060⟩b"},
		{"zwnj kept in text, shown in names", "می\u200Cخواهم", "می\u200Cخواهم", "می⟨U+200C⟩خواهم"},
		{"rlm kept in text, shown in names", "a\u200Fb", "a\u200Fb", "a⟨U+200F⟩b"},
		{"emoji zwj sequence kept", "family 👨\u200D👩\u200D👧", "family 👨\u200D👩\u200D👧", "family 👨\u200D👩\u200D👧"},
		{"lone zwj in a name", "ad\u200Dmin", "ad\u200Dmin", "ad⟨U+200D⟩min"},
		{"tag characters in a name", "x\U000E0041y", "x\U000E0041y", "x⟨U+E0041⟩y"},
		{"escapes removed first", "\x1b[31mred\u202E\x1b[0m", "red⟨U+202E⟩", "red⟨U+202E⟩"},
		{"cjk untouched", "年度报告", "年度报告", "年度报告"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Display(tc.in); got != tc.display {
				t.Errorf("Display(%q) = %q, want %q", tc.in, got, tc.display)
			}
			if got := Title(tc.in); got != tc.title {
				t.Errorf("Title(%q) = %q, want %q", tc.in, got, tc.title)
			}
		})
	}
}
