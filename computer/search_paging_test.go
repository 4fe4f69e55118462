package computer_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/computer"
	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// TestSearchFinderPagingProperty: over two real folders nobody here wrote
// (Go's net/http/httputil and net/textproto, one document server each),
// a search followed in steps of random sizes returns exactly the matches
// of the search in big steps, in the same order, each once, and every
// step moves the cursor on; a literal search finds every line that holds
// its string, file for file.
func TestSearchFinderPagingProperty(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src", "net")
	dirs := map[string]string{"docs-a": filepath.Join(src, "http", "httputil"), "docs-b": filepath.Join(src, "textproto")}
	n := 0
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(d, "*.go"))
		n += len(files)
	}
	bin := testutil.Binary(t)
	r := startRig(t, []config.Server{
		docServer(bin, "docs-a", dirs["docs-a"], "docs.a"),
		docServer(bin, "docs-b", dirs["docs-b"], "docs.b"),
	}, computer.Options{})
	r.catalog(t, agent.FinderQuery{Limit: 100}, func(ret *protocol.GetFinderRet) bool { return ret.TotalCount == n })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	rng := rand.New(rand.NewPCG(3, 5))
	check := func(t *testing.T, q protocol.SearchQuery) []protocol.SearchMatch {
		t.Helper()
		big := q
		big.MaxMatches, big.MaxDocuments = protocol.SearchMaxMatches, protocol.SearchMaxDocuments
		whole := r.pages(ctx, t, big, func() protocol.SearchQuery { return big })
		paged := r.pages(ctx, t, q, func() protocol.SearchQuery {
			q.MaxMatches, q.MaxDocuments = 1+rng.IntN(40), 1+rng.IntN(6)
			return q
		})
		key := func(m protocol.SearchMatch) string {
			return fmt.Sprintf("%s|%s|%s|%d|%q", m.Server, m.URI, m.ElementID, m.Start, m.Line)
		}
		a, b := make([]string, len(whole)), make([]string, len(paged))
		for i, m := range whole {
			a[i] = key(m)
		}
		for i, m := range paged {
			b[i] = key(m)
		}
		t.Logf("%q literal=%v: %d matches in big steps, %d in small ones", q.Query, q.Literal, len(a), len(b))
		if !slices.Equal(a, b) {
			i := 0
			for i < min(len(a), len(b)) && a[i] == b[i] {
				i++
			}
			t.Fatalf("small steps differ from big ones at match %d (%d vs %d matches)", i, len(b), len(a))
		}
		return whole
	}

	t.Run("literal", func(t *testing.T) {
		for _, query := range []string{"err", "TODO", "Header"} {
			whole := check(t, protocol.SearchQuery{Query: query, Literal: true})
			got := map[string]int{}
			for _, m := range whole {
				got[m.Server+"/"+m.Path]++
			}
			needle := bytes.ToLower([]byte(query))
			for name, dir := range dirs {
				files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
				for _, f := range files {
					data, _ := os.ReadFile(f)
					want := 0
					for line := range bytes.Lines(bytes.ToLower(data)) {
						if bytes.Contains(line, needle) {
							want++
						}
					}
					if k := name + "/" + filepath.Base(f); got[k] != want {
						t.Errorf("%q: %s has %d lines with it, the search found %d", query, k, want, got[k])
					}
				}
			}
		}
	})
	t.Run("ranked", func(t *testing.T) {
		for {
			ret, err := r.agent.SearchFinder(ctx, "pc", protocol.SearchQuery{Query: "header"})
			if err != nil {
				t.Fatal(err)
			}
			if ret.Indexing == nil && ret.IndexedDocuments == n {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("indexes not built: %+v", ret)
			}
			time.Sleep(50 * time.Millisecond)
		}
		for _, query := range []string{"header", "read*", "\"the connection\""} {
			check(t, protocol.SearchQuery{Query: query})
		}
	})
}

// pages follows a search's cursor from the start, each step's query from
// next, and returns every match in order. It fails when a step does not
// move the cursor on or the steps do not end.
func (r *rig) pages(ctx context.Context, t *testing.T, q protocol.SearchQuery, next func() protocol.SearchQuery) []protocol.SearchMatch {
	t.Helper()
	var all []protocol.SearchMatch
	cursor := ""
	for step := 1; ; step++ {
		q := next()
		q.Cursor = cursor
		ret, err := r.agent.SearchFinder(ctx, "pc", q)
		if err != nil {
			t.Fatalf("%q step %d: %v", q.Query, step, err)
		}
		if len(ret.Matches) > q.MaxMatches {
			t.Fatalf("%q step %d: %d matches, asked for %d", q.Query, step, len(ret.Matches), q.MaxMatches)
		}
		all = append(all, ret.Matches...)
		if ret.NextCursor == "" {
			return all
		}
		if ret.NextCursor == cursor {
			t.Fatalf("%q step %d: the cursor did not move", q.Query, step)
		}
		if step > 5000 {
			t.Fatalf("%q: the search never ended", q.Query)
		}
		cursor = ret.NextCursor
	}
}
