package computer_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/computer"
	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

const office = "office-e2e"

// copyCorpus copies the named folders of testdata/corpus into a new temp
// folder and returns it with the number of files copied.
func copyCorpus(t *testing.T, dirs ...string) (string, int) {
	t.Helper()
	root := filepath.Join(testutil.RepoRoot(t), "testdata", "corpus")
	dst := t.TempDir()
	n := 0
	for _, d := range dirs {
		err := filepath.WalkDir(filepath.Join(root, d), func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			if e.IsDir() {
				return os.MkdirAll(filepath.Join(dst, rel), 0o755)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			n++
			return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dst, n
}

func docServer(bin, name, dir, host string) config.Server {
	return config.NewStdio(name, bin, "serve-docs", dir, "--host", host, "--debounce", "20ms", "--log-level", "warn")
}

// notes counts notifications an agent received.
type notes struct {
	mu      sync.Mutex
	finder  int
	desktop int
	tools   int
	ch      chan string
}

func (n *notes) handlers() agent.Handlers {
	push := func(kind string, f *int) func(protocol.UpdateComputerConfigReq) {
		return func(protocol.UpdateComputerConfigReq) {
			n.mu.Lock()
			*f++
			n.mu.Unlock()
			select {
			case n.ch <- kind:
			default:
			}
		}
	}
	return agent.Handlers{UpdateFinder: push("finder", &n.finder), UpdateDesktop: push("desktop", &n.desktop), UpdateToolList: push("tools", &n.tools)}
}

// drain forgets notifications received so far.
func (n *notes) drain() {
	for {
		select {
		case <-n.ch:
		default:
			return
		}
	}
}

func (n *notes) waitFinder(t *testing.T, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := time.After(within)
	for {
		select {
		case kind := <-n.ch:
			if kind == "finder" {
				return time.Since(start)
			}
		case <-deadline:
			t.Fatalf("no notify:update_finder within %v", within)
		}
	}
}

type rig struct {
	srv   *servertest.Server
	comp  *computer.Computer
	agent *agent.Client
	notes *notes
}

// startRig runs a real Server, a Computer with the given MCP servers and
// an agent in the office.
func startRig(t *testing.T, servers []config.Server, opts computer.Options) *rig {
	t.Helper()
	srv := servertest.Start(t, server.Options{})
	opts.Name, opts.Office, opts.ServerURL = "pc", office, srv.URL
	opts.Logger = servertest.Logger()
	opts.MinBackoff = cmpOr(opts.MinBackoff, 100*time.Millisecond)
	comp, err := computer.New(config.Config{Servers: servers}, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- comp.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("computer Run: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("computer did not stop")
		}
	})
	n := &notes{ch: make(chan string, 256)}
	actx, acancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer acancel()
	ag, err := agent.Connect(actx, srv.URL, agent.Options{Name: "tester", Handlers: n.handlers(), Logger: servertest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ag.Close() })
	if err := ag.JoinOffice(actx, office); err != nil {
		t.Fatal(err)
	}
	return &rig{srv: srv, comp: comp, agent: ag, notes: n}
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// settled reports whether no entry of a catalog page is still pending
// (built from the listing while its Level 1 read is under way).
func settled(ret *protocol.GetFinderRet) bool {
	for _, d := range ret.Documents {
		if d.Pending {
			return false
		}
	}
	return true
}

// catalog polls get_finder until cond holds and no entry is pending.
func (r *rig) catalog(t *testing.T, q agent.FinderQuery, cond func(*protocol.GetFinderRet) bool) *protocol.GetFinderRet {
	t.Helper()
	var last *protocol.GetFinderRet
	var lastErr error
	if testutil.WaitUntil(30*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		last, lastErr = r.agent.GetFinder(ctx, "pc", q)
		cancel()
		return lastErr == nil && cond(last) && settled(last)
	}) {
		return last
	}
	t.Fatalf("catalog never met the condition: last=%+v err=%v", last, lastErr)
	return nil
}

func codeOf(err error) int { return protocol.CodeOf(err) }

func TestEndToEnd(t *testing.T) {
	bin := testutil.Binary(t)
	dirA, nA := copyCorpus(t, "reports", "notes")
	dirB, nB := copyCorpus(t, "data", "guides", "src")
	r := startRig(t, []config.Server{docServer(bin, "docs-a", dirA, "docs.a"), docServer(bin, "docs-b", dirB, "docs.b")}, computer.Options{})
	ctx := context.Background()

	all := r.catalog(t, agent.FinderQuery{Limit: 100}, func(ret *protocol.GetFinderRet) bool { return ret.TotalCount == nA+nB })
	t.Run("catalog across both servers", func(t *testing.T) {
		for _, d := range all.Documents {
			wantHost := map[string]string{"docs-a": "dpe://docs.a/", "docs-b": "dpe://docs.b/"}[d.Server]
			if wantHost == "" || !strings.HasPrefix(d.URI, wantHost) {
				t.Errorf("document %s has server %q", d.URI, d.Server)
			}
			if d.Title == "" || d.PageCount < 1 || d.DocRef == "" || d.FileType == "" {
				t.Errorf("thin summary %+v", d)
			}
			if fu, err := url.Parse(d.FileURI); err != nil || d.Path == "" || !strings.HasSuffix(fu.Path, "/"+d.Path) {
				t.Errorf("document %s: path %q does not name its file %s", d.URI, d.Path, d.FileURI)
			}
		}
		if all.Documents[0].Server != "docs-a" || all.Documents[len(all.Documents)-1].Server != "docs-b" {
			t.Errorf("servers not ordered alphabetically without history")
		}
	})

	t.Run("filters and paging", func(t *testing.T) {
		md, err := r.agent.GetFinder(ctx, "pc", agent.FinderQuery{FileType: "md", Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		wantMD := 0
		for _, d := range all.Documents {
			if d.FileType == "md" {
				wantMD++
			}
		}
		if md.TotalCount != wantMD || wantMD == 0 {
			t.Errorf("file_type md: %d, want %d", md.TotalCount, wantMD)
		}
		kw, err := r.agent.GetFinder(ctx, "pc", agent.FinderQuery{Keywords: []string{"BUDGET"}})
		if err != nil {
			t.Fatal(err)
		}
		if kw.TotalCount < 1 || !strings.Contains(strings.ToLower(kw.Documents[0].Title+kw.Documents[0].Summary+strings.Join(kw.Documents[0].Keywords, " ")), "budget") {
			t.Errorf("keyword budget: %+v", kw)
		}
		var seen []string
		for off := 0; off < all.TotalCount; off += 3 {
			p, err := r.agent.GetFinder(ctx, "pc", agent.FinderQuery{Offset: off, Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			if p.TotalCount != all.TotalCount || len(p.Documents) > 3 {
				t.Fatalf("page at %d: %d docs, total %d", off, len(p.Documents), p.TotalCount)
			}
			for _, d := range p.Documents {
				seen = append(seen, d.URI)
			}
		}
		var want []string
		for _, d := range all.Documents {
			want = append(want, d.URI)
		}
		if !slices.Equal(seen, want) {
			t.Errorf("paging gave %v, want %v", seen, want)
		}
	})

	var doc protocol.DPEDocumentSummary
	for _, d := range all.Documents {
		if d.FileType == "xlsx" {
			doc = d
		}
	}
	t.Run("every level", func(t *testing.T) {
		var cat protocol.DPECatalog
		if err := r.agent.ReadJSON(ctx, "pc", "dpe://docs.a", &cat); err != nil || cat.TotalCount != nA {
			t.Fatalf("level 0: %v %d", err, cat.TotalCount)
		}
		du, err := dpe.Parse(doc.URI)
		if err != nil {
			t.Fatal(err)
		}
		off, lim := 0, 10
		d1, err := r.agent.ReadDocument(ctx, "pc", du.WithQuery(dpe.Query{Depth: dpe.DepthPages, Offset: &off, Limit: &lim}))
		if err != nil || d1.DocRef != doc.DocRef || len(d1.Pages) == 0 {
			t.Fatalf("level 1: %v %+v", err, d1)
		}
		p, err := r.agent.ReadPage(ctx, "pc", dpe.Page(du.Host, du.DocRef, 0))
		if err != nil || len(p.Elements) == 0 {
			t.Fatalf("level 2: %v %+v", err, p)
		}
		el, err := r.agent.ReadElement(ctx, "pc", dpe.Element(du.Host, du.DocRef, p.Elements[0].ElementID))
		if err != nil || el.ElementID != p.Elements[0].ElementID {
			t.Fatalf("level 3: %v %+v", err, el)
		}
		md, err := r.agent.ReadText(ctx, "pc", doc.URI+"/pages/0?format=markdown")
		if err != nil || !strings.Contains(md, "|") {
			t.Errorf("markdown page: %v %q", err, md)
		}
	})

	t.Run("error codes at the agent", func(t *testing.T) {
		tests := []struct {
			uri    string
			code   int
			detail string
		}{
			{"dpe://docs.a/no-such-doc", 4201, "doc_ref"},
			{"dpe://nowhere.example/doc", 4201, "host"},
			{doc.URI + "/pages/999", 4202, ""},
			{doc.URI + "/elements/no-such-element", 4203, ""},
			{"dpe://docs.a/x?limit=abc", 4204, "uri"},
			{"dpe:///missing-host", 4204, "uri"},
			{"test://never-listed", 404, ""},
		}
		for _, tt := range tests {
			_, err := r.agent.ReadResource(ctx, "pc", tt.uri)
			if codeOf(err) != tt.code {
				t.Errorf("%s: %v, want code %d", tt.uri, err, tt.code)
				continue
			}
			var pe *protocol.Error
			errors.As(err, &pe)
			if tt.detail != "" && pe.Details[tt.detail] == nil {
				t.Errorf("%s: details %v lack %q", tt.uri, pe.Details, tt.detail)
			}
		}
		_, err := r.agent.GetFinder(ctx, "no-such-computer", agent.FinderQuery{})
		if codeOf(err) != 404 {
			t.Errorf("unknown computer: %v, want 404", err)
		}
	})

	t.Run("tools, history and config", func(t *testing.T) {
		tools, err := r.agent.GetTools(ctx, "pc")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range tools.Tools {
			names = append(names, tl.Name+"@"+tl.BundleID)
		}
		for _, want := range []string{"docs-a__fs_tree@docs-a", "docs-b__fs_tree@docs-b", "docs-a__fs_grep@docs-a", "docs-b__fs_find@docs-b"} {
			if !slices.Contains(names, want) {
				t.Errorf("tools %v lack %s", names, want)
			}
		}
		res, err := r.agent.CallTool(ctx, "pc", "docs-b__fs_find", map[string]any{"pattern": "*.csv"}, 10*time.Second)
		if err != nil || res.IsError || !strings.Contains(res.Text(), "sales.csv") {
			t.Fatalf("fs_find on docs-b: %v %+v", err, res)
		}
		if res, err := r.agent.CallTool(ctx, "pc", "docs-a__fs_tree", map[string]any{}, 10*time.Second); err != nil || res.IsError {
			t.Errorf("docs-a__fs_tree: %v %+v", err, res)
		}
		// Both servers have fs_tree: the bare name is ambiguous and not guessed.
		if res, err := r.agent.CallTool(ctx, "pc", "fs_tree", nil, 5*time.Second); err != nil || res.ErrorCode() != 4001 {
			t.Errorf("ambiguous bare fs_tree: %v %+v, want error_code 4001", err, res)
		}
		if res, err := r.agent.CallTool(ctx, "pc", "no_such_tool", nil, 5*time.Second); err != nil || !res.IsError || res.ErrorCode() != 4001 {
			t.Errorf("unknown tool: %v %+v, want error_code 4001", err, res)
		}
		// History: docs-a was used last, then docs-b... call docs-b again so it leads.
		if _, err := r.agent.CallTool(ctx, "pc", "docs-b__fs_tree", map[string]any{}, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		first, err := r.agent.GetFinder(ctx, "pc", agent.FinderQuery{Limit: 1})
		if err != nil || first.Documents[0].Server != "docs-b" {
			t.Errorf("after a docs-b tool call the catalog starts with %+v", first.Documents)
		}
		if h := r.comp.History(); len(h) != 3 || h[2].Server != "docs-b" || !h[2].Success {
			t.Errorf("history = %+v", h)
		}
		cfg, err := r.agent.GetConfig(ctx, "pc")
		if err != nil || len(cfg.Servers) != 2 || cfg.Servers["docs-a"] == nil {
			t.Errorf("config: %v %+v", err, cfg)
		}
	})

	t.Run("file changes reach the agent", func(t *testing.T) {
		r.notes.drain()
		path := filepath.Join(dirA, "notes", "fresh-idea.md")
		if err := os.WriteFile(path, []byte("# Fresh idea\n\nA zebra-crossing plan.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		lat := r.notes.waitFinder(t, 10*time.Second)
		t.Logf("create → notify:update_finder: %v", lat)
		r.catalog(t, agent.FinderQuery{Keywords: []string{"zebra"}}, func(ret *protocol.GetFinderRet) bool { return ret.TotalCount == 1 })

		r.notes.drain()
		if err := os.WriteFile(path, []byte("# Fresh idea\n\nNow about giraffes.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("modify → notify:update_finder: %v", r.notes.waitFinder(t, 10*time.Second))
		r.catalog(t, agent.FinderQuery{Keywords: []string{"giraffe"}}, func(ret *protocol.GetFinderRet) bool { return ret.TotalCount == 1 })

		r.notes.drain()
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		t.Logf("delete → notify:update_finder: %v", r.notes.waitFinder(t, 10*time.Second))
		r.catalog(t, agent.FinderQuery{Limit: 100}, func(ret *protocol.GetFinderRet) bool { return ret.TotalCount == nA+nB })
	})

	t.Run("killed server: errors fast, rest served, comes back", func(t *testing.T) {
		pid := findChild(t, "docs.a")
		r.notes.drain()
		errc := make(chan error, 20)
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				_, err := r.agent.ReadResource(ctx, "pc", doc.URI+"/pages/0")
				errc <- err
			})
		}
		killAt := time.Now()
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if d := time.Since(killAt); d > 5*time.Second {
			t.Errorf("reads took %v after the kill", d)
		}
		close(errc)
		failed := 0
		for err := range errc {
			if err != nil {
				failed++
				if c := codeOf(err); c != 500 && c != 4201 && c != 404 {
					t.Errorf("read during the kill: %v (want 500 went-away, or 4201/404 once it is gone)", err)
				}
			}
		}
		t.Logf("%d of 20 concurrent reads failed across the kill, all within %v", failed, time.Since(killAt))
		// docs-b's catalog stays served while docs-a is down.
		down := r.catalog(t, agent.FinderQuery{Limit: 100}, func(ret *protocol.GetFinderRet) bool { return ret.TotalCount == nB })
		for _, d := range down.Documents {
			if d.Server != "docs-b" {
				t.Errorf("catalog lists %s while its server is down", d.URI)
			}
		}
		if _, err := r.agent.ReadResource(ctx, "pc", doc.URI); codeOf(err) != 4201 {
			t.Errorf("read while down: %v, want 4201", err)
		}
		// After the restart its documents return.
		r.catalog(t, agent.FinderQuery{Limit: 100}, func(ret *protocol.GetFinderRet) bool { return ret.TotalCount == nA+nB })
		if st := r.comp.Servers()["docs-a"]; st.Restarts < 1 {
			t.Errorf("state = %+v", st)
		}
		r.notes.mu.Lock()
		nf := r.notes.finder
		r.notes.mu.Unlock()
		if nf < 2 {
			t.Errorf("only %d update_finder notifications over a down and up", nf)
		}
	})
}

// findChild returns the pid of this process's descendant whose command
// line contains needle.
func findChild(t *testing.T, needle string) int {
	t.Helper()
	testutil.NeedProc(t)
	entries, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, e := range entries {
		b, err := os.ReadFile(e)
		if err != nil {
			continue
		}
		cmd := strings.ReplaceAll(string(b), "\x00", " ")
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(e)))
		// Only this test's: other tests on the machine run serve-docs too.
		if strings.Contains(cmd, "serve-docs") && strings.Contains(cmd, " "+needle+" ") && descendsFromUs(pid) {
			return pid
		}
	}
	t.Fatalf("no serve-docs process for %s is running under this test", needle)
	return 0
}

// descendsFromUs reports whether process pid descends from this one.
func descendsFromUs(pid int) bool {
	self := os.Getpid()
	for range 64 {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		// pid (comm) state ppid ...
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) < 2 {
			return false
		}
		ppid, err := strconv.Atoi(f[1])
		if err != nil || ppid <= 1 {
			return false
		}
		if ppid == self {
			return true
		}
		pid = ppid
	}
	return false
}

// TestThirdPartyServer runs the npm server-everything beside a document
// server: Finder ignores its non-dpe resources, its tools are listed and
// callable, and its own notifications break nothing.
func TestThirdPartyServer(t *testing.T) {
	nm := testutil.NodeModules(t)
	bin := testutil.Binary(t)
	dirA, nA := copyCorpus(t, "notes")
	everything := config.NewStdio("everything", filepath.Join(nm, ".bin", "mcp-server-everything"), "stdio")
	r := startRig(t, []config.Server{docServer(bin, "docs-a", dirA, "docs.a"), everything}, computer.Options{})
	ctx := context.Background()

	var tools *protocol.GetToolsRet
	testutil.WaitUntil(30*time.Second, func() bool {
		var err error
		tools, err = r.agent.GetTools(ctx, "pc")
		return err == nil && slices.ContainsFunc(tools.Tools, func(tl protocol.SMCPTool) bool { return tl.Name == "everything__echo" })
	})
	if !slices.ContainsFunc(tools.Tools, func(tl protocol.SMCPTool) bool { return tl.Name == "everything__echo" && tl.BundleID == "everything" }) {
		t.Fatalf("echo not among %d tools", len(tools.Tools))
	}
	res, err := r.agent.CallTool(ctx, "pc", "everything__echo", map[string]any{"message": "hello finder"}, 10*time.Second)
	if err != nil || res.IsError || !strings.Contains(res.Text(), "hello finder") {
		t.Fatalf("echo: %v %+v", err, res)
	}
	// Its subscription updates start; they must not disturb anything.
	if res, err := r.agent.CallTool(ctx, "pc", "toggle-subscriber-updates", map[string]any{}, 10*time.Second); err != nil || res.IsError {
		t.Errorf("toggle-subscriber-updates: %v %+v", err, res)
	}
	// A tool that outlives the request's timeout ends as a timeout result.
	start := time.Now()
	res, err = r.agent.CallTool(ctx, "pc", "trigger-long-running-operation", map[string]any{"duration": 20, "steps": 4}, time.Second)
	if err != nil || !res.IsError || !res.TimedOut() {
		t.Errorf("long operation with a 1 s timeout: %v %+v", err, res)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("timeout result after %v", d)
	}

	cat := r.catalog(t, agent.FinderQuery{Limit: 100}, func(ret *protocol.GetFinderRet) bool { return ret.TotalCount == nA })
	for _, d := range cat.Documents {
		if d.Server != "docs-a" || !strings.HasPrefix(d.URI, "dpe://docs.a/") {
			t.Errorf("catalog has %s from %s", d.URI, d.Server)
		}
	}
	time.Sleep(500 * time.Millisecond)
	if err := r.agent.ReadJSON(ctx, "pc", cat.Documents[0].URI, new(protocol.DPEDocument)); err != nil {
		t.Errorf("read after everything's notifications: %v", err)
	}
	if st := r.comp.Servers()["everything"]; !st.Up {
		t.Errorf("everything state %+v", st)
	}
}

// TestNotificationLatency measures file write → the agent's
// notify:update_finder with every piece real and at its default debounce
// (document server 75 ms, Computer 75 ms).
func TestNotificationLatency(t *testing.T) {
	bin := testutil.Binary(t)
	dir, n := copyCorpus(t, "notes")
	s := config.NewStdio("docs", bin, "serve-docs", dir, "--host", "docs.lat", "--log-level", "warn")
	r := startRig(t, []config.Server{s}, computer.Options{})
	r.catalog(t, agent.FinderQuery{}, func(ret *protocol.GetFinderRet) bool { return ret.TotalCount == n })
	path := filepath.Join(dir, "notes", "latency.md")
	if err := os.WriteFile(path, []byte("# Latency\n\nstart\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.notes.waitFinder(t, 10*time.Second)
	var lats []time.Duration
	for i := range 8 {
		time.Sleep(300 * time.Millisecond)
		r.notes.drain()
		start := time.Now()
		if err := os.WriteFile(path, []byte(fmt.Sprintf("# Latency\n\nrevision %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		r.notes.waitFinder(t, 10*time.Second)
		lats = append(lats, time.Since(start))
	}
	slices.Sort(lats)
	t.Logf("file write → notify:update_finder over %d writes: min %v, median %v, max %v",
		len(lats), lats[0], lats[len(lats)/2], lats[len(lats)-1])
	if lats[len(lats)/2] > 2*time.Second {
		t.Errorf("median latency %v", lats[len(lats)/2])
	}
}

// TestComputerCommand runs `smcp-browse computer` with a configuration
// file (one good entry, one bad): the agent gets the catalog, and on
// SIGTERM the command exits and its document server is gone.
func TestComputerCommand(t *testing.T) {
	bin := testutil.Binary(t)
	dir, n := copyCorpus(t, "data")
	cfgPath := filepath.Join(t.TempDir(), "computer.json")
	cfgJSON := fmt.Sprintf(`{"mcpServers": {
  "docs": {"command": %q, "args": ["serve-docs", %q, "--host", "docs.cmd"]},
  "broken": {"command": "x", "typo": 1}
}}`, bin, dir)
	if err := os.WriteFile(cfgPath, []byte(cfgJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := servertest.Start(t, server.Options{})
	stderr := &lockedWriter{w: &strings.Builder{}}
	cmd := exec.Command(bin, "computer", "--server", srv.URL, "--office", office, "--name", "cli-pc", "--config", cfgPath)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	ctx := context.Background()
	ag, err := agent.Connect(ctx, srv.URL, agent.Options{Name: "cli-agent"})
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Close()
	if err := ag.JoinOffice(ctx, office); err != nil {
		t.Fatal(err)
	}
	var ret *protocol.GetFinderRet
	if !testutil.WaitUntil(30*time.Second, func() bool {
		ret, err = ag.GetFinder(ctx, "cli-pc", agent.FinderQuery{})
		return err == nil && ret.TotalCount == n
	}) {
		t.Fatalf("catalog: %v %+v\n%s", err, ret, stderr.String())
	}
	child := findChild(t, "docs.cmd")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("computer exited with %v\n%s", err, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("computer did not exit on SIGTERM")
	}
	if err := syscall.Kill(child, 0); err == nil {
		t.Errorf("document server %d still running after the computer exited", child)
	}
	if log := stderr.String(); !strings.Contains(log, `server \"broken\"`) || !strings.Contains(log, "typo") {
		t.Errorf("the bad entry was not reported:\n%s", log)
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
