package server_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// TestClusterNodeStopped: the node of a computer holding a request stops
// (a restart for an upgrade). The agent, on another node, is answered 404
// at once; the computer, given both nodes' URLs, moves to the other node
// and re-joins; the office hears it leave and come back, and requests
// reach it again.
func TestClusterNodeStopped(t *testing.T) {
	nodes := startCluster(t, 2, server.Options{})
	ctx := testCtx(t)
	held := make(chan struct{}, 1)
	servertest.NewComputer(t, nodes[0].URL+","+nodes[1].URL, "o1", "pc", servertest.Handlers{
		protocol.EventGetTools: func(ctx context.Context, raw json.RawMessage) (any, error) {
			var req protocol.ComputerCall
			_ = json.Unmarshal(raw, &req)
			if req.ReqID == "held" {
				held <- struct{}{}
				<-ctx.Done()
			}
			return protocol.GetToolsRet{ReqID: req.ReqID}, nil
		},
	})
	in := newInbox(t)
	bot := dial(t, nodes[1].URL)
	listenAll(bot, in)
	join(t, bot, protocol.RoleAgent, "bot", "o1")

	errc := make(chan error, 1)
	go func() {
		_, err := bot.Call(ctx, protocol.EventGetTools, protocol.ComputerCall{ReqID: "held", Computer: "pc"})
		errc <- err
	}()
	<-held
	if err := nodes[0].Stop(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; codeOf(t, err) != protocol.CodeNotFound || !strings.Contains(err.Error(), "disconnected") {
		t.Fatalf("request held by the stopped node's computer: %v, want 404 disconnected", err)
	}
	// Two events' notifications reach a client's listeners in any order.
	got := []string{in.next(), in.next()}
	slices.Sort(got)
	if want := []string{`notify:enter_office {"computer":"pc","office_id":"o1"}`, `notify:leave_office {"computer":"pc","office_id":"o1"}`}; !slices.Equal(got, want) {
		t.Fatalf("notifications %q, want %q", got, want)
	}
	raw, err := bot.Call(ctx, protocol.EventGetTools, protocol.ComputerCall{ReqID: "after", Computer: "pc"})
	if err != nil || !strings.Contains(string(raw), `"req_id":"after"`) {
		t.Fatalf("request after the move: %s %v", raw, err)
	}
}

// TestDialTriesTheNextNode: a client given several URLs connects to the
// first node that accepts.
func TestDialTriesTheNextNode(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := sio.Dial(ctx, sio.Options{URL: "http://127.0.0.1:1, " + srv.URL, Logger: servertest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	join(t, c, protocol.RoleComputer, "pc", "o1")
	// A refusal is the Server's answer everywhere: it is not tried again.
	_, err = sio.Dial(ctx, sio.Options{URL: srv.URL + "," + srv.URL, Version: "9.0.0"})
	if protocol.CodeOf(err) != protocol.CodeVersionMismatch {
		t.Fatalf("dial with a refused version: %v, want 4008", err)
	}
}

// TestLargeAnswerAcrossNodes: a 3 MB answer (a big page) crosses nodes
// byte for byte, as it crosses one node.
func TestLargeAnswerAcrossNodes(t *testing.T) {
	eachTopology(t, server.Options{}, func(t *testing.T, tp topology) {
		body := strings.Repeat("é<>&\"\\ line\n", 3<<20/12)
		servertest.NewComputer(t, tp.at(0), "o1", "pc", servertest.Handlers{
			protocol.EventReadResource: servertest.Reply(protocol.ReadResourceRet{Contents: []protocol.ResourceContents{{URI: "dpe://h/doc", Text: body}}}),
		})
		bot := dial(t, tp.at(1))
		join(t, bot, protocol.RoleAgent, "bot", "o1")
		raw, err := bot.Call(testCtx(t), protocol.EventReadResource, map[string]any{"computer": "pc", "req_id": "1", "uri": "dpe://h/doc"})
		if err != nil {
			t.Fatal(err)
		}
		var ret protocol.ReadResourceRet
		if err := json.Unmarshal(raw, &ret); err != nil || len(ret.Contents) != 1 || ret.Contents[0].Text != body {
			t.Fatalf("answer of %d bytes does not carry the body (%v)", len(raw), err)
		}
	})
}
