package demo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// BenchmarkStartFirstCatalog measures what `smcp-browse --demo` waits for
// before its first catalog frame: extracting the corpus, starting the
// Server, the Computer and the serve-docs subprocess, joining, and the
// first get_finder. Close (children stopped, folder removed) is outside the
// timing.
func BenchmarkStartFirstCatalog(b *testing.B) {
	bin := testutil.Binary(b)
	ctx := context.Background()
	for b.Loop() {
		sys, err := Start(ctx, Options{Executable: bin})
		if err != nil {
			b.Fatal(err)
		}
		ret, err := sys.Agent.GetFinder(ctx, sys.Computer, agent.FinderQuery{Limit: 50})
		if err != nil || ret.TotalCount == 0 {
			b.Fatalf("first catalog: %v, %+v", err, ret)
		}
		b.StopTimer()
		if err := sys.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkFirstRows10k measures issue 11.6's target on a fresh system
// over a folder of 10,000 Markdown files, every cache cold: start-up (as
// above), then how long the first get_finder takes to answer with rows
// (first-rows-ms) and how long until the catalog is settled, nothing
// pending and the listing complete (settled-ms).
func BenchmarkFirstRows10k(b *testing.B) {
	bin := testutil.Binary(b)
	dir := b.TempDir()
	const folders, perFolder = 100, 100
	for i := range folders {
		sub := filepath.Join(dir, fmt.Sprintf("team-%03d", i))
		if err := os.Mkdir(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range perFolder {
			text := fmt.Sprintf("# Note %d of team %d\n\nMinutes of meeting %d: budget, roadmap and hiring.\n\n## Actions\n\n- follow up %d\n", j, i, j, j)
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("note-%03d.md", j)), []byte(text), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	ctx := context.Background()
	var start, first, settled time.Duration
	for b.Loop() {
		b.StopTimer()
		b.Setenv("XDG_CACHE_HOME", b.TempDir()) // the document server's index cache starts cold
		b.StartTimer()
		t0 := time.Now()
		sys, err := Start(ctx, Options{Executable: bin, Docs: dir})
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		ret, err := sys.Agent.GetFinder(ctx, sys.Computer, agent.FinderQuery{Limit: 50})
		if err != nil || len(ret.Documents) == 0 {
			b.Fatalf("first catalog: %v, %+v", err, ret)
		}
		t2 := time.Now()
		for !settledCatalog(ret) {
			time.Sleep(20 * time.Millisecond)
			if ret, err = sys.Agent.GetFinder(ctx, sys.Computer, agent.FinderQuery{Limit: 50}); err != nil {
				b.Fatal(err)
			}
		}
		if ret.TotalCount != folders*perFolder {
			b.Fatalf("settled catalog has %d documents, want %d", ret.TotalCount, folders*perFolder)
		}
		t3 := time.Now()
		start += t1.Sub(t0)
		first += t2.Sub(t1)
		settled += t3.Sub(t1)
		b.StopTimer()
		if err := sys.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	n := float64(b.N)
	b.ReportMetric(float64(start.Milliseconds())/n, "start-ms")
	b.ReportMetric(float64(first.Milliseconds())/n, "first-rows-ms")
	b.ReportMetric(float64(settled.Milliseconds())/n, "settled-ms")
}

// settledCatalog reports whether an answer is settled: the listing is
// complete and it depends on no provisional entry.
func settledCatalog(ret *protocol.GetFinderRet) bool {
	if ret.Pending > 0 || ret.Listing {
		return false
	}
	for _, d := range ret.Documents {
		if d.Pending {
			return false
		}
	}
	return true
}
