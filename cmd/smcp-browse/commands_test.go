package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/smcp-browse/smcp-browse/cmd/smcp-browse/internal/demo"
	"github.com/smcp-browse/smcp-browse/computer"
	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/internal/democorpus"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// result is one run of the binary.
type result struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// run runs the real binary with args (and extra environment), with logs
// kept in the test's temporary state folder.
func run(t *testing.T, env []string, args ...string) result {
	t.Helper()
	bin := testutil.Binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "SMCP_SERVER=", "SMCP_OFFICE=", "SMCP_TOKEN=", "NO_COLOR=1")
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("%v: %v", args, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("%v did not finish within 90s; stderr:\n%s", args, r.stderr)
	}
	return r
}

func (r result) ok(t *testing.T, args ...string) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", args, r.code, r.stdout, r.stderr)
	}
}

const demoHost = "dpe://" + demo.DefaultHost

func corpusFiles(t *testing.T) int {
	t.Helper()
	n, err := democorpus.Extract(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestLsDemoTable(t *testing.T) {
	r := run(t, nil, "ls", "--demo")
	r.ok(t, "ls --demo")
	t.Logf("ls --demo took %v", r.took)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	n := corpusFiles(t)
	if len(lines) != n+1 {
		t.Fatalf("%d lines, want a header and %d rows:\n%s", len(lines), n, r.stdout)
	}
	head := strings.Fields(lines[0])
	if !slices.Equal(head, []string{"TITLE", "TYPE", "PAGES", "SERVER", "MODIFIED", "URI"}) {
		t.Errorf("header %q", lines[0])
	}
	// Columns line up in terminal cells, CJK titles included.
	uriCol := strings.Index(lines[0], "URI")
	for _, l := range lines[1:] {
		i := strings.Index(l, demoHost+"/")
		if i < 0 || ansi.StringWidth(l[:i]) != uriCol {
			t.Errorf("row not aligned on the URI column (cell %d): %q", uriCol, l)
		}
	}
	if !strings.Contains(r.stdout, "Q3 Operations Report") || !strings.Contains(r.stdout, "项目周报") {
		t.Errorf("titles missing:\n%s", r.stdout)
	}
	if strings.ContainsAny(r.stdout, "\x1b\a\r") {
		t.Errorf("control characters from document text reached stdout: %q", r.stdout)
	}
	if want := "1–12 of 12"; !strings.Contains(r.stderr, want) || n != 12 {
		t.Errorf("stderr %q, want %q (corpus %d files)", r.stderr, want, n)
	}
}

func lsJSON(t *testing.T, args ...string) protocol.GetFinderRet {
	t.Helper()
	r := run(t, nil, append([]string{"ls", "--demo", "--json"}, args...)...)
	r.ok(t, args...)
	var ret protocol.GetFinderRet
	if err := json.Unmarshal([]byte(r.stdout), &ret); err != nil {
		t.Fatalf("stdout is not a GetFinderRet: %v\n%s", err, r.stdout)
	}
	if ret.ReqID == "" {
		t.Error("req_id missing: not the GetFinderRet as received")
	}
	return ret
}

func titles(ret protocol.GetFinderRet) []string {
	var out []string
	for _, d := range ret.Documents {
		out = append(out, d.Title)
	}
	slices.Sort(out)
	return out
}

func TestLsDemoFilters(t *testing.T) {
	t.Run("keyword and type", func(t *testing.T) {
		ret := lsJSON(t, "--keywords", "revenue", "--type", "md")
		if ret.TotalCount != 1 || !slices.Equal(titles(ret), []string{"Q3 Operations Report"}) {
			t.Errorf("got %d %v, want only the Q3 report", ret.TotalCount, titles(ret))
		}
		d := ret.Documents[0]
		if d.FileType != "md" || d.PageCount != 4 || d.Server != demo.DocServerName || d.URI != demoHost+"/"+d.DocRef {
			t.Errorf("document %+v", d)
		}
	})
	t.Run("keyword across types", func(t *testing.T) {
		ret := lsJSON(t, "--keywords", "revenue")
		got := titles(ret)
		for _, want := range []string{"Budget 2026", "Q3 Operations Report"} {
			if !slices.Contains(got, want) {
				t.Errorf("%q missing from %v", want, got)
			}
		}
		for _, d := range ret.Documents {
			text := strings.ToLower(d.Title + " " + d.Summary + " " + strings.Join(d.Keywords, " "))
			if !strings.Contains(text, "revenue") {
				t.Errorf("%q does not mention revenue", d.Title)
			}
		}
	})
	t.Run("paging", func(t *testing.T) {
		all := lsJSON(t, "--limit", "100")
		page := lsJSON(t, "--offset", "2", "--limit", "3")
		if page.TotalCount != all.TotalCount || len(page.Documents) != 3 {
			t.Fatalf("page: total %d, %d documents", page.TotalCount, len(page.Documents))
		}
		for i, d := range page.Documents {
			if d.URI != all.Documents[i+2].URI {
				t.Errorf("document %d of the page is %s, want %s", i, d.URI, all.Documents[i+2].URI)
			}
		}
	})
	t.Run("no match", func(t *testing.T) {
		r := run(t, nil, "ls", "--demo", "--type", "mp3")
		r.ok(t)
		if r.stdout != "" || !strings.Contains(r.stderr, "no documents") {
			t.Errorf("stdout %q stderr %q", r.stdout, r.stderr)
		}
	})
}

const q3 = demoHost + "/q3-report-4f2bf6"

func TestCatDemoLevels(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string // substrings of stdout
		json bool     // stdout must be JSON
	}{
		{"catalog", []string{demoHost}, []string{`"doc_ref": "q3-report-4f2bf6"`}, true},
		{"document", []string{q3}, []string{`"title": "Q3 Operations Report"`, `"page_count": 4`}, true},
		{"document pages", []string{q3 + "?depth=pages"}, []string{`"title": "Revenue"`}, true},
		{"page json", []string{q3 + "/pages/1"}, []string{`"element_id": "tbl-1-1"`, `"category": "table"`}, true},
		{"page markdown", []string{q3 + "/pages/1", "--format", "markdown"},
			[]string{"## Revenue", "| Month | Revenue (k$) | Growth |", "| August | 1,380 | +10% |", "[finance dashboard](https://example.com/finance)"}, false},
		{"page text", []string{q3 + "/pages/1", "--format", "text"}, []string{"Revenue", "August\t1,380\t+10%"}, false},
		{"page tables only", []string{q3 + "/pages/1?categories=table", "--format", "markdown"}, []string{"| Month |"}, false},
		{"element", []string{q3 + "/elements/tbl-1-1"}, []string{`"element_id": "tbl-1-1"`, `"September"`}, true},
		{"element markdown", []string{q3 + "/elements/tbl-1-1", "--format", "markdown"}, []string{"| September | 1,420 | +3% |"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, nil, append([]string{"cat", "--demo"}, tc.args...)...)
			r.ok(t, tc.args...)
			for _, w := range tc.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
				}
			}
			if tc.json != json.Valid([]byte(r.stdout)) {
				t.Errorf("stdout JSON = %v, want %v:\n%s", !tc.json, tc.json, r.stdout)
			}
			if tc.name == "page tables only" && strings.Contains(r.stdout, "## Revenue") {
				t.Errorf("categories=table kept the heading:\n%s", r.stdout)
			}
		})
	}
}

func TestCatDemoRawJSON(t *testing.T) {
	r := run(t, nil, "cat", "--demo", "--json", q3+"/pages/1", "--format", "markdown")
	r.ok(t)
	var ret protocol.ReadResourceRet
	if err := json.Unmarshal([]byte(r.stdout), &ret); err != nil {
		t.Fatalf("not a ReadResourceResult: %v\n%s", err, r.stdout)
	}
	if len(ret.Contents) != 1 || ret.Contents[0].URI != q3+"/pages/1?format=markdown" ||
		!strings.Contains(ret.Contents[0].MIMEType, "markdown") || !strings.Contains(ret.Contents[0].Text, "| Month |") {
		t.Errorf("contents %+v", ret.Contents)
	}
}

// TestCatHostileText: document text with control sequences is printed
// without them.
func TestCatHostileText(t *testing.T) {
	r := run(t, nil, "cat", "--demo", demoHost+"/hostile-text-1af994/pages/0", "--format", "markdown")
	r.ok(t)
	if strings.ContainsAny(r.stdout, "\x1b\a\u009b") {
		t.Errorf("control characters reached stdout: %q", r.stdout)
	}
	if !strings.Contains(r.stdout, "red") {
		t.Errorf("the text itself is gone: %q", r.stdout)
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		code    int    // protocol code, 0 for a usage error
		message string // in stderr
	}{
		{"document not found", []string{"cat", "--demo", demoHost + "/no-such-doc"}, 4201, `document "no-such-doc" not found`},
		{"page out of range", []string{"cat", "--demo", q3 + "/pages/9"}, 4202, "out of range"},
		{"element not found", []string{"cat", "--demo", q3 + "/elements/tbl-9-9"}, 4203, `element "tbl-9-9" not found`},
		{"bad sub-path", []string{"cat", "--demo", q3 + "/chapters/1"}, 4204, "rule 3"},
		{"bad limit", []string{"cat", "--demo", q3 + "?depth=pages&limit=500"}, 4204, "rule 7"},
		{"bad format in URI with --format", []string{"cat", "--demo", q3 + "?format=xml", "--format", "text"}, 4204, "rule 4"},
		{"unknown flag", []string{"ls", "--demo", "--bogus"}, 0, "unknown flag: --bogus"},
		{"no source", []string{"ls"}, 0, "--demo"},
		{"server without office", []string{"ls", "--server", "http://127.0.0.1:1"}, 0, "--office is required"},
		{"server without computer", []string{"cat", "--server", "http://127.0.0.1:1", "--office", "o", q3}, 0, "--computer is required"},
		{"demo and server", []string{"ls", "--demo", "--server", "http://127.0.0.1:1"}, 0, "drop --server"},
		{"docs without demo", []string{"ls", "--docs", "."}, 0, "--docs needs --demo"},
		{"cat without URI", []string{"cat", "--demo"}, 0, "accepts 1 arg"},
		{"bad format", []string{"cat", "--demo", q3, "--format", "html"}, 0, "--format must be"},
		{"negative limit", []string{"ls", "--demo", "--limit", "-1"}, 0, "must not be negative"},
		{"root argument", []string{"nonsense"}, 0, "unknown command"},
		{"missing docs folder", []string{"ls", "--demo", "--docs", "/no/such/folder"}, 500, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, jsonOut := range []bool{false, true} {
				args := tc.args
				switch {
				case jsonOut && tc.code == 0:
					continue // usage errors print no payload
				case jsonOut:
					args = append(slices.Clone(args), "--json")
				case tc.code != 0 && tc.code != 4201:
					continue // one protocol error without --json is enough (each run starts a demo)
				}
				r := run(t, nil, args...)
				wantExit := exitFailure
				if tc.code == 0 {
					wantExit = exitUsage
				}
				if r.code != wantExit {
					t.Errorf("%v: exit %d, want %d; stderr %q", args, r.code, wantExit, r.stderr)
				}
				prefix := "error: "
				if tc.code != 0 {
					prefix = "error " + strconv.Itoa(tc.code) + ": "
				}
				if !strings.HasPrefix(r.stderr, prefix) || !strings.Contains(r.stderr, tc.message) {
					t.Errorf("%v: stderr %q, want %q…%q", args, r.stderr, prefix, tc.message)
				}
				if !jsonOut {
					if r.stdout != "" {
						t.Errorf("%v: stdout %q on an error", args, r.stdout)
					}
					continue
				}
				var pe protocol.Error
				if err := json.Unmarshal([]byte(r.stdout), &pe); err != nil || pe.Code != tc.code || !strings.Contains(pe.Message, tc.message) {
					t.Errorf("%v: stdout %q is not the error payload %d (%v)", args, r.stdout, tc.code, err)
				}
				if tc.code == 4201 && pe.Details["doc_ref"] != "no-such-doc" {
					t.Errorf("4201 details %v lack the doc_ref", pe.Details)
				}
			}
		})
	}
}

func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"ls", "--help"}, {"cat", "--help"}, {"server", "--help"}, {"computer", "--help"}, {"serve-docs", "--help"}} {
		r := run(t, nil, args...)
		r.ok(t, args...)
		if !strings.Contains(r.stdout, "Usage:") || !strings.Contains(r.stdout, "Flags:") {
			t.Errorf("%v: no usage:\n%s", args, r.stdout)
		}
	}
	r := run(t, nil, "--help")
	for _, w := range []string{"--demo", "--docs", "--server", "--office", "--computer", "--token", "--timeout", "--log-file", "SMCP_SERVER"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("root --help lacks %s", w)
		}
	}
	r = run(t, nil, "--version")
	r.ok(t)
	if !strings.HasPrefix(r.stdout, "smcp-browse version ") {
		t.Errorf("--version: %q", r.stdout)
	}
}

// TestServerForm runs ls and cat against a Server and a Computer started by
// the test (the remote form), with flags and with the environment.
func TestServerForm(t *testing.T) {
	bin := testutil.Binary(t)
	dir := t.TempDir()
	if _, err := democorpus.Extract(dir); err != nil {
		t.Fatal(err)
	}
	log := servertest.LogFor(t)
	srv := servertest.Start(t, server.Options{Token: "s3cret", Logger: log.With("role", "server")})
	comp, err := computer.New(config.Config{Servers: []config.Server{
		config.NewStdio("files", bin, "serve-docs", dir, "--host", "team.docs", "--log-level", "warn"),
	}}, computer.Options{Name: "laptop", Office: "team", ServerURL: srv.URL, Token: "s3cret", Logger: log.With("role", "computer")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- comp.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Error("computer did not stop")
		}
	})
	remote := []string{"--server", srv.URL, "--office", "team", "--computer", "laptop", "--token", "s3cret"}
	// The computer joins and lists its documents in the background: wait
	// until ls sees all of them.
	n := corpusFiles(t)
	deadline := time.Now().Add(30 * time.Second)
	var r result
	for {
		r = run(t, nil, append([]string{"ls", "--json"}, remote...)...)
		var ret protocol.GetFinderRet
		if r.code == 0 && json.Unmarshal([]byte(r.stdout), &ret) == nil && ret.TotalCount == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the remote catalog never listed %d documents: exit %d\n%s\n%s", n, r.code, r.stdout, r.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}

	r = run(t, nil, append([]string{"ls", "--type", "pdf"}, remote...)...)
	r.ok(t)
	if !strings.Contains(r.stdout, "Employee Handbook") || !strings.Contains(r.stdout, "dpe://team.docs/handbook-") || strings.Count(r.stdout, "\n") != 2 {
		t.Errorf("ls --type pdf:\n%s", r.stdout)
	}

	// Our Server also serves /smcp/, the path a2c-smcp's clients use.
	r = run(t, nil, append([]string{"ls", "--type", "pdf", "--socket-path", "/smcp/"}, remote...)...)
	if r.ok(t); !strings.Contains(r.stdout, "Employee Handbook") {
		t.Errorf("ls --socket-path /smcp/:\n%s", r.stdout)
	}
	r = run(t, nil, append([]string{"ls", "--socket-path", "/nowhere/", "--timeout", "3s"}, remote...)...)
	if r.code != exitFailure || !strings.HasPrefix(r.stderr, "error ") {
		t.Errorf("ls --socket-path /nowhere/: exit %d stderr %q", r.code, r.stderr)
	}

	env := []string{"SMCP_SERVER=" + srv.URL, "SMCP_OFFICE=team", "SMCP_TOKEN=s3cret"}
	r = run(t, env, "cat", "--computer", "laptop", "dpe://team.docs/q3-report-4f2bf6/pages/1", "--format", "markdown")
	r.ok(t)
	if !strings.Contains(r.stdout, "| July | 1,250 | +4% |") {
		t.Errorf("cat through the environment's server:\n%s", r.stdout)
	}

	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"wrong token", []string{"ls", "--server", srv.URL, "--office", "team", "--computer", "laptop", "--token", "nope"}, protocol.CodeUnauthorized},
		{"unknown computer", []string{"ls", "--server", srv.URL, "--office", "team", "--computer", "desktop", "--token", "s3cret"}, protocol.CodeNotFound},
		{"document not found", append([]string{"cat", "dpe://team.docs/gone"}, remote...), protocol.CodeDocumentNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, nil, append(tc.args, "--json")...)
			var pe protocol.Error
			if r.code != exitFailure || json.Unmarshal([]byte(r.stdout), &pe) != nil || pe.Code != tc.code {
				t.Errorf("exit %d, stdout %q, want payload with code %d", r.code, r.stdout, tc.code)
			}
			if !strings.HasPrefix(r.stderr, "error "+strconv.Itoa(tc.code)+": ") {
				t.Errorf("stderr %q", r.stderr)
			}
		})
	}

	t.Run("server down", func(t *testing.T) {
		r := run(t, nil, "ls", "--server", "http://127.0.0.1:1", "--office", "team", "--computer", "laptop", "--timeout", "3s")
		if r.code != exitFailure || !strings.HasPrefix(r.stderr, "error ") {
			t.Errorf("exit %d stderr %q", r.code, r.stderr)
		}
		if r.took > 20*time.Second {
			t.Errorf("took %v with --timeout 3s", r.took)
		}
	})
}

// TestDemoCleansUp: the extracted corpus is removed when the command ends.
func TestDemoCleansUp(t *testing.T) {
	tmp := t.TempDir()
	r := run(t, []string{"TMPDIR=" + tmp}, "ls", "--demo")
	r.ok(t)
	left, err := filepath.Glob(filepath.Join(tmp, "smcp-browse-demo-*"))
	if err != nil || len(left) != 0 {
		t.Errorf("left behind: %v (%v)", left, err)
	}
}

// TestServiceCommandErrors: the long-running subcommands exit 2 on a bad
// flag value and 1 when the environment fails them, with the reason on
// stderr.
func TestServiceCommandErrors(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		exit    int
		message string
	}{
		{[]string{"server", "--log-level", "loud"}, exitUsage, "--log-level"},
		{[]string{"serve-docs", t.TempDir(), "--log-level", "loud"}, exitUsage, "--log-level"},
		{[]string{"computer", "--server", "http://127.0.0.1:1", "--office", "o", "--name", "pc", "--config", "c.json", "--log-level", "loud"}, exitUsage, "--log-level"},
		{[]string{"computer", "--server", "http://127.0.0.1:1", "--name", "pc"}, exitUsage, "missing required flags: --office, --config"},
		{[]string{"server", "--listen", "127.0.0.1:0", "--log-file", filepath.Join(t.TempDir(), "no", "such", "dir.log")}, exitFailure, "--log-file"},
	} {
		r := run(t, nil, tc.args...)
		if r.code != tc.exit || !strings.Contains(r.stderr, tc.message) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %s", tc.args, r.code, r.stderr, tc.exit, tc.message)
		}
	}
}
