package docserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// The fidelity tests read real third-party files (testdata/fidelity, see
// its README for sources and licences) through the document server and
// check what a reader gets against the files themselves: Markdown through
// an independent CommonMark renderer (npm markdown-it, test/node), plain
// text and source code line for line.

const fidelityDir = "../testdata/fidelity"

// Thresholds of issue 11: words and structure kept by format=markdown.
const (
	minWordRetention      = 0.98
	minStructureRetention = 0.90
)

// fidelityServer serves a copy of testdata/fidelity.
func fidelityServer(t *testing.T) *client.Client {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(fidelityDir)); err != nil {
		t.Fatal(err)
	}
	_, c, _ := startInProcess(t, dir, Options{})
	return c
}

// docByPath finds the document of a relative path in the catalog.
func docByPath(t *testing.T, c *client.Client, rel string) protocol.DPEDocumentSummary {
	t.Helper()
	var cat protocol.DPECatalog
	readJSON(t, c, "dpe://"+testHost+"?limit=100", &cat)
	for _, d := range cat.Documents {
		if strings.HasSuffix(d.FileURI, "/"+rel) {
			return d
		}
	}
	t.Fatalf("%s is not in the catalog", rel)
	return protocol.DPEDocumentSummary{}
}

// pages reads every page of a document in a format; titles gives the page
// titles.
func readPages(t *testing.T, c *client.Client, d protocol.DPEDocumentSummary, format string) (texts, titles []string) {
	t.Helper()
	var doc protocol.DPEDocument
	readJSON(t, c, d.URI+"?depth=pages&limit=100", &doc)
	for _, p := range doc.Pages {
		s, _ := readText(t, c, p.URI+"?format="+format)
		texts = append(texts, s)
		titles = append(titles, p.Title)
	}
	return texts, titles
}

type fidelityInput struct {
	Name    string `json:"name"`
	Source  string `json:"source,omitempty"`
	Ours    string `json:"ours"`
	Literal bool   `json:"literal,omitempty"`
}

type fidelityResult struct {
	Name  string `json:"name"`
	Text  string `json:"text"`
	Words struct {
		Total int      `json:"total"`
		Kept  int      `json:"kept"`
		Lost  []string `json:"lost"`
	} `json:"words"`
	Structure struct {
		Total      int            `json:"total"`
		Kept       int            `json:"kept"`
		Lost       []string       `json:"lost"`
		ByKind     map[string]int `json:"by_kind"`
		LostByKind map[string]int `json:"lost_by_kind"`
	} `json:"structure"`
}

// markdownIt runs test/node/fidelity.mjs over the inputs.
func markdownIt(t *testing.T, in []fidelityInput) []fidelityResult {
	t.Helper()
	testutil.NodeModules(t)
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join(testutil.RepoRoot(t), "test", "node", "fidelity.mjs"))
	cmd.Stdin = bytes.NewReader(b)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fidelity.mjs: %v\n%s", err, stderr.String())
	}
	var res []fidelityResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("fidelity.mjs output: %v\n%s", err, out)
	}
	return res
}

func ratio(kept, total int) float64 {
	if total == 0 {
		return 1
	}
	return float64(kept) / float64(total)
}

// TestFidelityMarkdown renders every real Markdown README and the Go docs
// through format=markdown and measures, with markdown-it, the words and
// the structure (emphasis, code spans, links, blockquotes, nested items,
// code blocks, tables, headings) of the source that the rendering keeps.
func TestFidelityMarkdown(t *testing.T) {
	c := fidelityServer(t)
	files, _ := filepath.Glob(filepath.Join(fidelityDir, "markdown", "*.md"))
	if len(files) < 5 {
		t.Fatalf("only %d Markdown files in %s", len(files), fidelityDir)
	}
	var in []fidelityInput
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel := "markdown/" + filepath.Base(f)
		texts, _ := readPages(t, c, docByPath(t, c, rel), "markdown")
		// YAML front matter is metadata, not content (GitHub shows it as
		// a table, CommonMark as a heading): left out of the comparison.
		body := frontMatterRE.ReplaceAllString(string(src), "")
		in = append(in, fidelityInput{Name: rel, Source: body, Ours: strings.Join(texts, "\n\n")})
	}
	var words, wordsKept, items, itemsKept int
	for _, r := range markdownIt(t, in) {
		words += r.Words.Total
		wordsKept += r.Words.Kept
		items += r.Structure.Total
		itemsKept += r.Structure.Kept
		w, s := ratio(r.Words.Kept, r.Words.Total), ratio(r.Structure.Kept, r.Structure.Total)
		t.Logf("%-34s words %5d/%5d %6.2f%%  structure %4d/%4d %6.2f%%  %v", r.Name, r.Words.Kept, r.Words.Total, 100*w,
			r.Structure.Kept, r.Structure.Total, 100*s, r.Structure.ByKind)
		if w < minWordRetention {
			t.Errorf("%s: format=markdown keeps %.2f%% of the words (want ≥ %.0f%%); lost: %q", r.Name, 100*w, 100*minWordRetention, r.Words.Lost)
		}
		if s < minStructureRetention {
			t.Errorf("%s: format=markdown keeps %.2f%% of the structure (want ≥ %.0f%%); lost %v: %q", r.Name, 100*s, 100*minStructureRetention, r.Structure.LostByKind, r.Structure.Lost)
		}
	}
	t.Logf("all Markdown files: words %.2f%% (%d/%d), structure %.2f%% (%d/%d)",
		100*ratio(wordsKept, words), wordsKept, words, 100*ratio(itemsKept, items), itemsKept, items)
}

// TestFidelityHTML reads Go's memory model page (HTML) and checks that
// format=markdown keeps its words (those of the HTML with its tags, style
// and comments removed) and that no tag reaches the reader.
func TestFidelityHTML(t *testing.T) {
	c := fidelityServer(t)
	rel := "html/go_mem.html"
	src, err := os.ReadFile(filepath.Join(fidelityDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	d := docByPath(t, c, rel)
	texts, _ := readPages(t, c, d, "markdown")
	ours := strings.Join(texts, "\n\n")
	// The source's visible text: a Markdown document made of the HTML with
	// <style> and comments removed is all one HTML block to markdown-it,
	// whose words are the page's words.
	visible := regexp.MustCompile(`(?s)<style.*?</style>|<!--.*?-->`).ReplaceAllString(string(src), "")
	res := markdownIt(t, []fidelityInput{{Name: rel, Source: visible, Ours: ours}})[0]
	w := ratio(res.Words.Kept, res.Words.Total)
	t.Logf("%s: words %d/%d %.2f%%, our structure %v", rel, res.Words.Kept, res.Words.Total, 100*w, markdownIt(t, []fidelityInput{{Name: "ours", Source: ours, Ours: ours}})[0].Structure.ByKind)
	if w < minWordRetention {
		t.Errorf("%s: keeps %.2f%% of the words; lost %q", rel, 100*w, res.Words.Lost)
	}
	lit := markdownIt(t, []fidelityInput{{Name: rel, Ours: ours, Literal: true}})[0].Text
	if m := regexp.MustCompile(`</?(p|h[1-6]|pre|code|ul|ol|li|a|div|span|table|style)\b[^>]*>`).FindString(lit); m != "" {
		t.Errorf("%s: a raw tag %q reaches the reader", rel, m)
	}
	if strings.Contains(lit, "font-style") {
		t.Errorf("%s: the page's <style> reaches the reader", rel)
	}
}

var frontMatterRE = regexp.MustCompile(`(?s)\A---\n.*?\n---\n`)

var linesTitleRE = regexp.MustCompile(`^Lines? (\d+)(?:–(\d+))?$`)

// sourceLines returns lines from..to (one-based) of s.
func sourceLines(s string, from, to int) string {
	lines := strings.Split(strings.TrimSuffix(strings.ReplaceAll(s, "\r\n", "\n"), "\n"), "\n")
	return strings.Join(lines[from-1:to], "\n")
}

// titledLines returns the lines of src that page i of rel, titled
// "Lines 12–40" (or "Line 7"), names; a title that names none is fatal.
func titledLines(t *testing.T, rel string, i int, title, src string) string {
	t.Helper()
	m := linesTitleRE.FindStringSubmatch(title)
	if m == nil {
		t.Fatalf("%s page %d: title %q does not name its lines", rel, i, title)
	}
	from, _ := strconv.Atoi(m[1])
	to := from
	if m[2] != "" {
		to, _ = strconv.Atoi(m[2])
	}
	return sourceLines(src, from, to)
}

// TestFidelityPlainText reads real plain-text licences and Go source: each
// page's format=text is exactly the source lines its title names (tabs and
// indentation kept), and its format=markdown, rendered by markdown-it,
// shows the same characters: nothing is taken for Markdown syntax.
func TestFidelityPlainText(t *testing.T) {
	c := fidelityServer(t)
	var files []string
	for _, g := range []string{"text/*.txt", "source/*.go"} {
		m, _ := filepath.Glob(filepath.Join(fidelityDir, g))
		files = append(files, m...)
	}
	if len(files) < 4 {
		t.Fatalf("only %d files", len(files))
	}
	var lit []fidelityInput
	var want []string
	for _, f := range files {
		srcb, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := string(srcb)
		rel, _ := filepath.Rel(fidelityDir, f)
		rel = filepath.ToSlash(rel)
		d := docByPath(t, c, rel)
		texts, titles := readPages(t, c, d, "text")
		mds, _ := readPages(t, c, d, "markdown")
		covered := 0
		for i, title := range titles {
			exp := titledLines(t, rel, i, title, src)
			got := strings.TrimSuffix(texts[i], "\n")
			if got != exp {
				t.Errorf("%s page %d (%s): format=text differs from the file's lines\n%s", rel, i, title, firstDiff(got, exp))
			}
			covered += strings.Count(exp, "\n") + 1
			if strings.HasSuffix(rel, ".go") {
				continue // code is a fenced block: checked below with the text files
			}
			lit = append(lit, fidelityInput{Name: fmt.Sprintf("%s#%d", rel, i), Ours: mds[i], Literal: true})
			want = append(want, exp)
		}
		if lines := strings.Count(strings.TrimSuffix(src, "\n"), "\n") + 1; covered < lines*9/10 {
			t.Errorf("%s: pages cover %d of %d lines", rel, covered, lines)
		}
	}
	literal, lines, linesLiteral := 0, 0, 0
	for i, r := range markdownIt(t, lit) {
		got, exp := literalLines(r.Text), literalLines(want[i])
		g := strings.Split(got, "\n")
		for j, l := range strings.Split(exp, "\n") {
			lines++
			if j < len(g) && g[j] == l {
				linesLiteral++
			}
		}
		if got == exp {
			literal++
		} else {
			t.Errorf("%s: format=markdown rendered by markdown-it is not the text\n%s", r.Name, firstDiff(got, exp))
		}
	}
	t.Logf("format=markdown shown literally by markdown-it: %d of %d text pages, %d of %d lines in place", literal, len(lit), linesLiteral, lines)
}

// literalLines normalises what a reader sees of a text: blank lines
// dropped, no-break spaces as spaces, tabs expanded, trailing spaces cut.
func literalLines(s string) string {
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(s, "\u00a0", " "), "\n") {
		l = strings.TrimRight(dpe.ExpandTabs(l, 8), " ")
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// firstDiff shows the first differing line of two texts.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n  got  %q\n  want %q", i+1, a, b)
		}
	}
	return "(equal)"
}

// TestServedMarkdownIsReadable: format=markdown, what agents read and
// files keep, carries no character reference of the screen's Markdown
// (issue 35.6: "https&#58;//www&#46;gnu&#46;org").
func TestServedMarkdownIsReadable(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "notes.txt"), "See https://www.gnu.org/licenses/ and www.example.org/a.\nTime 08:30, ~approx~ & co; :smile:\n")
	_, c, _ := startInProcess(t, dir, Options{})
	res, _ := listAll(t, c)
	if len(res) != 1 {
		t.Fatalf("%d documents listed", len(res))
	}
	md, _ := readText(t, c, res[0].URI+"/pages/0?format=markdown")
	if strings.Contains(md, "&#") || !strings.Contains(md, "https://www.gnu.org/licenses/") || !strings.Contains(md, "www.example.org/a") {
		t.Errorf("served Markdown is not readable:\n%s", md)
	}
}
