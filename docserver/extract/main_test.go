package extract

import (
	"os"
	"testing"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// sizeTests feed the parsers hostile-size input (decompression bombs,
// hundreds of thousands of rows and paragraphs) to check the bounds on
// memory, output and work. Under the race detector they skip: it slows
// them tenfold and more (TestLargeSheetIsStreamed: 24 s of CPU, 2 s
// without it), and the parsers run under it on ordinary input in the
// other tests. make test runs them in its pass without it.
var sizeTests = testutil.NewSizeTests(
	"TestXMLCommentsCountTowardTheBound",
	"TestMarkdownNestingIsBounded",
	"TestPackageDecompressionBudget",
	"TestParagraphBombIsBoundedByBytes",
	"TestLargeSheetIsStreamed",
	"TestHTMLParagraphBombIsBoundedByBytes",
	"TestMarkdownListBombIsBoundedByBytes",
	"TestMarkdownInlineMarkupIsBounded",
)

func TestMain(m *testing.M) { os.Exit(sizeTests.Main(m)) }
