package extract

import (
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
		{"INSTALL.unix", apache, KindUnknown}, // an unknown extension is not sniffed
		{"README", apache, KindText},          // by name already
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
