package docserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// Files without an extension are served by their content: Debian's
// licence texts (/usr/share/common-licenses/GPL-3, Apache-2.0; copies in
// testdata/fidelity/text) are listed and read back line for line, as
// plain text; a real executable without an extension (this test's own
// binary) is not listed. Before, both licences were left out of the
// catalog because no extension named them.
func TestExtensionlessTextIsServed(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"GPL-3": "GPL-3.txt", "licenses/Apache-2.0": "Apache-2.0.txt"}
	for dst, src := range files {
		data, err := os.ReadFile(filepath.Join(fidelityDir, "text", src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, dst)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dst), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tool"), bin[:min(len(bin), 64<<10)], 0o755); err != nil {
		t.Fatal(err)
	}
	_, c, _ := startInProcess(t, dir, Options{})

	var cat protocol.DPECatalog
	readJSON(t, c, "dpe://"+testHost+"?limit=100", &cat)
	for _, d := range cat.Documents {
		if strings.HasSuffix(d.FileURI, "/tool") {
			t.Errorf("the executable is listed: %+v", d)
		}
	}
	for dst, src := range files {
		data, _ := os.ReadFile(filepath.Join(fidelityDir, "text", src))
		d := docByPath(t, c, dst)
		if d.Title == "" {
			t.Errorf("%s: no title", dst)
		}
		texts, titles := readPages(t, c, d, "text")
		covered := 0
		for i, title := range titles {
			exp := titledLines(t, dst, i, title, string(data))
			if got := strings.TrimSuffix(texts[i], "\n"); got != exp {
				t.Errorf("%s page %d: format=text differs from the file\n%s", dst, i, firstDiff(got, exp))
			}
			covered += strings.Count(exp, "\n") + 1
		}
		if lines := strings.Count(strings.TrimSuffix(string(data), "\n"), "\n") + 1; covered < lines*9/10 {
			t.Errorf("%s: pages cover %d of %d lines", dst, covered, lines)
		}
	}
}
