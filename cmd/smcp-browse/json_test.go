package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/computer"
	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/computer/mcpclient"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// c1 are the UTF-8 bytes of CSI (U+009B), the C1 control a terminal reads
// as ESC [.
const c1 = "\u009b"

func TestEscapeC1(t *testing.T) {
	for in, want := range map[string]string{
		`{"t":"plain ü 漢字 \ufffd"}`:            `{"t":"plain ü 漢字 \ufffd"}`,
		`{"t":"a` + c1 + `31mred"}`:            `{"t":"a\u009b31mred"}`,
		"{\"t\":\"\u0080\u009f\u00a0\"}":       `{"t":"\u0080\u009f` + "\u00a0" + `"}`,
		"{\"t\":\"bad \x9b byte\"}":            `{"t":"bad \ufffd byte"}`,
		`{"t":"already \u009b escaped"}`:       `{"t":"already \u009b escaped"}`,
		"{\"t\":\"real U+FFFD \xef\xbf\xbd\"}": "{\"t\":\"real U+FFFD \xef\xbf\xbd\"}",
	} {
		got := string(escapeC1([]byte(in)))
		if got != want {
			t.Errorf("escapeC1(%q) = %q, want %q", in, got, want)
		}
		var a, b any
		if json.Unmarshal([]byte(got), &b) != nil {
			t.Errorf("escapeC1(%q) is not JSON: %q", in, got)
		} else if json.Unmarshal([]byte(in), &a) == nil && !strings.Contains(in, "\x9b byte") && !jsonEqual(a, b) {
			t.Errorf("escapeC1(%q) changed the value: %v vs %v", in, a, b)
		}
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, protocol.NewError(4201, "document "+c1+"2J not found")); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), c1) || !strings.Contains(buf.String(), `\u009b2J`) {
		t.Errorf("writeJSON let a C1 control through: %q", buf.String())
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// A remote computer whose MCP server puts C1 controls in a title, a text
// and an error: ls --json and cat --json print them escaped, and the JSON
// still says the same.
func TestJSONOutputEscapesC1FromARemoteComputer(t *testing.T) {
	const host = "evil.example"
	title := "Evil " + c1 + "31mred" + c1 + "0m title"
	mcps := mcpserver.NewMCPServer("evil", "1", mcpserver.WithResourceCapabilities(true, true))
	doc := mcp.NewResource("dpe://"+host+"/doc", "doc")
	mcps.AddResource(doc, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		b, _ := json.Marshal(protocol.DPEDocument{DocRef: "doc", URI: "dpe://" + host + "/doc", FileType: "md", Title: title, PageCount: 1})
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}, nil
	})
	srv := servertest.Start(t, server.Options{})
	dial := func(ctx context.Context, s config.Server) (mcpclient.Transport, error) {
		return mcpclient.Transport{T: transport.NewInProcessTransport(mcps)}, nil
	}
	comp, err := computer.New(config.Config{Servers: []config.Server{config.NewStdio("evil", "in-process")}},
		computer.Options{Name: "evil", Office: "o", ServerURL: srv.URL, Dial: dial, Logger: servertest.LogFor(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- comp.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	remote := []string{"--server", srv.URL, "--office", "o", "--computer", "evil", "--json"}
	var r binRun
	if !testutil.WaitUntil(30*time.Second, func() bool {
		r = runBinary(t, append([]string{"ls"}, remote...)...)
		return r.code == 0 && strings.Contains(r.stdout, "Evil")
	}) {
		t.Fatalf("ls never listed the document: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	check := func(what string, r binRun, wantTitle bool) {
		t.Helper()
		if strings.ContainsRune(r.stdout, 0x9b) || strings.Contains(r.stdout, "\x9b") {
			t.Errorf("%s: a raw C1 control reached stdout: %q", what, r.stdout)
		}
		if !strings.Contains(r.stdout, `\u009b`) {
			t.Errorf("%s: the control is not shown escaped: %q", what, r.stdout)
		}
		if wantTitle {
			var ret protocol.GetFinderRet
			if err := json.Unmarshal([]byte(r.stdout), &ret); err != nil || len(ret.Documents) != 1 || ret.Documents[0].Title != title {
				t.Errorf("%s: the JSON no longer says the same: %v %+v", what, err, ret)
			}
		}
	}
	check("ls --json", r, true)

	r = runBinary(t, append([]string{"cat", "dpe://" + host + "/doc"}, remote...)...)
	if r.code != 0 {
		t.Fatalf("cat: exit %d\n%s", r.code, r.stderr)
	}
	check("cat --json", r, false)
}

// binRun is one run of the real binary.
type binRun struct {
	stdout, stderr string
	code           int
}

// runBinary runs the real binary with args, its logs in a temporary
// state directory, and a 60 s bound.
func runBinary(t *testing.T, args ...string) binRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, testutil.Binary(t), args...)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "SMCP_SERVER=", "SMCP_OFFICE=", "SMCP_TOKEN=", "NO_COLOR=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return binRun{out.String(), errb.String(), code}
}
