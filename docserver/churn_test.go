package docserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// textFormat matches the path of a format that always parses.
var textFormat = regexp.MustCompile(`\.(md|csv|txt) cannot be read`)

// TestReadsDuringChurn reads documents at every level while files are
// created, rewritten, renamed, deleted, corrupted and linked out of the
// root. Every read must end in a result or in an error of the spec
// (4201/4202/4203; a file deleted between its stat and its open is a
// 4201 too), or, for a corrupt package, the "cannot be read" error; and once the churn stops the listing must catch up with the
// folder: every Markdown, CSV and text file listed, nothing listed that is
// gone.
func TestReadsDuringChurn(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.md"), "# Secret\n\nnot yours\n")
	for i := range 8 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("doc%d.md", i)), fmt.Sprintf("# Doc %d\n\nbody\n", i))
	}
	s, err := New(dir, Options{Host: testHost, Logger: slog.New(slog.DiscardHandler), Debounce: 30 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); s.Close() })
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	c, notes := connect(t, s.InProcessTransport())
	tr := c.GetTransport()

	var stop atomic.Bool
	var ids atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	send := func(method string, params map[string]any) (*transport.JSONRPCResponse, error) {
		rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return tr.SendRequest(rctx, transport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(ids.Add(1)), Method: method, Params: params,
		})
	}
	for r := range 3 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(r), 0xd0c5))
			for !stop.Load() {
				resp, err := send("resources/list", map[string]any{})
				if err != nil || resp.Error != nil {
					t.Errorf("resources/list: %v %+v", err, resp)
					return
				}
				var list mcp.ListResourcesResult
				if err := json.Unmarshal(resp.Result, &list); err != nil {
					t.Errorf("resources/list result: %v", err)
					return
				}
				if len(list.Resources) == 0 {
					continue
				}
				doc := list.Resources[rng.IntN(len(list.Resources))].URI
				uri := doc + []string{"", "?format=markdown", "?format=text", "?depth=pages&limit=3", "/pages/0", "/pages/1?format=markdown", "/pages/5", "/elements/x1"}[rng.IntN(8)]
				resp, err = send("resources/read", map[string]any{"uri": uri})
				if err != nil {
					t.Errorf("read %s: %v", uri, err)
					return
				}
				outcome := "ok"
				if e := resp.Error; e != nil {
					switch {
					case e.Code == protocol.CodePageOutOfRange && strings.Contains(e.Message, "binary content"):
						outcome = "binary" // a package renamed to .txt: refused, not shown as text
					case e.Code == protocol.CodePageOutOfRange && strings.Contains(e.Message, "cannot be read"):
						if textFormat.MatchString(e.Message) {
							t.Errorf("read %s: a text format cannot be read: %s", uri, e.Message)
							return
						}
						outcome = "cannot be read" // a corrupt package
					case e.Code == protocol.CodeDocumentNotFound, e.Code == protocol.CodePageOutOfRange, e.Code == protocol.CodeElementNotFound:
						outcome = fmt.Sprint(e.Code)
					default:
						t.Errorf("read %s: unexpected error %d %s", uri, e.Code, e.Message)
						return
					}
				}
				mu.Lock()
				outcomes[outcome]++
				mu.Unlock()
			}
		})
	}

	rng := rand.New(rand.NewPCG(42, 0xc4))
	exts := []string{".md", ".csv", ".txt", ".xlsx", ".pdf", ".docx"}
	randomFile := func() string {
		sub := []string{"", "a", "a/b"}[rng.IntN(3)]
		return filepath.Join(dir, sub, fmt.Sprintf("f%d%s", rng.IntN(20), exts[rng.IntN(len(exts))]))
	}
	body := func(p string) []byte {
		switch filepath.Ext(p) {
		case ".md":
			return fmt.Appendf(nil, "# Title %d\n\n%s\n\n## Part\n\n- a\n- b\n\n```go\nx := 1\n```\n", rng.Int(), strings.Repeat("words and \x1b[31mcolour\x1b[0m ", rng.IntN(50)))
		case ".csv":
			var b strings.Builder
			for i := range rng.IntN(300) {
				fmt.Fprintf(&b, "%d,\"name, %d\",%d\n", i, rng.IntN(9), rng.Int())
			}
			return []byte(b.String())
		case ".txt":
			return []byte(strings.Repeat("line of text\n", rng.IntN(500)))
		}
		junk := make([]byte, rng.IntN(4096))
		for i := range junk {
			junk[i] = byte(rng.IntN(256))
		}
		return append([]byte("PK\x03\x04"), junk...) // looks like a package, is not
	}
	var existing []string
	for range 300 {
		switch op := rng.IntN(10); {
		case op < 4 || len(existing) == 0:
			p := randomFile()
			if os.MkdirAll(filepath.Dir(p), 0o755) == nil && os.WriteFile(p, body(p), 0o644) == nil {
				existing = append(existing, p)
			}
		case op < 6:
			p := existing[rng.IntN(len(existing))]
			_ = os.WriteFile(p, body(p), 0o644)
		case op < 8:
			i := rng.IntN(len(existing))
			_ = os.Remove(existing[i])
			existing = append(existing[:i], existing[i+1:]...)
		case op < 9:
			i := rng.IntN(len(existing))
			to := randomFile()
			if os.MkdirAll(filepath.Dir(to), 0o755) == nil && os.Rename(existing[i], to) == nil {
				existing[i] = to
			}
		default:
			_ = os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, fmt.Sprintf("link%d.md", rng.IntN(5))))
		}
		time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("reads during the churn: %v", outcomes)
	if outcomes["ok"] == 0 {
		t.Error("no read succeeded during the churn")
	}

	// The listing catches up: text formats all listed, nothing gone listed,
	// nothing from outside the root.
	want := map[string]string{} // doc_ref -> path, for files that must be listed
	exists := map[string]bool{}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&os.ModeSymlink != 0 {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		ref := DocRef(filepath.ToSlash(rel))
		exists[ref] = true
		switch filepath.Ext(p) {
		case ".md", ".csv", ".txt":
			want[ref] = rel
		}
		return nil
	})
	notes.wait(t, mcp.MethodNotificationResourcesListChanged, "", 10*time.Second)
	var problems []string
	if !testutil.WaitUntil(10*time.Second, func() bool {
		res, _ := listAll(t, c)
		problems = nil
		listed := map[string]bool{}
		for _, r := range res {
			ref := r.URI[strings.LastIndex(r.URI, "/")+1:]
			listed[ref] = true
			if !exists[ref] {
				problems = append(problems, "listed but gone or outside: "+r.URI)
			}
		}
		for ref, rel := range want {
			if !listed[ref] {
				problems = append(problems, "not listed: "+rel)
			}
		}
		return len(problems) == 0
	}) {
		t.Fatalf("10 s after the churn the listing still differs from the folder:\n%s", strings.Join(problems, "\n"))
	}
}

// TestReadGoesBeforeQueuedPeeks: a listing of a folder being changed
// queues the peeks of hundreds of files; a read that needs one of them
// must not wait for all the others (under churn on a loaded machine it
// used to wait past its caller's deadline, -32603).
func TestReadGoesBeforeQueuedPeeks(t *testing.T) {
	const files = 1500
	dir := t.TempDir()
	for i := range files {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("doc%04d.md", i)), fmt.Sprintf("# Doc %d\n\n%s\n", i, strings.Repeat("some words ", 200)))
	}
	s, c, _ := startInProcess(t, dir, Options{ListPageSize: files, ListWait: time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) != files {
		t.Fatalf("listed %d of %d", len(res.Resources), files)
	}
	before := s.peeksRun.Load()
	last := res.Resources[files-1].URI
	text, _ := readText(t, c, last+"?format=markdown")
	ran := s.peeksRun.Load()
	if !strings.Contains(text, fmt.Sprintf("Doc %d", files-1)) {
		t.Fatalf("read %s: %.80q", last, text)
	}
	t.Logf("peeks run when the listing returned: %d, when the read returned: %d of %d", before, ran, files)
	// The peeks the read let run are those it waited for; on a loaded
	// machine the listing itself may take long enough for many to run
	// before the read starts, which says nothing about the read.
	waited, queued := ran-before, files-before
	if queued < files/4 {
		t.Fatalf("only %d of %d peeks were still queued when the read started: nothing to measure", queued, files)
	}
	if waited >= queued/2 {
		t.Errorf("the read of the last listed file waited for %d of the %d peeks queued before it: it queued behind them", waited, queued)
	}
}
