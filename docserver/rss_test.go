package docserver

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/docserver/internal/hostile"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// peakRSS is a process's peak resident set (VmHWM) in bytes, from /proc.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	testutil.NeedProc(t)
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatalf("serve-docs (pid %d) is gone: %v", pid, err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// serveDocs starts the serve-docs binary over dir and returns a client and
// the process id.
func serveDocs(t *testing.T, dir string) (*notesClient, int) {
	t.Helper()
	c, p := startServeDocs(t, dir, nil, "--log-level", "warn")
	return &notesClient{c}, p.Pid
}

// startServeDocs starts the serve-docs binary over dir with more
// environment variables and arguments, and returns a client and the
// process.
func startServeDocs(t *testing.T, dir string, env []string, args ...string) (*client.Client, *os.Process) {
	t.Helper()
	var mu sync.Mutex
	var cmd *exec.Cmd
	tr := transport.NewStdioWithOptions(testutil.Binary(t), env,
		append([]string{"serve-docs", dir, "--host", testHost}, args...),
		transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
			c := exec.CommandContext(ctx, command, args...)
			c.Env = append(os.Environ(), env...)
			mu.Lock()
			cmd = c
			mu.Unlock()
			return c, nil
		}))
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	c, _ := connect(t, tr)
	mu.Lock()
	defer mu.Unlock()
	return c, cmd.Process
}

// The hostile files of issue 17 each took serve-docs to gigabytes (or
// crashed it); each must now be served (or listed as unreadable) with
// the process under 1 GiB of peak RSS, a good document beside it still
// served, and four concurrent reads of heavy files must not crash it.
// The figures are logged. Without the race detector only: its shadow
// memory multiplies a process's footprint.
func TestServeDocsMemoryOnHostileFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds large files")
	}
	if raceBuild {
		t.Skip("peak RSS means nothing under the race detector")
	}
	cases := []struct {
		name string
		gen  func() []byte
	}{
		{"comments.docx", func() []byte { return hostile.CommentSplitDOCX(400_000, false) }},
		{"comments-core.docx", func() []byte { return hostile.CommentSplitDOCX(400_000, true) }},
		{"paragraphs.docx", func() []byte { return hostile.ParagraphBombDOCX(400_000, 100) }},
		{"inflating.pptx", func() []byte { return hostile.InflatingPPTX(90, 60<<20) }},
		{"rows.xlsx", func() []byte { return hostile.ManyRowsXLSX(1_000_000) }},
		{"nested.md", func() []byte { return hostile.NestedListMarkdown(5000) }},
		{"markers.md", func() []byte { return hostile.ListMarkerMarkdown(100_000) }},
		{"loop.pdf", hostile.LoopTreePDF},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			data := tc.gen()
			writeFile(t, filepath.Join(dir, "good.md"), "# Good\n\ntext\n")
			if err := os.WriteFile(filepath.Join(dir, tc.name), data, 0o644); err != nil {
				t.Fatal(err)
			}
			c, pid := serveDocs(t, dir)
			before := peakRSS(t, pid)
			start := time.Now()
			var bad, good mcp.Resource
			testutil.Eventually(t, 3*time.Minute, tc.name+" listed and no longer pending", func() bool {
				all, _ := listAll(t, c.Client)
				bad, _ = resourceByPath(all, tc.name)
				good, _ = resourceByPath(all, "good.md")
				return bad.URI != "" && bad.Meta.AdditionalFields["pending"] != true
			})
			var doc protocol.DPEDocument
			readJSON(t, c.Client, bad.URI, &doc)
			if doc.Unreadable == "" && doc.PageCount > 0 {
				readText(t, c.Client, bad.URI+"/pages/0?format=markdown")
			}
			var g protocol.DPEDocument
			readJSON(t, c.Client, good.URI, &g)
			if g.Title != "Good" {
				t.Errorf("good.md beside %s: %+v", tc.name, g)
			}
			peak := peakRSS(t, pid)
			t.Logf("%s (%d bytes): listed as %.40q, Level 1 pages=%d truncated-or-unreadable=%q in %s; serve-docs peak RSS %d MiB (at start %d MiB)",
				tc.name, len(data), bad.Name, doc.PageCount, doc.Unreadable, time.Since(start).Round(time.Millisecond), peak>>20, before>>20)
			if peak > 1<<30 {
				t.Errorf("%s: serve-docs peaked at %d MiB", tc.name, peak>>20)
			}
		})
	}
	t.Run("four concurrent heavy reads", func(t *testing.T) {
		dir := t.TempDir()
		body := strings.Repeat(`<w:p><w:r><w:t>word</w:t></w:r></w:p>`, 150_000)
		core := `<dc:title>Heavy</dc:title><dc:description>Many paragraphs.</dc:description>`
		for i := range 4 {
			writeFile(t, filepath.Join(dir, "heavy"+strconv.Itoa(i)+".docx"), string(hostile.DOCX(body, core)))
		}
		writeFile(t, filepath.Join(dir, "rows.xlsx"), string(hostile.ManyRowsXLSX(300_000)))
		c, pid := serveDocs(t, dir)
		all, _ := listAll(t, c.Client)
		var wg sync.WaitGroup
		for _, r := range all {
			wg.Go(func() {
				var d protocol.DPEDocument
				readJSON(t, c.Client, r.URI, &d)
				if d.PageCount == 0 {
					t.Errorf("%s: %+v", r.URI, d)
				}
			})
		}
		wg.Wait()
		peak := peakRSS(t, pid)
		t.Logf("5 concurrent heavy reads: serve-docs peak RSS %d MiB", peak>>20)
		if peak > 1<<30 {
			t.Errorf("serve-docs peaked at %d MiB", peak>>20)
		}
	})
}

// notesClient wraps the client of a started binary.
type notesClient struct{ *client.Client }
