package testutil

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The PDF benchmarks compare our reads with pdftotext's extraction of the
// same file in the same run: ratios, not absolute times, are what a loaded
// machine can compare.

// ValgrindManual writes the 397-page valgrind manual (testdata/pdf,
// gzipped) into a folder of its own and returns the folder and the PDF's
// path.
func ValgrindManual(tb testing.TB) (dir, pdf string) {
	tb.Helper()
	gz, err := os.ReadFile(filepath.Join(RepoRoot(tb), "testdata", "pdf", "valgrind_manual.pdf.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		tb.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	dir = tb.TempDir()
	pdf = filepath.Join(dir, "valgrind_manual.pdf")
	if err := os.WriteFile(pdf, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir, pdf
}

// Pdftotext times pdftotext extracting a whole PDF file: wall and CPU
// time. It fails when pdftotext is not installed.
func Pdftotext(tb testing.TB, file string) (wall, cpu time.Duration) {
	tb.Helper()
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		tb.Fatal("pdftotext is not installed (apt-get install poppler-utils): the benchmark reports ratios to it")
	}
	cmd := exec.Command(bin, "-q", file, os.DevNull)
	start := time.Now()
	if err := cmd.Run(); err != nil {
		tb.Fatalf("pdftotext %s: %v", file, err)
	}
	return time.Since(start), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// Median is the median of some durations (0 for none).
func Median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// ReportRatio reports the medians of our times and pdftotext's (ms-ours,
// ms-pdftotext) and their ratio in wall time (x-pdftotext) and in CPU time
// (x-pdftotext-cpu, which a loaded machine disturbs less).
func ReportRatio(b *testing.B, ours, ref, oursCPU, refCPU []time.Duration) {
	mo, mr := Median(ours), Median(ref)
	b.ReportMetric(float64(mo.Microseconds())/1000, "ms-ours")
	b.ReportMetric(float64(mr.Microseconds())/1000, "ms-pdftotext")
	b.ReportMetric(float64(mo)/float64(max(mr, 1)), "x-pdftotext")
	b.ReportMetric(float64(Median(oursCPU))/float64(max(Median(refCPU), 1)), "x-pdftotext-cpu")
}
