package demo

import (
	"context"
	"testing"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
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
