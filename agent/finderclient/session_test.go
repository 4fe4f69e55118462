package finderclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/agent/finderclient"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func dialOpts(url, office, name string, h agent.Handlers) finderclient.DialOptions {
	return finderclient.DialOptions{Server: url, Office: office, Computer: "pc",
		Agent: agent.Options{Name: name, Timeout: 10 * time.Second, Logger: servertest.Logger(), Handlers: h}}
}

// Dial joins the office; a second agent is kept out with a 4101 that says
// why (one agent per office) and keeps the Server's details.
func TestDialJoinsAndExplainsRoomFull(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	s, err := finderclient.Dial(testCtx(t), dialOpts(srv.URL, "team", "first", agent.Handlers{}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Office != "team" || s.Computer != "pc" || s.Agent.Office() != "team" {
		t.Errorf("session %+v, agent's office %q", s, s.Agent.Office())
	}
	_, err = finderclient.Dial(testCtx(t), dialOpts(srv.URL, "team", "second", agent.Handlers{}))
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeRoomFull || !strings.Contains(pe.Message, "an office holds one agent at a time") ||
		pe.Details["office"] != "team" || pe.Details["reason"] != "one agent per office" {
		t.Fatalf("second agent: %#v", err)
	}
}

// A Server that is not there is CodeUnreachable, naming it.
func TestDialUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	_, err = finderclient.Dial(testCtx(t), dialOpts(url, "team", "a", agent.Handlers{}))
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != finderclient.CodeUnreachable || pe.Details["server"] != url ||
		!strings.HasPrefix(pe.Message, "cannot reach the Server at "+url) {
		t.Fatalf("err = %#v", err)
	}
}

func TestUnreachableAndExplainJoinPassOthers(t *testing.T) {
	pe := protocol.NewError(protocol.CodeVersionMismatch, "incompatible")
	if got := finderclient.Unreachable("http://x", pe); got != error(pe) {
		t.Errorf("a refused handshake became %v", got)
	}
	plain := errors.New("boom")
	if got := finderclient.Unreachable("http://x", plain); got != plain {
		t.Errorf("a plain error became %v", got)
	}
	dns := &net.DNSError{Err: "no such host", Name: "nowhere.invalid"}
	if got := finderclient.Unreachable("http://nowhere.invalid", dns); protocol.CodeOf(got) != finderclient.CodeUnreachable {
		t.Errorf("a DNS failure became %v", got)
	}
	nf := protocol.NewError(protocol.CodeNameTaken, "taken")
	if got := finderclient.ExplainJoin(nf, "o"); got != error(nf) {
		t.Errorf("4105 became %v", got)
	}
}

// Catalog asks again when the computer announces a change, and returns
// the first settled answer.
func TestCatalogSettlesOnUpdates(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	var asks atomic.Int32
	var pc *servertest.Computer
	pc = servertest.NewComputer(t, srv.URL, "team", "pc", servertest.Handlers{
		protocol.EventGetFinder: func(ctx context.Context, raw json.RawMessage) (any, error) {
			var req protocol.GetFinderReq
			_ = json.Unmarshal(raw, &req)
			ret := protocol.GetFinderRet{ReqID: req.ReqID, Documents: []protocol.DPEDocumentSummary{}}
			if n := asks.Add(1); n < 3 {
				ret.Pending, ret.Listing = 3-int(n), n == 1
				go func() { _ = pc.Update(context.Background(), protocol.EventUpdateFinder) }()
			}
			return ret, nil
		},
	})
	updates := finderclient.NewUpdates()
	s, err := finderclient.Dial(testCtx(t), dialOpts(srv.URL, "team", "a", agent.Handlers{UpdateFinder: updates.Notify}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ret, unsettled, err := finderclient.Catalog(testCtx(t), s.Agent, "pc", protocol.FinderQuery{},
		finderclient.SettleOptions{Timeout: 20 * time.Second, Updates: updates.C()})
	if err != nil || unsettled != nil {
		t.Fatalf("err %v, unsettled %v", err, unsettled)
	}
	if asks.Load() != 3 || ret.Pending != 0 || ret.Listing {
		t.Errorf("%d asks, ret %+v", asks.Load(), ret)
	}
	// A computer that is not there is the Server's 404, named.
	_, _, err = finderclient.Catalog(testCtx(t), s.Agent, "gone", protocol.FinderQuery{}, finderclient.SettleOptions{Timeout: 5 * time.Second})
	if protocol.CodeOf(err) != protocol.CodeNotFound || !strings.HasPrefix(err.Error(), "get_finder gone: ") {
		t.Errorf("absent computer: %v", err)
	}
}
