package extract

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"unicode/utf16"
)

// Files without a telling name are recognised by their content: the
// licence texts Debian ships as /usr/share/common-licenses/GPL-3 and
// Apache-2.0 (copies in testdata/fidelity/text) are text; a real
// executable (this test's own binary), a UTF-16 and a Latin-1 text are
// not (they would show as garbage).
func TestKindOfContent(t *testing.T) {
	gpl, err := os.ReadFile("../../testdata/fidelity/text/GPL-3.txt")
	if err != nil {
		t.Fatal(err)
	}
	apache, err := os.ReadFile("../../testdata/fidelity/text/Apache-2.0.txt")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	var utf16le []byte
	for _, u := range utf16.Encode([]rune("\ufeffPlain text, in UTF-16.\n")) {
		utf16le = append(utf16le, byte(u), byte(u>>8))
	}
	// "é" cut in two by the end of what was read
	cut := append([]byte("Résumé of the project, in French: caf"), 0xc3)
	for _, c := range []struct {
		name string
		data []byte
		want Kind
	}{
		{"GPL-3", gpl, KindText},
		{"licenses/Apache-2.0", apache, KindText},
		{"LGPL-2.1", apache, KindText},
		{"INSTALL.unix", apache, KindText}, // an unknown extension is sniffed
		{"go.mod", []byte("module example.com/m\n\ngo 1.24\n"), KindText},
		{"asm_amd64.s", []byte("TEXT ·Add(SB),NOSPLIT,$0-24\n\tRET\n"), KindText},
		{"gcc.syso", []byte("module m\n"), KindUnknown}, // a binary format's extension is not
		{"README", apache, KindText},                    // by name already
		{"tool", bin[:min(len(bin), SniffBytes)], KindUnknown},
		{"notes", utf16le, KindUnknown},
		{"latin1", []byte("Caf\xe9 cr\xe8me, na\xefve: a Latin-1 text.\n"), KindUnknown},
		{"cut", cut, KindText},
		{"empty", nil, KindUnknown},
		{"colours", []byte("a log with \x1b[31mcolour\x1b[0m escapes, shown cleaned\n"), KindText},
		{"bell", []byte("a bell\a and a backspace\b are binary bytes\n"), KindUnknown},
		{"photo.png", gpl, KindUnknown},
		{"main.go", bin, KindCode}, // the name says
	} {
		if got, _ := KindOfContent(c.name, c.data); got != c.want {
			t.Errorf("KindOfContent(%q): %s, want %s", c.name, got, c.want)
		}
	}
}

// A sniffed licence parses as plain text, line for line.
func TestParseSniffedLicence(t *testing.T) {
	gpl, err := os.ReadFile("../../testdata/fidelity/text/GPL-3.txt")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Parse(t.Context(), Source{Name: "GPL-3", Data: gpl}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Pages) == 0 || doc.Title == "" {
		t.Fatalf("GPL-3: %d pages, title %q", len(doc.Pages), doc.Title)
	}
	if got := FileType("Apache-2.0"); got != "text" {
		t.Errorf("FileType(Apache-2.0) = %q", got)
	}
	if _, err := Parse(t.Context(), Source{Name: "tool", Data: []byte("\x7fELF\x02\x01\x01\x00\x00\x00")}, Options{}); err == nil {
		t.Error("a binary without an extension parsed")
	}
}

// A file whose name says text but whose bytes are binary (a PNG named
// notes.txt, an executable named main.go) is refused with ErrBinary by
// both Parse and Peek, instead of being served as text with a garbage
// title; a text with stray control bytes (a log with a bell) and a
// Latin-1 text are still served.
func TestBinaryContentUnderATextNameIsRefused(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		data   []byte
		binary bool
	}{
		{"notes.txt", png, true},
		{"main.go", bin[:64<<10], true},
		{"data.csv", append([]byte("a,b\n1,2\n"), 0, 0, 0, 1), true},
		{"README.md", []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00"), true},
		{"bell.log", []byte("a bell\a rang, and a \x1b[31mcolour\x1b[0m\n"), false},
		{"latin1.txt", []byte("Caf\xe9 cr\xe8me, na\xefve.\n"), false},
	} {
		_, perr := Parse(t.Context(), Source{Name: c.name, Data: c.data}, Options{})
		_, kerr := Peek(t.Context(), c.name, bytes.NewReader(c.data), int64(len(c.data)), Options{})
		for what, err := range map[string]error{"Parse": perr, "Peek": kerr} {
			if got := errors.Is(err, ErrBinary); got != c.binary {
				t.Errorf("%s(%s): %v, want binary %v", what, c.name, err, c.binary)
			}
		}
	}
}
