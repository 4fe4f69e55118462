package docserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// sizeTests check bounds on hostile-size input: serve-docs's peak RSS on
// such files (meaningless under the race detector's shadow memory), the
// search index of a 12 MiB document (30 s under it, single-goroutine
// indexing), a watcher batch over 20,000 files (its CPU bound), and the
// raw prefilter checked against the extraction of 700 real files (284 s
// under it on a loaded machine, 7 s without it). make test runs them in its
// pass without the race detector; the same code runs under it on ordinary
// input in the other tests.
var sizeTests = testutil.NewSizeTests(
	"TestServeDocsMemoryOnHostileFiles",
	"TestSearchIndexBounds",
	"TestWatcherBatchScalesWithItsSize",
	"TestRawPrefilterKeepsEveryWord",
)

// TestMain gives the tests (and the serve-docs binaries they start) a
// cache directory of their own, so their index caches do not pile up in
// the user's; the compiled PDF engine is still shared with the user's
// cache, where compiling it once costs seconds.
func TestMain(m *testing.M) {
	// The go command's build cache defaults to $XDG_CACHE_HOME/go-build:
	// keep the user's, or the serve-docs binary the tests build
	// (testutil.Binary) is compiled from nothing (minutes) on every run.
	if os.Getenv("GOCACHE") == "" {
		if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
			os.Setenv("GOCACHE", strings.TrimSpace(string(out)))
		}
	}
	engine := extract.PDFCacheDir()
	tmp, err := os.MkdirTemp("", "docserver-cache-")
	if err != nil {
		panic(err)
	}
	if engine != "" {
		os.MkdirAll(engine, 0o755)
		os.MkdirAll(filepath.Join(tmp, "smcp-browse"), 0o755)
		os.Symlink(engine, filepath.Join(tmp, "smcp-browse", "wazero"))
	}
	os.Setenv("XDG_CACHE_HOME", tmp)
	code := sizeTests.Main(m)
	removeBenchCorpora()
	os.RemoveAll(tmp)
	os.Exit(code)
}
