package docserver

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
	"github.com/smcp-browse/smcp-browse/docserver/fulltext"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// goDir asks the go command for a directory (GOROOT, a module's folder).
func goDir(t testing.TB, args ...string) string {
	t.Helper()
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// copyInto copies files into dir under the given names.
func copyInto(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, name), string(data))
	}
}

// realLibrary is a folder of real files nobody here wrote, in every
// format the server reads: two PDF manuals, Excel workbooks of the
// excelize project, HTML, Markdown READMEs, licences, Go sources (two
// example_test.go among them), and the corpus's DOCX and PPTX.
func realLibrary(t testing.TB) string {
	t.Helper()
	repo := testutil.RepoRoot(t)
	dir := copyCorpus(t)
	files := map[string]string{}
	for _, pattern := range []string{"testdata/pdf/*.pdf", "testdata/fidelity/*/*"} {
		matches, _ := filepath.Glob(filepath.Join(repo, pattern))
		for _, m := range matches {
			if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() && !strings.Contains(m, "LICENSES") {
				files["real/"+filepath.Base(m)] = m
			}
		}
	}
	xl := goDir(t, "list", "-m", "-f", "{{.Dir}}", "github.com/xuri/excelize/v2")
	for _, name := range []string{"Book1.xlsx", "SharedStrings.xlsx", "MergeCell.xlsx", "CalcChain.xlsx"} {
		files["excel/"+name] = filepath.Join(xl, "test", name)
	}
	goroot := goDir(t, "env", "GOROOT")
	for _, name := range []string{"bufio/example_test.go", "strings/example_test.go", "bufio/scan.go", "sort/sort.go"} {
		files["go/"+name] = filepath.Join(goroot, "src", name)
	}
	copyInto(t, dir, files)
	return dir
}

// pageWords is the format=text of every page of every document, as a
// user reads it, in words.
type pageWords struct {
	path     string
	page     int
	title    string // the document's title (on its first page)
	fileType string
	words    map[string]bool
}

func readLibrary(t testing.TB, c *client.Client) []pageWords {
	t.Helper()
	res, _ := listAll(t, c)
	var out []pageWords
	for _, r := range res {
		var d protocol.DPEDocument
		readJSON(t, c, r.URI, &d)
		if d.Unreadable != "" {
			continue
		}
		path, _ := r.Meta.AdditionalFields["path"].(string)
		for p := range d.PageCount {
			text, _ := readText(t, c, fmt.Sprintf("%s/pages/%d?format=text", r.URI, p))
			pw := pageWords{path: path, page: p, fileType: d.FileType, words: map[string]bool{}}
			if p == 0 {
				pw.title = d.Title
			}
			fulltext.Words(extract.SearchForm(text), func(w fulltext.Word) { pw.words[w.Term] = true })
			out = append(out, pw)
		}
	}
	return out
}

// TestSearchNoResultLost: on real files, PDFs and office files included
// (where grep cannot look), every page whose text (format=text) holds a
// word is found by a search for the word, and every page found holds it
// (or is the first page of a document whose title does): recall and
// precision, both exact; and so for prefixes of one and two letters,
// which the index answers from its prefix fields. And the top result for
// a word of one document's title alone is that document.
func TestSearchNoResultLost(t *testing.T) {
	if testing.Short() {
		t.Skip("reads real manuals")
	}
	dir := realLibrary(t)
	s, c, _ := startInProcess(t, dir, Options{})
	pages := readLibrary(t, c)
	callSearch(t, c, map[string]any{"query": "start"})
	st := waitIndexed(t, s, 5*time.Minute)
	t.Logf("%d pages of %d documents; index %+v", len(pages), st.Total, st)

	// Words to look for: from every document, spread over its pages,
	// common and rare ones alike.
	docs := map[string][]string{}
	for _, p := range pages {
		ws := make([]string, 0, len(p.words))
		for w := range p.words {
			ws = append(ws, w)
		}
		slices.Sort(ws)
		for i := 0; i < len(ws) && len(docs[p.path]) < 12; i += max(1, len(ws)/3) {
			docs[p.path] = append(docs[p.path], ws[i])
		}
	}
	// Each word, and the prefixes of one and two letters of the words
	// (a prefix query finds the pages of every word it starts).
	probe := map[string]func(string) bool{}
	for _, ws := range docs {
		for _, w := range ws {
			probe[w] = func(x string) bool { return x == w }
			for _, n := range []int{1, 2} {
				if r := []rune(w); len(r) > n {
					pre := string(r[:n])
					probe[pre+"*"] = func(x string) bool { return strings.HasPrefix(x, pre) }
				}
			}
		}
	}
	titled := func(p pageWords, has func(string) bool) bool {
		found := false
		fulltext.Words(extract.SearchForm(p.title), func(x fulltext.Word) { found = found || has(x.Term) })
		return found
	}
	holds := func(p pageWords, has func(string) bool) bool {
		for w := range p.words {
			if has(w) {
				return true
			}
		}
		return false
	}
	key := func(path string, page int) string { return fmt.Sprintf("%s#%d", path, page) }
	checked, prefixes := 0, 0
	for w, has := range probe {
		want := map[string]bool{}
		maybe := map[string]bool{} // a title hit: the page need not hold the word
		for _, p := range pages {
			if holds(p, has) {
				want[key(p.path, p.page)] = true
			} else if p.page == 0 && titled(p, has) {
				maybe[key(p.path, p.page)] = true
			}
		}
		matches, res := searchAll(t, c, map[string]any{"query": w, "maxMatches": 500})
		if res.Indexed != res.Total {
			t.Fatalf("%q: the index answered for %d of %d documents", w, res.Indexed, res.Total)
		}
		got := map[string]bool{}
		for _, m := range matches {
			k := key(m.Path, m.PageIndex)
			if got[k] {
				t.Errorf("%q: page %s found twice", w, k)
			}
			got[k] = true
			if !want[k] && !maybe[k] {
				t.Errorf("%q: found on %s, whose text does not hold it (line %q)", w, k, m.Line)
			}
		}
		for k := range want {
			if !got[k] {
				t.Errorf("%q: not found on %s, whose text holds it", w, k)
			}
		}
		checked++
		if strings.HasSuffix(w, "*") {
			prefixes++
		}
	}
	if prefixes < 50 {
		t.Errorf("only %d prefixes searched", prefixes)
	}
	t.Logf("%d words and prefixes (%d) searched, every page found and none extra", checked, prefixes)

	// Title words: a word of one document's title, in no other title.
	owners := map[string][]string{}
	for _, p := range pages {
		if p.page != 0 || p.fileType == "txt" && !extract.TitleLike(p.title) {
			continue // a plain text's first line that reads as text weighs as text
		}
		seen := map[string]bool{}
		fulltext.Words(extract.SearchForm(p.title), func(x fulltext.Word) {
			if len(x.Term) >= 4 && !seen[x.Term] && strings.Trim(x.Term, "0123456789") != "" {
				seen[x.Term] = true
				owners[x.Term] = append(owners[x.Term], p.path)
			}
		})
	}
	titles := 0
	for w, paths := range owners {
		if len(paths) != 1 {
			continue
		}
		res, _ := callSearch(t, c, map[string]any{"query": w})
		if len(res.Matches) == 0 || res.Matches[0].Path != paths[0] {
			top := "nothing"
			if len(res.Matches) > 0 {
				top = key(res.Matches[0].Path, res.Matches[0].PageIndex)
			}
			t.Errorf("title word %q: top result %s, want %s", w, top, paths[0])
		}
		titles++
	}
	if titles < 10 {
		t.Errorf("only %d title words to check", titles)
	}
	t.Logf("%d title words: each puts its document first", titles)
}
