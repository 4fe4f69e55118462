package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/docserver/extract"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// TestScripts runs the command-line scripts of testdata/script against the
// real binary (as soft-serve tests its CLI): each script runs smcp-browse
// with arguments and checks its exit status, stdout and stderr. Besides the
// standard commands, scripts have:
//
//	exits N CMD ARGS...     runs CMD like exec and checks it exits with
//	                        status N (1: a failure, 2: a usage mistake)
//	aligned COLUMN          every row of stdout starts the dpe:// URI at
//	                        the cell where the header's COLUMN starts
//	json PATH REGEXP        the JSON value at PATH in stdout (.a.b[0].c;
//	                        PATH@len is a length) matches REGEXP
//	startserver [ARGS...]   runs `smcp-browse server` in the background and
//	                        sets $SERVER_URL
//	waitcatalog N FLAGS...  joins the office named by ls's connection flags
//	                        (--server, --office, --computer, --token; the
//	                        SMCP_* variables) as an agent until no entry is
//	                        pending and the catalog holds N documents (30 s),
//	                        then leaves it
//	holdoffice OFFICE       joins OFFICE of $SERVER_URL as an agent until
//	                        the script ends
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams(t, filepath.Join("testdata", "script"), nil))
}

// TestMCPFacade runs the scripts of testdata/mcp: `smcp-browse mcp` driven
// by MCP clients nobody here wrote (the TypeScript SDK's client and the
// MCP Inspector's CLI), which need node and test/node/node_modules; the
// scripts find them in $NODE_DIR.
func TestMCPFacade(t *testing.T) {
	modules := testutil.NodeModules(t)
	testscript.Run(t, scriptParams(t, filepath.Join("testdata", "mcp"), func(env *testscript.Env) {
		env.Setenv("NODE_DIR", filepath.Dir(modules))
	}))
}

// scriptParams are the testscript parameters of the scripts in dir: the
// binary on PATH, a copy of the corpus, a state and cache of their own,
// and the commands above; more adds to the environment.
func scriptParams(t *testing.T, dir string, more func(*testscript.Env)) testscript.Params {
	bin := testutil.Binary(t)
	corpus := filepath.Join(testutil.RepoRoot(t), "testdata", "corpus")
	engine := extract.PDFCacheDir()
	if engine != "" {
		os.MkdirAll(engine, 0o755)
	}
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			dir := filepath.Join(env.WorkDir, ".bin")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			if err := os.Symlink(bin, filepath.Join(dir, "smcp-browse")); err != nil {
				return err
			}
			env.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
			if err := copyTree(corpus, filepath.Join(env.WorkDir, "corpus")); err != nil {
				return err
			}
			env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, ".state"))
			env.Setenv("HOME", env.WorkDir)
			// A cache of the script's own (the document server's index
			// cache), sharing the user's compiled PDF engine: compiling it
			// in every script (in a race build) takes longer than a read may.
			cache := filepath.Join(env.WorkDir, ".cache")
			env.Setenv("XDG_CACHE_HOME", cache)
			if engine != "" {
				if err := os.MkdirAll(filepath.Join(cache, "smcp-browse"), 0o755); err != nil {
					return err
				}
				if err := os.Symlink(engine, filepath.Join(cache, "smcp-browse", "wazero")); err != nil {
					return err
				}
			}
			env.Setenv("NO_COLOR", "1")
			// The race detector's settings reach the race-built binary
			// (make test shortens its second-long sleep at exit).
			env.Setenv("GORACE", os.Getenv("GORACE"))
			for _, k := range []string{"SMCP_SERVER", "SMCP_OFFICE", "SMCP_TOKEN"} {
				env.Setenv(k, "")
			}
			if more != nil {
				more(env)
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":       cmdExits,
			"aligned":     cmdAligned,
			"json":        cmdJSON,
			"startserver": cmdStartServer,
			"waitcatalog": cmdWaitCatalog,
			"holdoffice":  cmdHoldOffice,
		},
	}
}

func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N CMD ARGS...")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("usage: exits N CMD ARGS...")
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if ee, ok := err.(*exec.ExitError); ok {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("%v", err)
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

func cmdAligned(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: aligned COLUMN")
	}
	lines := strings.Split(strings.TrimSuffix(ts.ReadFile("stdout"), "\n"), "\n")
	col := strings.Index(lines[0], args[0])
	if col < 0 {
		ts.Fatalf("no %s column in %q", args[0], lines[0])
	}
	for _, l := range lines[1:] {
		if l == "" {
			break // the notes under the table (unreadable documents)
		}
		i := strings.Index(l, "dpe://")
		if i < 0 || ansi.StringWidth(l[:i]) != col {
			ts.Fatalf("row not aligned on the %s column (cell %d): %q", args[0], col, l)
		}
	}
}

var pathStep = regexp.MustCompile(`^(\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])`)

func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: json PATH REGEXP")
	}
	var v any
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &v); err != nil {
		ts.Fatalf("stdout is not JSON: %v", err)
	}
	path, length := strings.CutSuffix(args[0], "@len")
	for rest := path; rest != "" && rest != "."; {
		step := pathStep.FindString(rest)
		if step == "" {
			ts.Fatalf("bad path %q at %q", args[0], rest)
		}
		rest = rest[len(step):]
		switch x := v.(type) {
		case map[string]any:
			v = x[strings.TrimPrefix(step, ".")]
		case []any:
			i, _ := strconv.Atoi(strings.Trim(step, "[]"))
			if i >= len(x) {
				ts.Fatalf("%s: index %d of %d", args[0], i, len(x))
			}
			v = x[i]
		default:
			ts.Fatalf("%s: %s of a %T", args[0], step, v)
		}
	}
	var got string
	if length {
		switch x := v.(type) {
		case []any:
			got = strconv.Itoa(len(x))
		case map[string]any:
			got = strconv.Itoa(len(x))
		default:
			ts.Fatalf("%s: length of a %T", args[0], v)
		}
	} else if s, ok := v.(string); ok {
		got = s
	} else {
		b, _ := json.Marshal(v)
		got = string(b)
	}
	ok, err := regexp.MatchString(args[1], got)
	if err != nil {
		ts.Fatalf("bad regexp: %v", err)
	}
	if ok == neg {
		ts.Fatalf("%s is %q; want it %smatching %q", args[0], got, map[bool]string{true: "not ", false: ""}[neg], args[1])
	}
}

func cmdStartServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! startserver")
	}
	cmd := exec.Command(ts.MkAbs(filepath.Join(ts.Getenv("WORK"), ".bin", "smcp-browse")),
		append([]string{"server", "--listen", "127.0.0.1:0", "--log-file", ts.MkAbs("server.log")}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		ts.Fatalf("%v", err)
	}
	if err := cmd.Start(); err != nil {
		ts.Fatalf("start server: %v", err)
	}
	ts.Defer(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Scan()
		line <- sc.Text()
		for sc.Scan() {
		}
	}()
	select {
	case l := <-line:
		url, ok := strings.CutPrefix(l, "smcp-browse server listening on ")
		if !ok {
			ts.Fatalf("server printed %q", l)
		}
		ts.Setenv("SERVER_URL", url)
	case <-time.After(30 * time.Second):
		ts.Fatalf("the server printed no URL within 30 s")
	}
}

func cmdWaitCatalog(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: waitcatalog N FLAGS...")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("usage: waitcatalog N FLAGS...")
	}
	// ls's connection flags; the agent polls in this process (a new
	// smcp-browse ls for each poll costs a race-built process start).
	fs := flag.NewFlagSet("waitcatalog", flag.ContinueOnError)
	server := fs.String("server", ts.Getenv("SMCP_SERVER"), "")
	office := fs.String("office", ts.Getenv("SMCP_OFFICE"), "")
	comp := fs.String("computer", "", "")
	token := fs.String("token", ts.Getenv("SMCP_TOKEN"), "")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
		ts.Fatalf("usage: waitcatalog N [--server URL] [--office ID] --computer NAME [--token T]: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, err := agent.Connect(ctx, *server, agent.Options{Name: "waitcatalog", Token: *token})
	if err != nil {
		ts.Fatalf("connect: %v", err)
	}
	defer a.Close()
	if err := a.JoinOffice(ctx, *office); err != nil {
		ts.Fatalf("join %s: %v", *office, err)
	}
	var last string
	if !testutil.WaitUntil(30*time.Second, func() bool {
		ret, err := a.GetFinder(ctx, *comp, agent.FinderQuery{Limit: 100})
		if err != nil {
			last = err.Error()
			return false
		}
		last = fmt.Sprintf("%+v", ret)
		// Settled: no entry still waiting for its Level 1 read.
		return ret.TotalCount == want && !slices.ContainsFunc(ret.Documents, func(d protocol.DPEDocumentSummary) bool { return d.Pending })
	}) {
		ts.Fatalf("the catalog never held %d documents; last answer: %s", want, last)
	}
	// Give the office's agent seat back before the script's commands
	// take it.
	if err := a.LeaveOffice(ctx); err != nil {
		ts.Fatalf("leave %s: %v", *office, err)
	}
}

func cmdHoldOffice(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: holdoffice OFFICE")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	a, err := agent.Connect(ctx, ts.Getenv("SERVER_URL"), agent.Options{Name: "the-browser", Token: ts.Getenv("SMCP_TOKEN")})
	if err != nil {
		ts.Fatalf("connect: %v", err)
	}
	ts.Defer(func() { _ = a.Close() })
	if err := a.JoinOffice(ctx, args[0]); err != nil {
		ts.Fatalf("join %s: %v", args[0], err)
	}
	fmt.Fprintf(ts.Stdout(), "the-browser holds office %s\n", args[0])
}

// copyTree copies the files under src into dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}
