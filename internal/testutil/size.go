package testutil

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// SizeEnv, set to 1, runs a package's size tests alone (make test's pass
// without the race detector), or with it when the test binary has it.
const SizeEnv = "SMCP_SIZE_TESTS"

// SizeTests are the tests of a package that feed hostile-size input
// (decompression bombs, hundreds of thousands of rows or paragraphs) to
// check the bounds that hold on it: memory, output, time. Their work is
// single-goroutine parsing that the race detector slows tenfold and more
// and whose heap figures it inflates, while the same code runs under it on
// ordinary input in the package's other tests. So under the race detector
// they skip, saying where they run: make test runs them again without it,
// alone (SizeEnv).
type SizeTests struct {
	names []string
	mu    sync.Mutex
	ran   map[string]bool
}

// NewSizeTests lists a package's size tests by name.
func NewSizeTests(names ...string) *SizeTests {
	return &SizeTests{names: names, ran: map[string]bool{}}
}

// Main runs the package's tests; call it from TestMain. With SizeEnv=1
// it runs the size tests alone (unless -test.run was given), and fails
// when one of them is missing.
func (s *SizeTests) Main(m *testing.M) int {
	if !flag.Parsed() {
		flag.Parse()
	}
	only := os.Getenv(SizeEnv) == "1" && s.selectOnly(flag.CommandLine)
	code := m.Run()
	if only && code == 0 {
		if missing := s.missing(); len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "size tests listed but not run (renamed? not calling Start?): %s\n", strings.Join(missing, ", "))
			return 1
		}
	}
	return code
}

// selectOnly sets -test.run to the size tests unless it was given, and
// reports whether it did.
func (s *SizeTests) selectOnly(fs *flag.FlagSet) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "test.run" })
	f := fs.Lookup("test.run")
	if given || f == nil {
		return false
	}
	quoted := make([]string, len(s.names))
	for i, n := range s.names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	return f.Value.Set("^("+strings.Join(quoted, "|")+")$") == nil
}

func (s *SizeTests) missing() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, n := range s.names {
		if !s.ran[n] {
			out = append(out, n)
		}
	}
	return out
}

// Start begins size test t: it fails t when it is not listed, and skips
// it under the race detector unless SizeEnv=1 asks for it.
func (s *SizeTests) Start(t testing.TB) {
	t.Helper()
	if !slices.Contains(s.names, t.Name()) {
		t.Fatalf("%s is a size test not listed in the package's NewSizeTests", t.Name())
	}
	if raceEnabled && os.Getenv(SizeEnv) != "1" {
		t.Skipf("a size test: it runs without the race detector, in make test's pass without it (%s=1 go test -run '^%s$')", SizeEnv, t.Name())
	}
	s.mu.Lock()
	s.ran[t.Name()] = true
	s.mu.Unlock()
}
