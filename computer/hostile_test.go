package computer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/computer/resindex"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// Tests of a Computer among badly behaved MCP servers (issue 26): the
// real `smcp-browse computer` process runs a real serve-docs ("good", host
// docs.good) beside the misbehaving server of hostilemcp_test.go ("evil"),
// and an agent checks, over a real Server, that the good server's
// documents stay listed and readable, that the Computer stays in its
// office and that requests touching the bad server fail clearly.

const (
	hostileOffice = "office-hostile"
	goodHost      = "docs.good"
	// computerBinEnv names another smcp-browse binary to run as the
	// Computer (serve-docs stays this checkout's), to measure an older
	// build with the same tests: the figures they log are its own.
	computerBinEnv = "COMPUTER_TEST_COMPUTER_BIN"
)

// hostileRig is a running Computer process with a good and an evil server.
type hostileRig struct {
	agent   *agent.Client
	cmd     *exec.Cmd
	stderr  *testutil.Buffer
	dir     string // the evil server's trace and control folder
	goodDir string
	nGood   int
	goodDoc []protocol.DPEDocumentSummary // the good server's catalog
	evil    string                        // the evil server's name
	notes   *notes                        // the office's notifications
	url     string                        // the Server's
}

// hostileSetup says how to run the rig.
type hostileSetup struct {
	spec           string   // the evil server's behaviours (dir= is added)
	evilName       string   // default "evil" (sorts before "good")
	goodHosts      []string // the good server's configured hosts
	requestTimeout time.Duration
}

func startHostile(t *testing.T, hs hostileSetup) *hostileRig {
	t.Helper()
	bin := testutil.Binary(t)
	goodDir, n := copyCorpus(t, "notes")
	r := &hostileRig{stderr: &testutil.Buffer{}, dir: t.TempDir(), goodDir: goodDir, nGood: n, evil: cmpOr(hs.evilName, "evil")}
	good := map[string]any{"command": bin, "args": []string{"serve-docs", goodDir, "--host", goodHost, "--debounce", "20ms", "--log-level", "warn"}}
	if hs.goodHosts != nil {
		good["hosts"] = hs.goodHosts
	}
	evil := map[string]any{"command": os.Args[0], "args": []string{"-test.run=^$"},
		"env": map[string]string{hostileEnv: hs.spec + " dir=" + r.dir}}
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"good": good, r.evil: evil}})
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(t.TempDir(), "computer.json")
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := servertest.Start(t, server.Options{})
	r.url = srv.URL
	args := []string{"computer", "--server", srv.URL, "--office", hostileOffice, "--name", "pc", "--config", cfgPath, "--log-level", "info"}
	if hs.requestTimeout > 0 {
		args = append(args, "--request-timeout", hs.requestTimeout.String())
	}
	r.cmd = exec.Command(cmpOr(os.Getenv(computerBinEnv), bin), args...)
	r.cmd.Stderr = r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { r.cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		r.cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			r.cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("computer log (tail):\n%s", tail(r.stderr.String(), 40))
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r.notes = &notes{ch: make(chan string, 256)}
	r.agent, err = agent.Connect(ctx, srv.URL, agent.Options{Name: "tester", Logger: servertest.Logger(), Timeout: 20 * time.Second, Handlers: r.notes.handlers()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.agent.Close() })
	if err := r.agent.JoinOffice(ctx, hostileOffice); err != nil {
		t.Fatal(err)
	}
	r.goodDoc = r.goodListed(t, 30*time.Second)
	return r
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

// goodListed waits (at most within) until the catalog holds every
// document of the good server, settled, and returns them.
func (r *hostileRig) goodListed(t *testing.T, within time.Duration) []protocol.DPEDocumentSummary {
	t.Helper()
	var lastErr error
	var last *protocol.GetFinderRet
	var good []protocol.DPEDocumentSummary
	if testutil.WaitUntil(within, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ret, err := r.agent.GetFinder(ctx, "pc", agent.FinderQuery{Limit: 100})
		cancel()
		last, lastErr = ret, err
		if err != nil {
			return false
		}
		good = nil
		for _, d := range ret.Documents {
			if d.Server == "good" && !d.Pending {
				good = append(good, d)
			}
		}
		return len(good) == r.nGood
	}) {
		return good
	}
	t.Fatalf("the good server's %d documents are not listed after %v: last %+v, err %v", r.nGood, within, last, lastErr)
	return nil
}

// goodServed checks that the good server's documents are listed and that
// each reads back as the good server wrote it, all within a few seconds.
func (r *hostileRig) goodServed(t *testing.T) {
	t.Helper()
	start := time.Now()
	docs := r.goodListed(t, 10*time.Second)
	for _, d := range docs {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var doc protocol.DPEDocument
		err := r.agent.ReadJSON(ctx, "pc", d.URI, &doc)
		cancel()
		if err != nil {
			t.Fatalf("read %s: %v", d.URI, err)
		}
		if doc.DocRef != d.DocRef || doc.Title != d.Title || doc.Title == "IMPOSTOR" {
			t.Fatalf("read %s: got doc_ref %q title %q, want %q %q", d.URI, doc.DocRef, doc.Title, d.DocRef, d.Title)
		}
	}
	// A second or two; the bound only catches a wait for another
	// server's timeout (under -race on a loaded machine it takes longer).
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("listing and reading the good documents took %v", d)
	} else if d > 2*time.Second {
		t.Logf("listing and reading the good documents took %v", d)
	}
}

// evilListed waits until the evil server's own document reads back (it
// is up and listed).
func (r *hostileRig) evilListed(t *testing.T) {
	t.Helper()
	var err error
	if !testutil.WaitUntil(30*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var doc protocol.DPEDocument
		err = r.agent.ReadJSON(ctx, "pc", "dpe://evil.host/own", &doc)
		return err == nil
	}) {
		t.Fatalf("the evil server's document is not readable: %v", err)
	}
}

// inOffice checks that the Computer is still a member of its office.
func (r *hostileRig) inOffice(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	members, err := r.agent.ListRoom(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(members, func(s protocol.SessionInfo) bool { return s.Name == "pc" }) {
		t.Fatalf("the computer left its office: %+v", members)
	}
}

// trace returns what the evil server was asked, one "method uri" a line.
func (r *hostileRig) trace() []string {
	b, _ := os.ReadFile(filepath.Join(r.dir, "trace"))
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func (r *hostileRig) count(prefix string) int {
	n := 0
	for _, l := range r.trace() {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

// waitTrace waits until the evil server was asked more than n requests
// starting with prefix.
func (r *hostileRig) waitTrace(t *testing.T, prefix string, n int, within time.Duration) {
	t.Helper()
	if !testutil.WaitUntil(within, func() bool { return r.count(prefix) > n }) {
		t.Fatalf("the evil server was not asked %q again within %v; trace:\n%s", prefix, within, strings.Join(r.trace(), "\n"))
	}
}

// procStatus returns a field of /proc/PID/status in kB (VmRSS, VmHWM).
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatalf("read the computer's /proc status: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestImpostorCannotTakeAHost runs a server that lists documents and a
// window under the good server's host after the good server has listed
// it, and copies of the good documents' URIs: reads of the good URIs
// still reach the good server, the impostor never receives one, its
// entries stay out of the catalog (reported as refused), and the same
// holds after the impostor restarts.
func TestImpostorCannotTakeAHost(t *testing.T) {
	t.Parallel()
	r := startHostile(t, hostileSetup{spec: "impostor steal-later host=" + goodHost})
	var copies []string
	for _, d := range r.goodDoc {
		copies = append(copies, d.URI)
	}
	lists := r.count("resources/list")
	// Written whole, then renamed: the impostor lists once when the file
	// appears, and a file it sees half written (empty) would list no
	// copies (the run that failed under load saw 1 of 3 entries).
	tmp := filepath.Join(r.dir, "steal.tmp")
	if err := os.WriteFile(tmp, []byte(strings.Join(copies, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(r.dir, "steal")); err != nil {
		t.Fatal(err)
	}
	r.waitTrace(t, "resources/list", lists, 10*time.Second)
	refused := r.waitRefused(t, len(copies)+1)
	if refused.MCPServer != "evil" || refused.Host != goodHost || refused.Owner != "good" || refused.Documents != len(copies)+1 {
		t.Errorf("refused = %+v, want evil's %d documents under %s, owned by good", refused, len(copies)+1, goodHost)
	}
	check := func(when string) {
		t.Helper()
		r.goodServed(t)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ret, err := r.agent.GetFinder(ctx, "pc", agent.FinderQuery{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ret.Documents {
			if d.Server == "evil" && strings.HasPrefix(d.URI, "dpe://"+goodHost) {
				t.Errorf("%s: the catalog lists the impostor's %s", when, d.URI)
			}
		}
		if _, err := r.agent.ReadResource(ctx, "pc", "dpe://"+goodHost+"/stolen"); protocol.CodeOf(err) != protocol.CodeDocumentNotFound {
			t.Errorf("%s: read of the impostor's stolen URI: %v, want 4201 from the host's owner", when, err)
		}
		if _, err := r.agent.ReadResource(ctx, "pc", "window://"+goodHost+"/stolen"); protocol.CodeOf(err) != protocol.CodeNotFound {
			t.Errorf("%s: read of the impostor's window: %v, want 404", when, err)
		}
		desk, err := r.agent.GetDesktop(ctx, "pc", 0, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range desk.Desktops {
			if strings.Contains(w, goodHost+"/stolen") {
				t.Errorf("%s: the desktop shows the impostor's window: %q", when, w)
			}
		}
		// The impostor's own document stays.
		var own protocol.DPEDocument
		if err := r.agent.ReadJSON(ctx, "pc", "dpe://evil.host/own", &own); err != nil || own.Title != "IMPOSTOR" {
			t.Errorf("%s: its own document: %v %+v", when, err, own)
		}
		// get_resources passes its listing through, refused entries too.
		res, err := r.agent.GetResources(ctx, "pc", "evil", "")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(res.Resources, func(x protocol.A2CResource) bool { return x.URI == "dpe://"+goodHost+"/stolen" }) {
			t.Errorf("%s: get_resources of the impostor lacks its stolen entry: %+v", when, res.Resources)
		}
		for _, l := range r.trace() {
			if strings.HasPrefix(l, "resources/read dpe://"+goodHost) || strings.HasPrefix(l, "resources/read window://"+goodHost) {
				t.Errorf("%s: the impostor received %q", when, l)
			}
		}
		r.inOffice(t)
	}
	check("after the impostor listed the host")
	if !r.logged("owned by another") {
		t.Errorf("the computer did not log the refused entries:\n%s", tail(r.stderr.String(), 20))
	}

	// Restarted, the impostor lists the stolen entries in its first listing.
	inits := r.count("initialize")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r.agent.CallTool(ctx, "pc", r.evil+"__crash", nil, 5*time.Second)
	r.waitTrace(t, "initialize", inits, 20*time.Second)
	r.waitTrace(t, "resources/list", r.count("resources/list")-1, 10*time.Second)
	r.waitRefused(t, 0)
	check("after the impostor restarted")
}

// waitRefused waits until the catalog reports the impostor's refused
// entries under the good host (documents of them, unless 0).
func (r *hostileRig) waitRefused(t *testing.T, documents int) protocol.RefusedHost {
	t.Helper()
	var refused protocol.RefusedHost
	if testutil.WaitUntil(10*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ret, err := r.agent.GetFinder(ctx, "pc", agent.FinderQuery{Limit: 100})
		cancel()
		if err != nil {
			return false
		}
		for _, x := range ret.Refused {
			if x.Host == goodHost {
				refused = x
				// A listing taken before the impostor's last change may
				// come first; wait for the count asked for, if any.
				return documents == 0 || x.Documents == documents
			}
		}
		return false
	}) || refused.Host != "" {
		return refused // the caller checks the count
	}
	t.Fatalf("the catalog never reported the impostor's entries under %s as refused", goodHost)
	return protocol.RefusedHost{}
}

// TestConfiguredHostOwner gives the good server its host in the
// configuration ("hosts"): an impostor listing that host from its very
// first listing, possibly before the good server, never takes it.
func TestConfiguredHostOwner(t *testing.T) {
	t.Parallel()
	r := startHostile(t, hostileSetup{spec: "impostor host=" + goodHost, goodHosts: []string{goodHost}})
	r.waitRefused(t, 0)
	r.goodServed(t)
	for _, l := range r.trace() {
		if strings.HasPrefix(l, "resources/read dpe://"+goodHost) {
			t.Errorf("the impostor received %q", l)
		}
	}
	r.inOffice(t)
}

// logged reports whether the Computer logged text, waiting for its
// stderr: a line written before an answer leaves the Computer reaches the
// buffer through the pipe's copier, which may not have run yet.
func (r *hostileRig) logged(text string) bool {
	return testutil.WaitUntil(10*time.Second, func() bool { return strings.Contains(r.stderr.String(), text) })
}

// peak logs the Computer process's peak and current resident memory.
func (r *hostileRig) peak(t *testing.T, what string) {
	t.Helper()
	pid := r.cmd.Process.Pid
	t.Logf("%s: computer peak RSS %d MB, now %d MB", what, procStatus(t, pid, "VmHWM")/1024, procStatus(t, pid, "VmRSS")/1024)
}

// TestOversizedAnswers reads from the evil server what no Server could
// carry in one message (16 MiB) or the Computer should not decode: each
// read fails at once with a clear code, while reads of the good server
// go on beside it and the Computer stays in its office.
func TestOversizedAnswers(t *testing.T) {
	sizeTests.Start(t)
	r := startHostile(t, hostileSetup{spec: "plain", requestTimeout: 10 * time.Second})
	r.evilListed(t)
	tests := []struct {
		name, uri string
		code      int
		want, log string
	}{
		{"100 MB answer", "dpe://evil.host/big?bytes=104857600", protocol.CodePayloadTooLarge, "more than", "message refused"},
		{"3 MB that encodes to 18 MB", "dpe://evil.host/big?bytes=3000000&char=<", protocol.CodePayloadTooLarge, "more than", "answer too large"},
		{"nested 100,000 levels", "dpe://evil.host/deep", protocol.CodeInternalError, "nested deeper", "message refused"}, // (rate-limited: the line above may be the only one)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stop := make(chan struct{})
			goodErr := make(chan error, 1)
			go func() { // good reads all along
				defer close(goodErr)
				for {
					select {
					case <-stop:
						return
					default:
					}
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					var doc protocol.DPEDocument
					err := r.agent.ReadJSON(ctx, "pc", r.goodDoc[0].URI, &doc)
					cancel()
					if err != nil {
						goodErr <- err
						return
					}
				}
			}()
			start := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			_, err := r.agent.ReadResource(ctx, "pc", tt.uri)
			cancel()
			took := time.Since(start)
			close(stop)
			if err := <-goodErr; err != nil {
				t.Errorf("a good read beside it failed: %v", err)
			}
			if !r.logged(tt.log) {
				t.Errorf("the refused answer was not logged (%q)", tt.log)
			}
			var pe *protocol.Error
			if !errors.As(err, &pe) || pe.Code != tt.code || !strings.Contains(pe.Message, tt.want) {
				t.Fatalf("read %s: %v, want code %d saying %q", tt.uri, err, tt.code, tt.want)
			}
			t.Logf("%s: %v after %v", tt.name, err, took.Round(time.Millisecond))
			r.goodServed(t)
			r.inOffice(t)
		})
	}
	// An answer under the limit goes through whole.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const big = 15_000_000
	text, err := r.agent.ReadText(ctx, "pc", fmt.Sprintf("dpe://evil.host/big?bytes=%d", big))
	if err != nil || len(text) != big {
		t.Errorf("a %d-byte read: %d bytes, %v", big, len(text), err)
	}
	r.peak(t, "after the oversized reads")
}

// TestHugeListing lists ~200,000 documents in one 18 MB line followed by
// a 50 MB line (refused: more than the Computer accepts in one message),
// and 60,000 in a 5 MB line (taken, up to the cap on entries per server):
// the good server's documents stay listed and readable, and the
// Computer's memory stays bounded (the peak is logged).
func TestHugeListing(t *testing.T) {
	sizeTests.Start(t)
	for _, n := range []int{200_000, 60_000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			r := startHostile(t, hostileSetup{spec: fmt.Sprintf("biglist=%d", n), evilName: "zevil"})
			r.waitTrace(t, "resources/list", 0, 10*time.Second)
			// Wait until the listing was dealt with: taken (documents
			// appear) or refused (logged).
			var total int
			testutil.WaitUntil(60*time.Second, func() bool {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				ret, err := r.agent.GetFinder(ctx, "pc", agent.FinderQuery{Limit: 1})
				cancel()
				if err == nil {
					total = ret.TotalCount
				}
				return total > r.nGood || strings.Contains(r.stderr.String(), "resources/list failed")
			})
			r.goodServed(t)
			r.inOffice(t)
			t.Logf("%d listed: the catalog counts %d documents", n, total)
			switch n {
			case 200_000:
				if total != r.nGood {
					t.Errorf("catalog total %d, want the good server's %d (the evil listing is too large to take)", total, r.nGood)
				}
				if !r.logged("more than") {
					t.Errorf("the refused listing was not logged with its reason")
				}
			case 60_000:
				if total != r.nGood+resindex.DefaultMaxEntries {
					t.Errorf("catalog total %d, want %d (the good server's and the cap)", total, r.nGood+resindex.DefaultMaxEntries)
				}
				if !r.logged("listing cut short") {
					t.Errorf("the capped listing was not logged with its reason")
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if _, err := r.agent.GetResources(ctx, "pc", r.evil, ""); n == 200_000 && protocol.CodeOf(err) != protocol.CodePayloadTooLarge {
				t.Errorf("get_resources of the huge listing: %v, want 413", err)
			}
			r.goodServed(t)
			r.inOffice(t)
			r.peak(t, fmt.Sprintf("%d-resource listing", n))
		})
	}
}
