package docserver

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// The full-text index measured on real folders, against grep -ril on the
// same folder in the same run (the machine is shared: ratios, medians):
//
//   - BenchmarkIndexBuild: the build of a whole folder's index, with its
//     size on disk, the index's memory and the process's peak heap;
//   - BenchmarkSearchWarm: a search of a built index, through MCP, for a
//     word in no file, a rare word, a common one, a phrase and prefixes
//     (of one, two and four letters, which the prefix fields answer);
//     one step answers for every document (scanned == total) with the
//     best 50 pages, so first results are the complete answer;
//   - BenchmarkReindexOneFile: from the write of one edited file to the
//     search that finds its new word (the watcher's debounce included).
//
// The folders: a copy of GOROOT/src (9,580 documents) and the Markdown
// files of the Go module cache.

// benchCorpus is a folder to measure, copied once per process.
type benchCorpus struct {
	name  string
	copy  func(b *testing.B, dst string)
	words []benchWord

	once sync.Once
	dir  string
	// cache holds the index the build benchmark (or the first search
	// benchmark) made, reused by the others.
	cache string
}

type benchWord struct {
	name, query, grep string
}

var benchCorpora = []*benchCorpus{
	{
		name: "goroot-src",
		copy: func(b *testing.B, dst string) {
			src := filepath.Join(goDir(b, "env", "GOROOT"), "src")
			if out, err := exec.Command("cp", "-r", src+"/.", dst).CombinedOutput(); err != nil {
				b.Fatalf("copy GOROOT/src: %v\n%s", err, out)
			}
		},
		words: []benchWord{
			{"none", "zeppelinqx", "zeppelinqx"},
			{"rare", "boyer", "boyer"},
			{"common", "func", "func"},
			{"phrase", `"read from"`, "read from"},
			{"prefix", "marsh*", "marsh"},
			{"one-letter-prefix", "m*", "m"},
			{"two-letter-prefix", "co*", "co"},
			{"test-prefix", "test*", "test"}, // 10,069 words start with it
		},
	},
	{
		name: "modcache-md",
		copy: func(b *testing.B, dst string) {
			src := goDir(b, "env", "GOMODCACHE")
			n := 0
			filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".md") {
					return nil
				}
				rel, _ := filepath.Rel(src, p)
				if data, err := os.ReadFile(p); err == nil {
					writeFile(b, filepath.Join(dst, rel), string(data))
					n++
				}
				return nil
			})
			if n < 50 {
				b.Fatalf("only %d Markdown files in the module cache", n)
			}
		},
		words: []benchWord{
			{"none", "zeppelinqx", "zeppelinqx"},
			{"rare", "bleve", "bleve"},
			{"common", "license", "license"},
			{"phrase", `"pull request"`, "pull request"},
		},
	},
}

// removeBenchCorpora removes the folders and indexes the benchmarks made
// (TestMain calls it).
func removeBenchCorpora() {
	for _, c := range benchCorpora {
		if c.dir != "" {
			os.RemoveAll(c.dir)
		}
		if c.cache != "" {
			os.RemoveAll(c.cache)
		}
	}
}

func (c *benchCorpus) folder(b *testing.B) string {
	c.once.Do(func() {
		dir, err := os.MkdirTemp("", "bench-"+c.name+"-")
		if err != nil {
			b.Fatal(err)
		}
		c.copy(b, dir)
		c.dir = dir
	})
	if c.dir == "" {
		b.Fatal("no folder")
	}
	return c.dir
}

// buildIndex serves dir with its index in cache and waits until the index
// holds every document; it returns the server (started, watching), how
// long the build took and the peak heap meanwhile.
func buildIndex(b *testing.B, dir, cache string) (*Server, time.Duration, uint64) {
	b.Helper()
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	s, err := New(dir, Options{Host: testHost, CacheDir: cache})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	s.text.markListed()
	waitIndexed(b, s, 30*time.Minute)
	took := time.Since(start)
	close(stop)
	return s, took, peak.Load()
}

func BenchmarkIndexBuild(b *testing.B) {
	for _, c := range benchCorpora {
		b.Run(c.name, func(b *testing.B) {
			dir := c.folder(b)
			var st IndexStatus
			var peak uint64
			var cpu, compact time.Duration
			for b.Loop() {
				cache, err := os.MkdirTemp("", "bench-cache-")
				if err != nil {
					b.Fatal(err)
				}
				if c.cache != "" {
					os.RemoveAll(c.cache)
				}
				before := cpuTime(b)
				s, _, p := buildIndex(b, dir, cache)
				ready := time.Now()
				testutil.Eventually(b, 10*time.Minute, "the index compacted", s.text.compacted)
				compact += time.Since(ready)
				cpu += cpuTime(b) - before
				st = s.IndexStatus()
				peak = max(peak, p)
				s.Close()
				// At rest: the merges Close waits for may shrink it.
				st.DiskBytes = fulltextDirSize(b, s.text.dir)
				c.cache = cache
			}
			b.ReportMetric(float64(st.Total), "docs")
			b.ReportMetric(float64(st.DiskBytes)/(1<<20), "disk-MiB")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(compact.Seconds()/float64(b.N), "compact-s/op")
			b.ReportMetric(float64(st.DiskBytes)/float64(folderBytes(b, dir)), "x-corpus")
		})
	}
}

// warmServer is the corpus's server with its index built (reusing the
// build benchmark's index when it ran).
func (c *benchCorpus) warmServer(b *testing.B) (*Server, *client.Client) {
	dir := c.folder(b)
	if c.cache == "" {
		cache, err := os.MkdirTemp("", "bench-cache-")
		if err != nil {
			b.Fatal(err)
		}
		c.cache = cache
	}
	s, _, _ := buildIndex(b, dir, c.cache)
	b.Cleanup(func() { s.Close() })
	cl, _ := connect(b, s.InProcessTransport())
	return s, cl
}

// grepTime is the median time of grep -ril over dir.
func grepTime(b *testing.B, word, dir string) time.Duration {
	var runs []time.Duration
	for range 5 {
		start := time.Now()
		err := exec.Command("grep", "-ril", "--", word, dir).Run()
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 1) {
			b.Fatalf("grep: %v", err)
		}
		runs = append(runs, time.Since(start))
	}
	slices.Sort(runs)
	return runs[len(runs)/2]
}

func BenchmarkSearchWarm(b *testing.B) {
	if _, err := exec.LookPath("grep"); err != nil {
		b.Skip("no grep to compare with")
	}
	for _, c := range benchCorpora {
		b.Run(c.name, func(b *testing.B) {
			s, cl := c.warmServer(b)
			for _, w := range c.words {
				b.Run(w.name, func(b *testing.B) {
					grep := grepTime(b, w.grep, s.Root())
					var res SearchResult
					for b.Loop() {
						res, _ = callSearch(b, cl, map[string]any{"query": w.query})
					}
					if res.Scanned != res.Total || res.Indexed != res.Total {
						b.Fatalf("the index did not answer for every document: %+v", res)
					}
					per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
					b.ReportMetric(float64(grep.Microseconds())/1000, "grep-ms")
					b.ReportMetric(per/float64(grep.Nanoseconds()), "x-grep")
					b.ReportMetric(float64(len(res.Matches)), "matches")
				})
			}
		})
	}
}

func BenchmarkReindexOneFile(b *testing.B) {
	c := benchCorpora[0]
	s, cl := c.warmServer(b)
	path := filepath.Join(s.Root(), "bufio", "bufio.go")
	orig, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	defer os.WriteFile(path, orig, 0o644)
	i := 0
	for b.Loop() {
		i++
		word := fmt.Sprintf("edited%dmark", i)
		if err := os.WriteFile(path, append(slices.Clip(orig), "\n// "+word+"\n"...), 0o644); err != nil {
			b.Fatal(err)
		}
		for {
			res, _ := callSearch(b, cl, map[string]any{"query": word})
			if len(res.Matches) == 1 && res.Matches[0].Score > 0 {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// folderBytes sums the sizes of the regular files under dir.
func folderBytes(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// compacted reports whether no compaction runs or is due.
func (t *textIndex) compacted() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.compacting.Load() && t.written < indexCompactAfter
}

// fulltextDirSize is the size of the index in dir.
func fulltextDirSize(b *testing.B, dir string) int64 {
	if dir == "" {
		b.Fatal("the index is in memory")
	}
	return folderBytes(b, dir)
}
