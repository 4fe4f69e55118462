package docserver

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
)

// matchKey identifies a match within an answer's sequence.
func matchKey(m SearchMatch) string {
	return fmt.Sprintf("%s|%s|%d|%q", m.URI, m.ElementID, m.Start, m.Line)
}

// searchPages follows a search's cursor from the start, each step's
// arguments from next, and returns every step's matches in order. It
// fails when a step does not move the search on (same cursor, or neither
// a match nor a document more) or when the steps do not end.
func searchPages(t *testing.T, c *client.Client, args map[string]any, next func() map[string]any) ([]SearchMatch, int) {
	t.Helper()
	var all []SearchMatch
	cursor, scanned := "", 0
	for steps := 1; ; steps++ {
		a := map[string]any{}
		for k, v := range args {
			a[k] = v
		}
		for k, v := range next() {
			a[k] = v
		}
		if cursor != "" {
			a["cursor"] = cursor
		}
		res, tr := callSearch(t, c, a)
		if tr.IsError {
			t.Fatalf("step %d %v: %v", steps, a, tr.Content)
		}
		all = append(all, res.Matches...)
		if res.NextCursor == "" {
			return all, steps
		}
		if res.NextCursor == cursor || len(res.Matches) == 0 && res.Scanned <= scanned {
			t.Fatalf("step %d %v did not move the search on (cursor %q, scanned %d -> %d)", steps, a, res.NextCursor, scanned, res.Scanned)
		}
		if steps > 100_000 {
			t.Fatal("the steps do not end")
		}
		cursor, scanned = res.NextCursor, res.Scanned
	}
}

// TestLiteralSearchPagingOnARealFolder: over Go's net/http sources, a
// literal search followed in steps of random sizes (matches, documents,
// budgets down to one document a step) returns exactly the matches of
// the search in big steps, in the same order, each once; and those are
// the lines that hold the string in each file grep finds it in.
func TestLiteralSearchPagingOnARealFolder(t *testing.T) {
	root := filepath.Join(goDir(t, "env", "GOROOT"), "src", "net", "http")
	_, c, _ := startInProcess(t, root, Options{})
	for _, query := range []string{"TODO", "Handler", "http.Error("} {
		t.Run(query, func(t *testing.T) {
			base := map[string]any{"query": query, "literal": true}
			whole, _ := searchPages(t, c, base, func() map[string]any {
				return map[string]any{"maxMatches": 500, "maxDocuments": 2000, "budgetMs": 10000}
			})
			rng := rand.New(rand.NewPCG(uint64(len(query)), 7))
			paged, steps := searchPages(t, c, base, func() map[string]any {
				return map[string]any{"maxMatches": 1 + rng.IntN(60), "maxDocuments": 1 + rng.IntN(20), "budgetMs": []int{1, 50, 10000}[rng.IntN(3)]}
			})
			a, b := make([]string, len(whole)), make([]string, len(paged))
			for i, m := range whole {
				a[i] = matchKey(m)
			}
			for i, m := range paged {
				b[i] = matchKey(m)
			}
			t.Logf("%q: %d matches; in small steps %d matches in %d steps", query, len(a), len(b), steps)
			if !slices.Equal(a, b) {
				i := 0
				for i < min(len(a), len(b)) && a[i] == b[i] {
					i++
				}
				t.Fatalf("small steps differ from big ones at match %d of %d/%d:\n big:   %.200s\n small: %.200s", i, len(a), len(b), at(a, i), at(b, i))
			}

			// Recall, file for file and line for line, against the bytes.
			want := map[string]int{}
			lower := bytes.ToLower([]byte(query))
			_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
					return nil
				}
				data, _ := os.ReadFile(p)
				n := 0
				for line := range bytes.Lines(bytes.ToLower(data)) {
					if bytes.Contains(line, lower) {
						n++
					}
				}
				if n > 0 {
					rel, _ := filepath.Rel(root, p)
					want[filepath.ToSlash(rel)] = n
				}
				return nil
			})
			got := map[string]int{}
			for _, m := range whole {
				if strings.HasSuffix(m.Path, ".go") {
					got[m.Path]++
				}
			}
			for rel, n := range want {
				if got[rel] != n {
					t.Errorf("%s: %d lines hold %q, the search found %d", rel, n, query, got[rel])
				}
			}
			for rel := range got {
				if want[rel] == 0 {
					t.Errorf("%s: found, but no line of it holds %q", rel, query)
				}
			}
		})
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(end)"
}
