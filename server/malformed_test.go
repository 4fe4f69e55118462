package server_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// TestMalformedPayloadsKeepTheConnection sends payloads of the wrong shape
// and size, and events without an ack; each gets a 400 answer or is
// dropped, and the same connection keeps working afterwards.
func TestMalformedPayloadsKeepTheConnection(t *testing.T) {
	eachTopology(t, server.Options{}, testMalformedPayloadsKeepTheConnection)
}

func testMalformedPayloadsKeepTheConnection(t *testing.T, tp topology) {
	ctx := testCtx(t)
	servertest.NewComputer(t, tp.at(0), "o1", "pc", servertest.Handlers{
		protocol.EventGetFinder: servertest.Finder(protocol.DPEDocumentSummary{Title: "ok"}),
	})
	bot := dial(t, tp.at(1))
	join(t, bot, protocol.RoleAgent, "bot", "o1")
	sid := bot.ID()

	huge := strings.Repeat("x", 10<<20)
	tests := []struct {
		name    string
		event   string
		payload any
		msg     string
	}{
		{"string payload", protocol.EventGetFinder, "hello", "must be a JSON object, got a string"},
		{"number payload", protocol.EventGetFinder, 42, "got a number"},
		{"array payload", protocol.EventGetFinder, []any{1, 2}, "got an array"},
		{"null payload", protocol.EventGetFinder, nil, "got nothing"},
		{"computer not a string", protocol.EventGetFinder, map[string]any{"computer": []any{"pc"}}, `"computer" must be string`},
		// The Server decodes only the fields it routes by; the computer
		// refuses the rest (here the fake computer's decoder).
		{"keywords not a list", protocol.EventGetFinder, map[string]any{"computer": "pc", "keywords": "a b"}, `keywords`},
		{"offset not a number", protocol.EventGetFinder, map[string]any{"computer": "pc", "offset": "10"}, `offset`},
		{"10 MB string in a request", protocol.EventGetFinder, map[string]any{"computer": "pc", "keywords": []string{huge}}, "payload too large"},
		{"10 MB name in a join", protocol.EventJoinOffice, protocol.EnterOfficeReq{Role: "agent", Name: huge, OfficeID: "o1"}, "payload too large"},
		{"join payload of the wrong shape", protocol.EventJoinOffice, []any{"agent", "bot", "o1"}, "must be a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := bot.Call(ctx, tt.event, tt.payload)
			if code := codeOf(t, err); code != protocol.CodeBadRequest {
				t.Fatalf("code %d (%v), want 400", code, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("message %q does not say %q", err, tt.msg)
			}
		})
	}
	// Events without an ack callback cannot be answered: they are dropped.
	for _, ev := range []string{protocol.EventGetFinder, protocol.EventJoinOffice, protocol.EventListRoom} {
		if err := bot.Emit(ev, "junk"); err != nil {
			t.Fatal(err)
		}
	}
	if err := bot.Emit(protocol.EventGetFinder, protocol.ComputerCall{Agent: "bot", ReqID: "no-ack", Computer: "pc"}); err != nil {
		t.Fatal(err)
	}

	raw, err := bot.Call(ctx, protocol.EventGetFinder, protocol.ComputerCall{Agent: "bot", ReqID: "after", Computer: "pc"})
	if err != nil {
		t.Fatalf("routing after the bad payloads: %v", err)
	}
	var ret protocol.GetFinderRet
	if err := json.Unmarshal(raw, &ret); err != nil || ret.ReqID != "after" || ret.Documents[0].Title != "ok" {
		t.Fatalf("answer %s %v", raw, err)
	}
	if bot.ID() != sid {
		t.Fatalf("the connection was replaced: sid %s, was %s", bot.ID(), sid)
	}
}

// pollClient speaks engine.io long-polling by hand, to send what no
// well-behaved client would: broken packets and binary attachments.
type pollClient struct {
	t   *testing.T
	url string // endpoint with EIO, transport and sid
	hc  *http.Client
	got []string // packets received and not yet waited for
}

func openPoll(t *testing.T, base string) *pollClient {
	t.Helper()
	hc := &http.Client{Timeout: wait}
	endpoint := base + "/socket.io/?EIO=4&transport=polling&a2c_version=" + protocol.Version
	resp, err := hc.Get(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	var open struct {
		SID string `json:"sid"`
	}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(string(body), "0")), &open); err != nil || open.SID == "" {
		t.Fatalf("handshake answer %q: %v", body, err)
	}
	p := &pollClient{t: t, url: endpoint + "&sid=" + url.QueryEscape(open.SID), hc: hc}
	p.send("40/smcp,")
	p.waitFor("40/smcp,")
	return p
}

// send posts packets (joined with the record separator).
func (p *pollClient) send(packets ...string) {
	p.t.Helper()
	resp, err := p.hc.Post(p.url, "text/plain;charset=UTF-8", strings.NewReader(strings.Join(packets, "\x1e")))
	if err != nil {
		p.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		p.t.Fatalf("POST answered %d %s", resp.StatusCode, body)
	}
}

// waitFor polls until a packet starting with prefix arrives and returns it.
func (p *pollClient) waitFor(prefix string) string {
	p.t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		for len(p.got) > 0 {
			pkt := p.got[0]
			p.got = p.got[1:]
			if strings.HasPrefix(pkt, prefix) {
				return pkt
			}
		}
		resp, err := p.hc.Get(p.url)
		if err != nil {
			p.t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			p.t.Fatalf("GET answered %d %s: the session is gone", resp.StatusCode, body)
		}
		p.got = append(p.got, strings.Split(string(body), "\x1e")...)
	}
	p.t.Fatalf("no packet starting with %q", prefix)
	return ""
}

// TestBrokenPacketsAndBinaryKeepTheSession sends undecodable Socket.IO
// packets and binary attachments on one polling session; the server drops
// or refuses each and the session keeps answering.
func TestBrokenPacketsAndBinaryKeepTheSession(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	ctx := testCtx(t)
	servertest.NewComputer(t, srv.URL, "o1", "pc", servertest.Handlers{
		protocol.EventGetFinder: servertest.Finder(protocol.DPEDocumentSummary{Title: "ok"}),
	})
	a := newAgent(t, srv.URL, "watcher", agent.Handlers{})
	if err := a.JoinOffice(ctx, "o2"); err != nil {
		t.Fatal(err)
	}
	p := openPoll(t, srv.URL)
	blob := "b" + base64.StdEncoding.EncodeToString([]byte{0, 1, 2, 255})

	// Broken JSON and an unknown packet type: dropped.
	p.send(`42/smcp,1["server:leave_office",{`, `49/smcp,garbage`)
	// A binary attachment as the whole payload: refused as malformed.
	p.send(`451-/smcp,2["client:get_finder",{"_placeholder":true,"num":0}]`, blob)
	got := p.waitFor("43/smcp,2")
	if !strings.Contains(got, `"code":400`) || !strings.Contains(got, "must be a JSON object") {
		t.Fatalf("binary payload answered %s", got)
	}
	// A binary packet whose attachment never comes, then a text packet: the
	// half-built one is dropped, the text one is served.
	p.send(`451-/smcp,3["client:get_finder",{"_placeholder":true,"num":0}]`)
	p.send(`42/smcp,4["server:list_room",{"office_id":"o1"}]`)
	if got := p.waitFor("43/smcp,4"); !strings.Contains(got, `"code":4103`) {
		t.Fatalf("list_room answered %s", got)
	}
	// A client:* request without an ack id: dropped.
	p.send(`42/smcp,["client:get_finder",{"computer":"pc"}]`)

	// The session still works: join as agent and route a request carrying
	// a binary attachment inside its object.
	p.send(`42/smcp,5["server:join_office",{"role":"agent","name":"raw","office_id":"o1"}]`)
	if got := p.waitFor("43/smcp,5"); got != "43/smcp,5[true,null]" {
		t.Fatalf("join answered %s, want the protocol's (true, null)", got)
	}
	p.send(`451-/smcp,6["client:get_finder",{"agent":"raw","req_id":"r6","computer":"pc","blob":{"_placeholder":true,"num":0}}]`, blob)
	if got := p.waitFor("43/smcp,6"); !strings.Contains(got, `"req_id":"r6"`) || !strings.Contains(got, `"title":"ok"`) {
		t.Fatalf("routed request answered %s", got)
	}
}
