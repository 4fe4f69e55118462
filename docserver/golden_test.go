package docserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

const goldenDir = "../testdata/docserver"

// TestGolden reads every corpus document at all four levels, in JSON and
// Markdown, through MCP, and compares with the golden files: per document
// one JSON file (Level 1 with the page index, every page at Level 2, and
// the Level 3 detail of every element that has extra detail or metadata)
// and one Markdown file (every page rendered); plus the Level 0 catalog.
func TestGolden(t *testing.T) {
	dir := copyCorpus(t)
	_, c, _ := startInProcess(t, dir, Options{})
	normalize := func(b []byte) []byte {
		return bytes.ReplaceAll(b, []byte("file://"+filepath.ToSlash(dir)), []byte("file:///CORPUS"))
	}
	pretty := func(raw string) []byte {
		var v any
		if err := json.Unmarshal([]byte(raw), &v); err != nil {
			t.Fatal(err)
		}
		b, _ := json.MarshalIndent(v, "", "  ")
		return normalize(append(b, '\n'))
	}
	catalog, _ := readText(t, c, "dpe://"+testHost)
	testutil.Golden(t, filepath.Join(goldenDir, "catalog.json"), pretty(catalog))
	catMD, mime := readText(t, c, "dpe://"+testHost+"?format=markdown")
	if mime != "text/markdown" {
		t.Errorf("catalog markdown mime %s", mime)
	}
	testutil.Golden(t, filepath.Join(goldenDir, "catalog.md"), normalize([]byte(catMD)))

	var cat protocol.DPECatalog
	if err := json.Unmarshal([]byte(catalog), &cat); err != nil {
		t.Fatal(err)
	}
	if cat.TotalCount != 12 || len(cat.Documents) != 12 {
		t.Fatalf("catalog has %d/%d documents, want the 12 corpus files", len(cat.Documents), cat.TotalCount)
	}
	resources, _ := listAll(t, c)
	byURI := map[string]string{}
	for _, r := range resources {
		byURI[r.URI] = r.Name + "\n" + r.Description
	}
	for _, d := range cat.Documents {
		path, err := url.PathUnescape(strings.TrimPrefix(d.FileURI, "file://"+filepath.ToSlash(dir)+"/"))
		if err != nil {
			t.Fatal(err)
		}
		name := strings.NewReplacer("/", "__").Replace(path)
		t.Run(path, func(t *testing.T) {
			// resources/list (peek) and Level 1 (parse) agree.
			if got, want := byURI[d.URI], d.Title+"\n"+d.Summary; got != want {
				t.Errorf("resources/list says %q, Level 1 says %q", got, want)
			}
			var out struct {
				Document json.RawMessage            `json:"document"`
				Pages    []json.RawMessage          `json:"pages"`
				Details  map[string]json.RawMessage `json:"details"`
			}
			out.Details = map[string]json.RawMessage{}
			l1, _ := readText(t, c, d.URI+"?depth=pages&limit=100")
			out.Document = json.RawMessage(l1)
			var doc protocol.DPEDocument
			if err := json.Unmarshal([]byte(l1), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.PageCount != len(doc.Pages) || *doc.PageTotal != doc.PageCount {
				t.Errorf("page_count %d, pages %d, page_total %d", doc.PageCount, len(doc.Pages), *doc.PageTotal)
			}
			var md strings.Builder
			for _, ps := range doc.Pages {
				raw, _ := readText(t, c, ps.URI)
				out.Pages = append(out.Pages, json.RawMessage(raw))
				var page protocol.DPEPage
				if err := json.Unmarshal([]byte(raw), &page); err != nil {
					t.Fatal(err)
				}
				if page.ElementCount != ps.ElementCount || page.ElementCount != len(page.Elements) {
					t.Errorf("page %d: element_count %d, index says %d, %d elements", ps.PageIndex, page.ElementCount, ps.ElementCount, len(page.Elements))
				}
				text, mime := readText(t, c, ps.URI+"?format=markdown")
				if mime != "text/markdown" {
					t.Errorf("mime %s", mime)
				}
				if want := dpe.RenderPageMarkdown(page); text != want {
					t.Errorf("page %d markdown is not the shared renderer's output", ps.PageIndex)
				}
				fmt.Fprintf(&md, "<!-- page %d: %s -->\n%s\n", ps.PageIndex, ps.Title, text)
				for _, e := range page.Elements {
					var detail protocol.DPEElementDetail
					raw, _ := readText(t, c, dpe.Element(testHost, d.DocRef, e.ElementID).String())
					if err := json.Unmarshal([]byte(raw), &detail); err != nil {
						t.Fatal(err)
					}
					if detail.PageIndex == nil || *detail.PageIndex != ps.PageIndex || detail.DocRef != d.DocRef {
						t.Errorf("%s: page_index/doc_ref wrong: %+v", e.ElementID, detail)
					}
					if len(detail.Metadata) > 0 || len(detail.Content) != len(e.Content) {
						out.Details[e.ElementID] = json.RawMessage(raw)
					}
				}
			}
			b, _ := json.Marshal(out)
			testutil.Golden(t, filepath.Join(goldenDir, name+".json"), pretty(string(b)))
			testutil.Golden(t, filepath.Join(goldenDir, name+".md"), normalize([]byte(md.String())))
		})
	}
}

// TestGoldenFilesAreUsed fails when a golden file no longer matches any
// corpus document (a renamed file would otherwise leave a stale one).
func TestGoldenFilesAreUsed(t *testing.T) {
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatalf("golden files: %v", err)
	}
	var stale []string
	for _, e := range entries {
		base, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			base = strings.TrimSuffix(e.Name(), ".md")
		}
		if base == "catalog" {
			continue
		}
		src := filepath.Join("..", "testdata", "corpus", strings.ReplaceAll(base, "__", "/"))
		if _, err := os.Stat(src); err != nil {
			stale = append(stale, e.Name())
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Errorf("golden files without a corpus document: %v", stale)
	}
}
