package docserver

import (
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
	all, _ := listAll(t, c)
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
