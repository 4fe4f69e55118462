package server_test

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// TestServerCommand runs `smcp-browse server` with a token: it prints its
// URL, refuses a client without the token, routes a request between two
// that have it, and exits 0 on SIGTERM after telling its clients.
func TestServerCommand(t *testing.T) {
	proc := testutil.StartServer(t, "--token", "tk-1", "--log-level", "debug")
	ctx := testCtx(t) // after the build of the binary StartServer may make
	url, stderr, exited := proc.URL, proc.Stderr, proc.Exited

	if _, err := agent.Connect(ctx, url, agent.Options{}); protocol.CodeOf(err) != protocol.CodeUnauthorized {
		t.Fatalf("client without the token: %v", err)
	}
	pc, err := sio.Dial(ctx, sio.Options{URL: url, Token: "tk-1", Logger: servertest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	pc.Handle(protocol.EventGetTools, servertest.Reply(protocol.GetToolsRet{Tools: []protocol.SMCPTool{{Name: "t1"}}}))
	if _, err := pc.Call(ctx, protocol.EventJoinOffice, protocol.EnterOfficeReq{Role: "computer", Name: "pc", OfficeID: "o1"}); err != nil {
		t.Fatal(err)
	}
	states := make(chan agent.State, 16)
	a, err := agent.Connect(ctx, url, agent.Options{Token: "tk-1", Handlers: agent.Handlers{State: func(s agent.State) { states <- s }}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.JoinOffice(ctx, "o1"); err != nil {
		t.Fatal(err)
	}
	tools, err := a.GetTools(ctx, "pc")
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "t1" {
		t.Fatalf("get_tools through the binary: %+v %v", tools, err)
	}

	if err := proc.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit: %v\n%s", err, stderr.String())
		}
	case <-time.After(wait):
		t.Fatalf("still running after SIGTERM; stderr:\n%s", stderr.String())
	}
	for s := range states {
		if s == agent.StateReconnecting {
			break
		}
	}
	for _, want := range []string{"shutting down", "stopped", `msg="joined office"`, "req_id="} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the log does not mention %q:\n%s", want, stderr.String())
		}
	}
}
