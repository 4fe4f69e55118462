// Command warmpdf compiles the PDF engine into its on-disk cache
// ($XDG_CACHE_HOME/smcp-browse/wazero), so that the serve-docs processes
// the tests start load it in a fraction of a second instead of each
// compiling it (seconds; much longer in a race-detector build). make test
// runs it first.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
)

func main() {
	start := time.Now()
	if err := extract.WarmPDFEngine(); err != nil {
		fmt.Fprintln(os.Stderr, "warmpdf:", err)
		os.Exit(1)
	}
	fmt.Printf("warmpdf: PDF engine ready in %s (cache %s)\n", time.Since(start).Round(time.Millisecond), extract.PDFCacheDir())
}
