package docserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// TestReadmeTitledByItsFolder serves real npm READMEs that have no top
// heading, and a README at the root: each is titled by the folder it
// describes (the root's by the served folder's name), in the listing and
// in the catalog.
func TestReadmeTitledByItsFolder(t *testing.T) {
	modules := testutil.NodeModules(t)
	dir := filepath.Join(t.TempDir(), "myproject")
	for _, pkg := range []string{"iconv-lite", "inherits"} {
		data, err := os.ReadFile(filepath.Join(modules, pkg, "README.md"))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "node_modules", pkg, "README.md"), string(data))
	}
	writeFile(t, filepath.Join(dir, "README.md"), "Notes on the project, with no heading.\n")
	_, c, _ := startInProcess(t, dir, Options{})
	want := map[string]string{
		"node_modules/iconv-lite/README.md": "iconv-lite",
		"node_modules/inherits/README.md":   "inherits",
		"README.md":                         "myproject",
	}
	all := listSettled(t, c)
	for _, r := range all {
		p, _ := r.Meta.AdditionalFields["path"].(string)
		if r.Name != want[p] {
			t.Errorf("%s listed as %q, want %q", p, r.Name, want[p])
		}
	}
	var cat protocol.DPECatalog
	readJSON(t, c, "dpe://"+testHost, &cat)
	for _, d := range cat.Documents {
		if d.Title != want[d.Path] {
			t.Errorf("catalog: %s titled %q, want %q", d.Path, d.Title, want[d.Path])
		}
	}
	if len(all) != len(want) || len(cat.Documents) != len(want) {
		t.Errorf("%d listed, %d in the catalog, want %d", len(all), len(cat.Documents), len(want))
	}
}

// TestExtensionlessTextIsOneFileType serves real extension-less files of
// Go's tree (fuzz-corpus entries named by their hash, test data, a
// README, PATENTS, VERSION, LICENSE, a Makefile): plain text without an
// extension is one file type, "text", not one type per file name; the
// names that say more keep their type (license, makefile).
func TestExtensionlessTextIsOneFileType(t *testing.T) {
	goroot := testutil.GOROOT(t)
	dir := t.TempDir()
	fuzz := filepath.Join(goroot, "src", "runtime", "debug", "testdata", "fuzz", "FuzzParseBuildInfoRoundTrip")
	entries, err := os.ReadDir(fuzz)
	if err != nil || len(entries) < 2 {
		t.Fatalf("fuzz corpus of runtime/debug: %v (%d entries)", err, len(entries))
	}
	want := map[string]string{}
	copyIn := func(src, rel, fileType string) {
		t.Helper()
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, filepath.FromSlash(rel)), string(data))
		want[rel] = fileType
	}
	for _, e := range entries {
		copyIn(filepath.Join(fuzz, e.Name()), "fuzz/"+e.Name(), "text")
	}
	copyIn(filepath.Join(goroot, "src", "net", "testdata", "igmp"), "net/igmp", "text")
	copyIn(filepath.Join(goroot, "src", "net", "http", "testdata", "file"), "http/file", "text")
	copyIn(filepath.Join(goroot, "src", "runtime", "race", "README"), "race/README", "text")
	copyIn(filepath.Join(goroot, "PATENTS"), "PATENTS", "text")
	copyIn(filepath.Join(goroot, "VERSION"), "VERSION", "text")
	copyIn(filepath.Join(goroot, "LICENSE"), "LICENSE", "license")
	copyIn(filepath.Join(goroot, "src", "runtime", "Makefile"), "runtime/Makefile", "makefile")
	copyIn(filepath.Join(goroot, "src", "errors", "errors.go"), "errors.go", "go")
	copyIn(filepath.Join(goroot, "README.md"), "README.md", "md")
	_, c, _ := startInProcess(t, dir, Options{})
	var cat protocol.DPECatalog
	readJSON(t, c, "dpe://"+testHost, &cat)
	if len(cat.Documents) != len(want) {
		t.Errorf("%d documents in the catalog, want %d", len(cat.Documents), len(want))
	}
	for _, d := range cat.Documents {
		if d.FileType != want[d.Path] {
			t.Errorf("%s: file_type %q, want %q", d.Path, d.FileType, want[d.Path])
		}
	}
}

// TestUnreadablePagesAreAnEmptyList reads ?depth=pages of a document that
// cannot be read: the answer carries "pages": [] (and its window), so
// that a client iterating the pages finds none instead of no key.
func TestUnreadablePagesAreAnEmptyList(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "broken.pdf"), "%PDF-1.7 this is not a PDF")
	_, c, _ := startInProcess(t, dir, Options{})
	uri := "dpe://" + testHost + "/" + DocRef("broken.pdf") + "?depth=pages&offset=0&limit=5"
	text, _ := readText(t, c, uri)
	var got map[string]any
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatal(err)
	}
	pages, ok := got["pages"].([]any)
	if got["unreadable"] == nil || !ok || len(pages) != 0 || got["page_total"] != 0.0 || got["page_limit"] != 5.0 {
		t.Errorf("depth=pages of an unreadable document: %s", text)
	}
}
