package docserver

import (
	"compress/gzip"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// The first minute on a new folder: the search a person makes right
// after the folder is listed, before the index is built and with no
// cache, against grep -ril over the same folder in the same run.
//
// The folder, of files nobody here wrote: the Markdown files of the Go
// module cache and the READMEs of the npm test peers, the Debian PDF
// manuals the PDF tests read, and Go's net/http sources.

var firstMinute struct {
	once sync.Once
	dir  string
}

// firstMinuteFolder builds the folder once per process.
func firstMinuteFolder(b *testing.B) string {
	firstMinute.once.Do(func() {
		dir, err := os.MkdirTemp("", "bench-first-minute-")
		if err != nil {
			b.Fatal(err)
		}
		copyMatching := func(src, prefix string, keep func(p string) bool) int {
			n := 0
			filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || !d.Type().IsRegular() || !keep(p) {
					return nil
				}
				rel, _ := filepath.Rel(src, p)
				if data, err := os.ReadFile(p); err == nil {
					writeFile(b, filepath.Join(dir, prefix, rel), string(data))
					n++
				}
				return nil
			})
			return n
		}
		md := func(p string) bool { return strings.EqualFold(filepath.Ext(p), ".md") }
		readme := func(p string) bool { return strings.HasPrefix(strings.ToLower(filepath.Base(p)), "readme") }
		goSrc := func(p string) bool { return strings.HasSuffix(p, ".go") }
		n := copyMatching(goDir(b, "env", "GOMODCACHE"), "modcache", md)
		n += copyMatching(filepath.Join(testutil.RepoRoot(b), "test", "node", "node_modules"), "npm", readme)
		n += copyMatching(filepath.Join(goDir(b, "env", "GOROOT"), "src", "net", "http"), "net-http", goSrc)
		for _, pdf := range []string{
			"/usr/share/doc/valgrind/valgrind_manual.pdf.gz", "/usr/share/doc/nettle-dev/nettle.pdf.gz",
			"/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz", "/usr/share/doc/fontconfig/fontconfig-user.pdf.gz",
			"/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
		} {
			f, err := os.Open(pdf)
			if err != nil {
				b.Skipf("no %s (make test-deps installs it)", pdf)
			}
			var r io.Reader = f
			if strings.HasSuffix(pdf, ".gz") {
				if r, err = gzip.NewReader(f); err != nil {
					b.Fatal(err)
				}
			}
			data, err := io.ReadAll(r)
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
			writeFile(b, filepath.Join(dir, "manuals", strings.TrimSuffix(filepath.Base(pdf), ".gz")), string(data))
			n++
		}
		if n < 500 {
			b.Fatalf("only %d files for the first-minute folder", n)
		}
		firstMinute.dir = dir
	})
	if firstMinute.dir == "" {
		b.Fatal("no folder")
	}
	return firstMinute.dir
}

// grepFiles is the set of files grep -ilw finds word in, relative to dir.
func grepFiles(b *testing.B, word, dir string) map[string]bool {
	out, err := exec.Command("grep", "-rilw", "--", word, dir).Output()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 1) {
		b.Fatalf("grep: %v", err)
	}
	files := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if rel, err := filepath.Rel(dir, l); l != "" && err == nil {
			files[filepath.ToSlash(rel)] = true
		}
	}
	return files
}

// BenchmarkSearchFirstMinute: a new server with an empty cache over the
// folder, and at once a search to its end through MCP, as the Computer
// pages it (steps of the default size): for a word in no file (x-grep: its time over grep -ril's), and
// for a common word (first-ms: until the first step that returns a
// match; missed: files grep -ilw finds the word in that the search does
// not, PDFs aside, which grep cannot read).
func BenchmarkSearchFirstMinute(b *testing.B) {
	if _, err := exec.LookPath("grep"); err != nil {
		b.Skip("no grep to compare with")
	}
	dir := firstMinuteFolder(b)
	for _, w := range []struct{ name, word string }{{"none", "zeppelinqx"}, {"common", "middleware"}} {
		b.Run(w.name, func(b *testing.B) {
			grep := grepTime(b, w.word, dir)
			var first, total time.Duration
			var found map[string]bool
			docs := 0
			for b.Loop() {
				s, c, _ := startInProcess(b, dir, Options{CacheDir: b.TempDir(), Logger: slog.New(slog.DiscardHandler)})
				found = map[string]bool{}
				start := time.Now()
				first = 0
				args := map[string]any{"query": w.word}
				for steps := 0; ; steps++ {
					res, raw := callSearch(b, c, args)
					if raw.IsError || steps > 10000 {
						b.Fatalf("search: %v", raw.Content)
					}
					if len(res.Matches) > 0 && first == 0 {
						first = time.Since(start)
					}
					for _, m := range res.Matches {
						found[m.Path] = true
					}
					docs = res.Total
					if res.NextCursor == "" {
						break
					}
					args = map[string]any{"query": w.word, "cursor": res.NextCursor}
				}
				total = time.Since(start)
				s.Close()
			}
			missed := 0
			for f := range grepFiles(b, w.word, dir) {
				if !found[f] && !strings.HasSuffix(f, ".pdf") {
					missed++
					b.Logf("%q: grep finds it in %s, the search does not", w.word, f)
				}
			}
			b.ReportMetric(float64(docs), "docs")
			b.ReportMetric(float64(grep.Microseconds())/1000, "grep-ms")
			b.ReportMetric(float64(total)/float64(grep), "x-grep")
			b.ReportMetric(float64(first.Milliseconds()), "first-ms")
			b.ReportMetric(float64(len(found)), "files")
			b.ReportMetric(float64(missed), "missed")
		})
	}
}
