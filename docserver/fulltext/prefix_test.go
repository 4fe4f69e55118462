package fulltext

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// goSources indexes real files nobody here wrote (Go's sources and
// docs), one page per 150 lines, the functions' lines as headings, the
// file's name as the title; it returns the pages' texts by "rel#page".
func goSources(t *testing.T, ix *Index) map[string][]string {
	t.Helper()
	goroot := testutil.GOROOT(t)
	var files []string
	for _, pattern := range []string{"src/strings/*.go", "src/bufio/*.go", "src/sort/*.go", "src/unicode/utf8/*.go", "src/encoding/json/*.go", "doc/*", "README.md"} {
		m, _ := filepath.Glob(filepath.Join(goroot, pattern))
		files = append(files, m...)
	}
	texts := map[string][]string{}
	var docs []Doc
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || !utf8.Valid(data) {
			continue
		}
		rel, _ := filepath.Rel(goroot, f)
		d := Doc{Rel: rel, Version: "1", FileType: filepath.Ext(f), Title: filepath.Base(f)}
		lines := strings.Split(string(data), "\n")
		for start := 0; start < len(lines); start += 150 {
			body := lines[start:min(start+150, len(lines))]
			var heads []string
			for _, l := range body {
				if strings.HasPrefix(l, "func ") {
					heads = append(heads, l)
				}
			}
			p := Page{Headings: strings.Join(heads, "\n"), Body: strings.Join(body, "\n")}
			texts[fmt.Sprintf("%s#%d", rel, len(d.Pages))] = []string{p.Headings, p.Body}
			if len(d.Pages) == 0 {
				texts[rel+"#0"] = append(texts[rel+"#0"], d.Title)
			}
			d.Pages = append(d.Pages, p)
		}
		d.TotalPages = len(d.Pages)
		docs = append(docs, d)
	}
	if len(docs) < 80 {
		t.Fatalf("only %d files of GOROOT to index", len(docs))
	}
	for i := 0; i < len(docs); i += 50 {
		if err := ix.Put(docs[i:min(i+50, len(docs))]...); err != nil {
			t.Fatal(err)
		}
	}
	return texts
}

// TestShortPrefixesFindWhatTheExpansionFinds: on real files, a prefix of
// one to five letters finds exactly the pages that the query of every
// word starting with it finds (the slow way), and exactly the pages
// whose title, headings or text hold such a word; when a title holds
// one, a title hit comes first.
func TestShortPrefixesFindWhatTheExpansionFinds(t *testing.T) {
	ix, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	texts := goSources(t, ix)

	// The words of each page, and of each title.
	pageWords, titleWords := map[string][]string{}, map[string][]string{}
	for k, ts := range texts {
		seen := map[string]bool{}
		for i, text := range ts {
			Words(text, func(w Word) {
				if i == 2 {
					titleWords[k] = append(titleWords[k], w.Term)
				}
				if !seen[w.Term] {
					seen[w.Term] = true
					pageWords[k] = append(pageWords[k], w.Term)
				}
			})
		}
	}
	holds := func(ws []string, p string) bool {
		return slices.ContainsFunc(ws, func(w string) bool { return strings.HasPrefix(w, p) })
	}

	// Every letter and digit, two-letter prefixes and longer ones of
	// the words.
	prefixes := map[string]bool{}
	for r := 'a'; r <= 'z'; r++ {
		prefixes[string(r)] = true
	}
	for r := '0'; r <= '9'; r++ {
		prefixes[string(r)] = true
	}
	n := 0
	for _, k := range sorted(slices.Collect(maps.Keys(pageWords))) {
		for _, w := range pageWords[k] {
			n++
			r := []rune(w)
			if k := 2 + n%4; len(r) >= k && n%5 == 0 {
				prefixes[string(r[:k])] = true
			}
		}
		if len(prefixes) >= 220 {
			break
		}
	}
	search := func(q Query, expand bool) []string {
		var got []string
		err := ix.View(func(v View) error {
			h, err := v.search(context.Background(), q.bleveQuery(expand), Filter{}, 0, len(texts)+1, q.byDocument())
			for _, x := range h.Hits {
				got = append(got, fmt.Sprintf("%s#%d", x.Rel, x.Page))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	checked, short := 0, 0
	for p := range prefixes {
		q, err := ParseQuery(p + "*")
		if err != nil || q.clauses[0].kind != prefixClause {
			t.Fatalf("%s*: %v", p, err)
		}
		fast, slow := search(q, false), search(q, true)
		var want []string
		titled := false
		for k, ws := range pageWords {
			if holds(ws, p) {
				want = append(want, k)
			}
			titled = titled || holds(titleWords[k], p)
		}
		if !slices.Equal(sorted(fast), sorted(want)) || !slices.Equal(sorted(slow), sorted(want)) {
			t.Errorf("%s*: %d pages found, %d the slow way, %d hold a word with it", p, len(fast), len(slow), len(want))
		}
		if titled && len(fast) > 0 && !holds(titleWords[fast[0]], p) {
			t.Errorf("%s*: the top result %s is no title hit: %q", p, fast[0], fast[:min(5, len(fast))])
		}
		checked++
		if utf8.RuneCountInString(p) <= 2 {
			short++
		}
	}
	if checked < 200 || short < 80 {
		t.Errorf("only %d prefixes checked, %d of one or two letters", checked, short)
	}
	if !t.Failed() {
		t.Logf("%d prefixes (%d of one or two letters) over %d pages: the same pages both ways", checked, short, len(texts))
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestPrefixAnalyzer(t *testing.T) {
	var got []string
	for _, tok := range (wordAnalyzer{prefixes: true}).Analyze([]byte("Marshal a über-Ärger 文档 x2 marshal A")) {
		got = append(got, string(tok.Term))
	}
	want := []string{"m", "ma", "mars", "a", "ü", "üb", "über", "ä", "är", "ärge", "文", "档", "x", "x2"}
	if !slices.Equal(got, want) {
		t.Errorf("prefixes %q, want %q", got, want)
	}
}

// TestFieldsCountAsTheAnalyzer checks that the fields the documents are
// built with count the terms and the length the mapping's analyzer
// gives, over real text (this package's sources) and hostile text.
func TestFieldsCountAsTheAnalyzer(t *testing.T) {
	texts := []string{"", "Marshal a über-Ärger 文档 x2 marshal A", strings.Repeat("ab", 200) + " x", "\xff\xfe bad \x00 utf8 ÿ"}
	srcs, _ := filepath.Glob("*.go")
	for _, p := range srcs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	for i, text := range texts {
		for _, prefixes := range []bool{false, true} {
			toks := wordAnalyzer{prefixes: prefixes}.Analyze([]byte(text))
			want := analysis.TokenFrequency(toks, nil, optIndexed)
			f := &wordsField{name: "body", s: &split{text: text}, prefixes: prefixes}
			f.Analyze()
			if f.AnalyzedLength() != len(toks) {
				t.Errorf("text %d prefixes=%v: length %d, the analyzer gives %d", i, prefixes, f.AnalyzedLength(), len(toks))
			}
			got := f.AnalyzedTokenFrequencies()
			if len(got) != len(want) {
				t.Errorf("text %d prefixes=%v: %d terms, the analyzer gives %d", i, prefixes, len(got), len(want))
			}
			for term, w := range want {
				if g, ok := got[term]; !ok || g.Frequency() != w.Frequency() || string(g.Term) != term {
					t.Errorf("text %d prefixes=%v: term %q counted %v, the analyzer gives %d", i, prefixes, term, g, w.Frequency())
				}
			}
		}
	}
}
