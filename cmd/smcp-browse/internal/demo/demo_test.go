package demo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/democorpus"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

func corpusSize(t *testing.T) int {
	t.Helper()
	n, err := democorpus.Extract(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestEmbeddedCorpus runs the whole demo over the embedded corpus: every
// file is in the catalog, a page reads through the real document server,
// and Close removes the extracted folder.
func TestEmbeddedCorpus(t *testing.T) {
	bin := testutil.Binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sys, err := Start(ctx, Options{Executable: bin})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			sys.Close()
		}
	}()
	if sys.Office != DefaultOffice || sys.Computer != DefaultComputer || !strings.HasPrefix(sys.URL, "http://127.0.0.1:") {
		t.Errorf("system = %+v", sys)
	}
	ret, err := sys.Agent.GetFinder(ctx, sys.Computer, agent.FinderQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if want := corpusSize(t); ret.TotalCount != want || len(ret.Documents) != want {
		t.Fatalf("catalog: total %d, %d documents; the corpus has %d files", ret.TotalCount, len(ret.Documents), want)
	}
	var q3 *protocol.DPEDocumentSummary
	for i, d := range ret.Documents {
		if !strings.HasPrefix(d.URI, "dpe://"+DefaultHost+"/") {
			t.Errorf("%s: not on host %s", d.URI, DefaultHost)
		}
		if d.Server != DocServerName {
			t.Errorf("%s: server %q, want %q", d.URI, d.Server, DocServerName)
		}
		if strings.HasSuffix(d.FileURI, "q3-report.md") {
			q3 = &ret.Documents[i]
		}
	}
	if q3 == nil {
		t.Fatal("reports/q3-report.md is not in the catalog")
	}
	u, err := dpe.Parse(q3.URI)
	if err != nil {
		t.Fatal(err)
	}
	page, err := sys.Agent.ReadPage(ctx, sys.Computer, dpe.Page(u.Host, u.DocRef, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Elements) == 0 {
		t.Errorf("page 0 of %s has no elements", q3.URI)
	}
	docs := sys.Docs
	if _, err := os.Stat(filepath.Join(docs, "reports", "q3-report.md")); err != nil {
		t.Fatalf("extracted corpus: %v", err)
	}
	start := time.Now()
	if err := sys.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	closed = true
	t.Logf("Close took %v", time.Since(start))
	if _, err := os.Stat(docs); !os.IsNotExist(err) {
		t.Errorf("extracted corpus %s still there after Close (stat: %v)", docs, err)
	}
	if err := sys.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestDocsFolder serves a caller's folder, which Close leaves alone, and
// reports a new file through notify:update_finder.
func TestDocsFolder(t *testing.T) {
	bin := testutil.Binary(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "one.md"), []byte("# One\n\nfirst"), 0o644); err != nil {
		t.Fatal(err)
	}
	updates := make(chan string, 16)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sys, err := Start(ctx, Options{Executable: bin, Docs: dir, Office: "o1", Computer: "pc",
		Handlers: agent.Handlers{UpdateFinder: func(n protocol.UpdateComputerConfigReq) {
			select {
			case updates <- n.Computer:
			default:
			}
		}}})
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	ret, err := sys.Agent.GetFinder(ctx, "pc", agent.FinderQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if ret.TotalCount != 1 || ret.Documents[0].Title != "One" {
		t.Fatalf("catalog = %+v", ret)
	}
	for len(updates) > 0 {
		<-updates
	}
	if err := os.WriteFile(filepath.Join(dir, "two.md"), []byte("# Two\n\nsecond"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Each notification is followed by a fresh read until the new file
	// shows (an earlier notification may still be on its way).
	deadline := time.After(10 * time.Second)
	for total := 1; total != 2; {
		select {
		case c := <-updates:
			if c != "pc" {
				t.Errorf("update_finder for %q", c)
			}
		case <-deadline:
			t.Fatalf("two.md not in the catalog 10s after it was written (total %d)", total)
		}
		ret, err := sys.Agent.GetFinder(ctx, "pc", agent.FinderQuery{})
		if err != nil {
			t.Fatal(err)
		}
		total = ret.TotalCount
	}
	if err := sys.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "two.md")); err != nil {
		t.Errorf("Close touched the caller's folder: %v", err)
	}
}

func TestStartErrors(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "file.md")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts Options
		want string // what the error says, parts split by "|"
	}{
		{"no executable", Options{}, "Executable is required"},
		{"missing folder", Options{Executable: "/bin/true", Docs: filepath.Join(t.TempDir(), "nope")}, "--docs"},
		{"not a folder", Options{Executable: "/bin/true", Docs: file}, "not a folder"},
		// A document server that exits at once never comes up: Start
		// gives up after StartTimeout and says which server is down.
		{"server never up", Options{Executable: "/bin/false", Docs: t.TempDir(), StartTimeout: 2 * time.Second}, "not ready within the start-up bound of 2s|docs: down"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sys, err := Start(ctx, tc.opts)
			if err == nil {
				sys.Close()
				t.Fatal("no error")
			}
			if sys != nil {
				t.Error("a System returned with an error")
			}
			for _, want := range strings.Split(tc.want, "|") {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}
