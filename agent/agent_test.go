package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

const wait = 10 * time.Second

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*wait)
	t.Cleanup(cancel)
	return ctx
}

func connect(t *testing.T, url string, opts agent.Options) *agent.Client {
	t.Helper()
	opts.Logger = servertest.Logger()
	opts.ReconnectMin, opts.ReconnectMax = 20*time.Millisecond, 200*time.Millisecond
	a, err := agent.Connect(testCtx(t), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

// recorder is a fake computer handler that records the requests it gets.
type recorder struct {
	mu   sync.Mutex
	reqs []map[string]any
}

func (r *recorder) handler(answer func(req map[string]any) (any, error)) sio.Handler {
	return func(_ context.Context, raw json.RawMessage) (any, error) {
		var req map[string]any
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, err
		}
		r.mu.Lock()
		r.reqs = append(r.reqs, req)
		r.mu.Unlock()
		return answer(req)
	}
}

func (r *recorder) last(t *testing.T) map[string]any {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reqs) == 0 {
		t.Fatal("the computer got no request")
	}
	return r.reqs[len(r.reqs)-1]
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

// text wraps v as a JSON text resource.
func text(uri string, v any) protocol.ReadResourceRet {
	b, _ := json.Marshal(v)
	return protocol.ReadResourceRet{Contents: []protocol.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}
}

// TestNavigation checks the URIs the navigation helpers read and that the
// answers come back typed.
func TestNavigation(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	ctx := testCtx(t)
	var rec recorder
	servertest.NewComputer(t, srv.URL, "o1", "pc", servertest.Handlers{
		protocol.EventReadResource: rec.handler(func(req map[string]any) (any, error) {
			uri := req["uri"].(string)
			switch {
			case strings.Contains(uri, "/pages/"):
				return text(uri, protocol.DPEPage{PageIndex: 3, Title: "Q3", DocRef: "rpt 2026", URI: uri, ElementCount: 1,
					Elements: []protocol.DPEElementDetail{{ElementID: "tbl-1", Category: "table", Content: map[string]any{"rows": []any{}}}}}), nil
			case strings.Contains(uri, "/elements/"):
				return text(uri, protocol.DPEElementDetail{ElementID: "tbl 1", Category: "table", Content: map[string]any{"caption": "c"}}), nil
			default:
				total := 12
				return text(uri, protocol.DPEDocument{DocRef: "rpt 2026", URI: uri, Title: "Report", PageCount: 12, PageTotal: &total,
					Pages: []protocol.DPEPageSummary{{PageIndex: 10, Title: "p10"}}}), nil
			}
		}),
	})
	a := connect(t, srv.URL, agent.Options{Name: "bot"})
	if err := a.JoinOffice(ctx, "o1"); err != nil {
		t.Fatal(err)
	}
	doc := mustParse(t, "dpe://docs.example/rpt%202026?format=markdown")

	d, err := a.ReadDocument(ctx, "pc", doc)
	if err != nil || d.Title != "Report" || d.PageCount != 12 {
		t.Fatalf("ReadDocument: %+v %v", d, err)
	}
	if got := rec.last(t)["uri"]; got != "dpe://docs.example/rpt%202026" {
		t.Errorf("ReadDocument read %v (the format is dropped: the answer is decoded as JSON)", got)
	}
	if got := rec.last(t)["agent"]; got != "bot" {
		t.Errorf("agent field %v", got)
	}

	off, lim := 10, 5
	d, err = a.ReadDocument(ctx, "pc", doc.WithQuery(dpe.Query{Depth: dpe.DepthPages, Offset: &off, Limit: &lim}))
	if err != nil || len(d.Pages) != 1 || *d.PageTotal != 12 {
		t.Fatalf("ReadDocument with pages: %+v %v", d, err)
	}
	if got := rec.last(t)["uri"]; got != "dpe://docs.example/rpt%202026?depth=pages&offset=10&limit=5" {
		t.Errorf("ReadDocument with pages read %v", got)
	}

	p, err := a.ReadPage(ctx, "pc", mustParse(t, "dpe://docs.example/rpt%202026/pages/3?format=text&categories=table"))
	if err != nil || p.Title != "Q3" || len(p.Elements) != 1 || p.Elements[0].Category != "table" {
		t.Fatalf("ReadPage: %+v %v", p, err)
	}
	if got := rec.last(t)["uri"]; got != "dpe://docs.example/rpt%202026/pages/3?categories=table" {
		t.Errorf("ReadPage read %v", got)
	}

	el, err := a.ReadElement(ctx, "pc", dpe.Element("docs.example", "rpt 2026", "tbl 1"))
	if err != nil || el.ElementID != "tbl 1" || el.Content["caption"] != "c" {
		t.Fatalf("ReadElement: %+v %v", el, err)
	}
	if got := rec.last(t)["uri"]; got != "dpe://docs.example/rpt%202026/elements/tbl%201" {
		t.Errorf("ReadElement read %v", got)
	}

	// A URI of the wrong level is refused locally, before any request.
	before := rec.count()
	for name, call := range map[string]func() error{
		"catalog as document": func() error { _, err := a.ReadDocument(ctx, "pc", dpe.Catalog("docs.example")); return err },
		"document as page":    func() error { _, err := a.ReadPage(ctx, "pc", doc); return err },
		"page as element":     func() error { _, err := a.ReadElement(ctx, "pc", dpe.Page("docs.example", "d", 1)); return err },
		"zero URI":            func() error { _, err := a.ReadDocument(ctx, "pc", dpe.URI{}); return err },
	} {
		err := call()
		if code := protocol.CodeOf(err); code != protocol.CodeInvalidDPEURI {
			t.Errorf("%s: %v", name, err)
		}
	}
	if rec.count() != before {
		t.Errorf("bad input reached the computer")
	}
}

func mustParse(t *testing.T, raw string) dpe.URI {
	t.Helper()
	u, err := dpe.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestReadErrors checks errors coming from the computer (flat and nested,
// details kept) and content the helpers cannot use.
func TestReadErrors(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	ctx := testCtx(t)
	servertest.NewComputer(t, srv.URL, "o1", "pc", servertest.Handlers{
		protocol.EventReadResource: func(_ context.Context, raw json.RawMessage) (any, error) {
			var req protocol.ReadResourceReq
			_ = json.Unmarshal(raw, &req)
			switch {
			case strings.HasSuffix(req.URI, "/missing"):
				return nil, protocol.Errorf(protocol.CodeDocumentNotFound, "document missing not found").
					WithDetails(map[string]any{"doc_ref": "missing"})
			case strings.Contains(req.URI, "/pages/99"):
				return map[string]any{"error": map[string]any{"code": 4202, "message": "page 99 out of range"}}, nil
			case strings.HasSuffix(req.URI, "/blob"):
				return protocol.ReadResourceRet{Contents: []protocol.ResourceContents{{URI: req.URI, Blob: "AAEC"}}}, nil
			}
			return protocol.ReadResourceRet{Contents: []protocol.ResourceContents{{URI: req.URI, Text: "# not json"}}}, nil
		},
	})
	a := connect(t, srv.URL, agent.Options{})
	if err := a.JoinOffice(ctx, "o1"); err != nil {
		t.Fatal(err)
	}
	_, err := a.ReadDocument(ctx, "pc", dpe.Document("docs", "missing"))
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeDocumentNotFound || pe.Details["doc_ref"] != "missing" {
		t.Fatalf("flat error: %v %+v", err, pe)
	}
	if _, err := a.ReadPage(ctx, "pc", dpe.Page("docs", "rpt", 99)); protocol.CodeOf(err) != protocol.CodePageOutOfRange {
		t.Fatalf("nested error: %v", err)
	}
	if _, err := a.ReadText(ctx, "pc", "dpe://docs/blob"); err == nil || !strings.Contains(err.Error(), "no text content") {
		t.Fatalf("blob-only resource: %v", err)
	}
	if s, err := a.ReadText(ctx, "pc", "dpe://docs/md"); err != nil || s != "# not json" {
		t.Fatalf("ReadText: %q %v", s, err)
	}
	var v map[string]any
	if err := a.ReadJSON(ctx, "pc", "dpe://docs/md", &v); err == nil || !strings.Contains(err.Error(), "not the JSON expected") {
		t.Fatalf("ReadJSON of markdown: %v", err)
	}
}

// TestRequests checks what each request method sends and decodes.
func TestRequests(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	ctx := testCtx(t)
	var finder, desktop, tools, cfg, call recorder
	servertest.NewComputer(t, srv.URL, "o1", "pc", servertest.Handlers{
		protocol.EventGetFinder: finder.handler(func(req map[string]any) (any, error) {
			return protocol.GetFinderRet{Documents: []protocol.DPEDocumentSummary{{Title: "a"}}, TotalCount: 7, ReqID: req["req_id"].(string)}, nil
		}),
		protocol.EventGetDesktop: desktop.handler(func(req map[string]any) (any, error) {
			return protocol.GetDeskTopRet{Desktops: []string{"window://a"}, ReqID: req["req_id"].(string)}, nil
		}),
		protocol.EventGetTools: tools.handler(func(req map[string]any) (any, error) {
			return protocol.GetToolsRet{Tools: []protocol.SMCPTool{{Name: "docs__search", Description: "d", ParamsSchema: json.RawMessage(`{"type":"object"}`)}}}, nil
		}),
		protocol.EventGetConfig: cfg.handler(func(map[string]any) (any, error) {
			return protocol.GetComputerConfigRet{Servers: map[string]json.RawMessage{"docs": json.RawMessage(`{"command":"x"}`)}}, nil
		}),
		protocol.EventToolCall: call.handler(func(req map[string]any) (any, error) {
			return protocol.CallToolResult{
				Content: []protocol.ToolContent{{Type: "text", Text: "no such file"}},
				IsError: true, Meta: map[string]any{protocol.MetaTimeout: true},
			}, nil
		}),
	})
	a := connect(t, srv.URL, agent.Options{Name: "bot"})
	if err := a.JoinOffice(ctx, "o1"); err != nil {
		t.Fatal(err)
	}

	ret, err := a.GetFinder(ctx, "pc", agent.FinderQuery{Keywords: []string{"q3"}, FileType: "pdf", Offset: 20, Limit: 10})
	if err != nil || ret.TotalCount != 7 || ret.ReqID == "" {
		t.Fatalf("GetFinder: %+v %v", ret, err)
	}
	want := map[string]any{"agent": "bot", "req_id": ret.ReqID, "computer": "pc", "keywords": []any{"q3"}, "file_type": "pdf", "offset": 20.0, "limit": 10.0}
	if got := finder.last(t); !reflect.DeepEqual(got, want) {
		t.Errorf("get_finder sent %v\nwant %v", got, want)
	}
	if _, err := a.GetFinder(ctx, "pc", agent.FinderQuery{}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"keywords", "file_type", "offset", "limit"} {
		if _, ok := finder.last(t)[k]; ok {
			t.Errorf("default query sent %s", k)
		}
	}
	if _, err := a.GetFinder(ctx, "pc", agent.FinderQuery{Limit: -1}); protocol.CodeOf(err) != 400 {
		t.Errorf("negative limit: %v", err)
	}

	dk, err := a.GetDesktop(ctx, "pc", 3, "window://a")
	if err != nil || len(dk.Desktops) != 1 {
		t.Fatalf("GetDesktop: %+v %v", dk, err)
	}
	if got := desktop.last(t); got["desktop_size"] != 3.0 || got["window"] != "window://a" {
		t.Errorf("get_desktop sent %v", got)
	}
	if _, err := a.GetDesktop(ctx, "pc", 0, ""); err != nil {
		t.Fatal(err)
	}
	if _, ok := desktop.last(t)["desktop_size"]; ok {
		t.Errorf("size 0 sent desktop_size")
	}

	tl, err := a.GetTools(ctx, "pc")
	if err != nil || len(tl.Tools) != 1 || string(tl.Tools[0].ParamsSchema) != `{"type":"object"}` {
		t.Fatalf("GetTools: %+v %v", tl, err)
	}
	c, err := a.GetConfig(ctx, "pc")
	if err != nil || string(c.Servers["docs"]) != `{"command":"x"}` {
		t.Fatalf("GetConfig: %+v %v", c, err)
	}

	res, err := a.CallTool(ctx, "pc", "docs__read", map[string]any{"path": "a.md"}, 1500*time.Millisecond)
	if err != nil || !res.IsError || res.Text() != "no such file" || !res.TimedOut() || res.Cancelled() {
		t.Fatalf("CallTool: %+v %v", res, err)
	}
	// 1.5 s goes out as 2: the protocol's ToolCallReq.timeout is an integer.
	if got := call.last(t); got["tool_name"] != "docs__read" || got["timeout"] != 2.0 || !reflect.DeepEqual(got["params"], map[string]any{"path": "a.md"}) {
		t.Errorf("tool_call sent %v", got)
	}
	if _, err := a.CallTool(ctx, "pc", "", nil, 0); protocol.CodeOf(err) != 400 {
		t.Errorf("empty tool name: %v", err)
	}
	if _, err := a.GetTools(ctx, "nobody"); protocol.CodeOf(err) != 404 {
		t.Errorf("unknown computer: %v", err)
	}
}

// TestCallToolTimeoutCancels checks that a tool call running out of time
// locally returns 408 and tells the office to cancel it.
func TestCallToolTimeoutCancels(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	var rec recorder
	pc := servertest.NewComputer(t, srv.URL, "o1", "pc", servertest.Handlers{
		protocol.EventToolCall: rec.handler(func(map[string]any) (any, error) {
			time.Sleep(2 * time.Second)
			return protocol.CallToolResult{}, nil
		}),
	})
	cancels := make(chan protocol.AgentCallData, 1)
	pc.Conn.Listen(protocol.NotifyToolCallCancel, func(raw json.RawMessage) {
		var c protocol.AgentCallData
		_ = json.Unmarshal(raw, &c)
		cancels <- c
	})
	a := connect(t, srv.URL, agent.Options{Name: "bot"})
	if err := a.JoinOffice(testCtx(t), "o1"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(testCtx(t), 300*time.Millisecond)
	defer cancel()
	_, err := a.CallTool(ctx, "pc", "slow", nil, time.Minute)
	if protocol.CodeOf(err) != protocol.CodeTimeout {
		t.Fatalf("err %v, want 408", err)
	}
	select {
	case c := <-cancels:
		if c.Agent != "bot" || c.ReqID != rec.last(t)["req_id"] {
			t.Fatalf("cancel %+v for request %v", c, rec.last(t)["req_id"])
		}
	case <-time.After(wait):
		t.Fatal("no notify:tool_call_cancel reached the computer")
	}
}

// TestNotificationOrder checks that a slow callback still sees one
// event type's notifications one at a time and in order.
func TestNotificationOrder(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	ctx := testCtx(t)
	var mu sync.Mutex
	var got []string
	busy := false
	done := make(chan struct{})
	const n = 20
	a := connect(t, srv.URL, agent.Options{Handlers: agent.Handlers{
		UpdateFinder: func(u protocol.UpdateComputerConfigReq) {
			mu.Lock()
			if busy {
				t.Error("callback re-entered")
			}
			busy = true
			mu.Unlock()
			time.Sleep(2 * time.Millisecond)
			mu.Lock()
			busy = false
			got = append(got, u.Computer)
			if len(got) == n {
				close(done)
			}
			mu.Unlock()
		},
	}})
	if err := a.JoinOffice(ctx, "o1"); err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range n {
		pc := servertest.NewComputer(t, srv.URL, "o1", fmt.Sprint("pc", i), nil)
		if err := pc.Update(ctx, protocol.EventUpdateFinder); err != nil {
			t.Fatal(err)
		}
		want = append(want, pc.Name)
	}
	select {
	case <-done:
	case <-time.After(wait):
		t.Fatalf("got %d of %d notifications", len(got), n)
	}
	mu.Lock()
	defer mu.Unlock()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

// TestConnectStates checks the state callbacks and the errors outside a
// connection or an office.
func TestConnectStates(t *testing.T) {
	srv := servertest.Start(t, server.Options{Token: "t0k"})
	ctx := testCtx(t)
	states := make(chan agent.State, 16)
	h := agent.Handlers{State: func(s agent.State) { states <- s }}

	_, err := agent.Connect(ctx, srv.URL, agent.Options{Token: "wrong", Handlers: h})
	if protocol.CodeOf(err) != protocol.CodeUnauthorized {
		t.Fatalf("wrong token: %v", err)
	}
	if s1, s2 := <-states, <-states; s1 != agent.StateConnecting || s2 != agent.StateClosed {
		t.Fatalf("refused connect states %s %s", s1, s2)
	}

	a := connect(t, srv.URL, agent.Options{Token: "t0k", Handlers: h})
	if s1, s2 := <-states, <-states; s1 != agent.StateConnecting || s2 != agent.StateConnected {
		t.Fatalf("connect states %s %s", s1, s2)
	}
	if a.Name() != agent.DefaultName || a.State() != agent.StateConnected || a.Office() != "" {
		t.Fatalf("name %q state %s office %q", a.Name(), a.State(), a.Office())
	}
	if _, err := a.ListRoom(ctx); !errors.Is(err, agent.ErrNoOffice) {
		t.Fatalf("ListRoom before joining: %v", err)
	}
	if err := a.LeaveOffice(ctx); !errors.Is(err, agent.ErrNoOffice) {
		t.Fatalf("LeaveOffice before joining: %v", err)
	}
	if _, err := a.GetTools(ctx, "pc"); protocol.CodeOf(err) != protocol.CodeNotInRoom {
		t.Fatalf("request before joining: %v", err)
	}
	_ = a.Close()
	if s := <-states; s != agent.StateClosed {
		t.Fatalf("state after Close: %s", s)
	}
	if _, err := a.GetTools(ctx, "pc"); !errors.Is(err, agent.ErrClosed) {
		t.Fatalf("request after Close: %v", err)
	}

	b, err := agent.Connect(ctx, "ws://"+srv.Addr+"/smcp", agent.Options{Token: "t0k", Path: "/smcp/"})
	if err != nil {
		t.Fatalf("ws URL and the Python SDK's path: %v", err)
	}
	_ = b.Close()
	for s, want := range map[agent.State]string{agent.StateConnecting: "connecting", agent.StateReconnecting: "reconnecting", agent.State(7): "State(7)"} {
		if s.String() != want {
			t.Errorf("%d: %s", int(s), s)
		}
	}
}

// TestJSONVariantsKeepUnmodelledFields: GetFinderJSON and ReadResourceJSON
// hand back the Computer's answer as received, for `--json` output.
func TestJSONVariantsKeepUnmodelledFields(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	ctx := testCtx(t)
	servertest.NewComputer(t, srv.URL, "o1", "pc", servertest.Handlers{
		protocol.EventGetFinder: func(_ context.Context, raw json.RawMessage) (any, error) {
			return json.RawMessage(`{"documents":[{"title":"a","x_rank":0.5}],"total_count":1,"req_id":"r","_meta":{"k":"v"}}`), nil
		},
		protocol.EventReadResource: func(_ context.Context, raw json.RawMessage) (any, error) {
			return json.RawMessage(`{"contents":[{"uri":"dpe://h/d","text":"t","_meta":{"a":1}}],"_meta":{"b":2}}`), nil
		},
	})
	a := connect(t, srv.URL, agent.Options{Name: "bot"})
	if err := a.JoinOffice(ctx, "o1"); err != nil {
		t.Fatal(err)
	}
	cat, err := a.GetFinderJSON(ctx, "pc", agent.FinderQuery{})
	if err != nil || !strings.Contains(string(cat), `"x_rank":0.5`) || !strings.Contains(string(cat), `"_meta":{"k":"v"}`) {
		t.Errorf("GetFinderJSON = %s, %v", cat, err)
	}
	read, err := a.ReadResourceJSON(ctx, "pc", "dpe://h/d")
	if err != nil || !strings.Contains(string(read), `"_meta":{"a":1}`) || !strings.Contains(string(read), `"_meta":{"b":2}`) {
		t.Errorf("ReadResourceJSON = %s, %v", read, err)
	}
	if _, err := a.ReadResourceJSON(ctx, "nobody", "dpe://h/d"); protocol.CodeOf(err) != 404 {
		t.Errorf("unknown computer: %v, want 404", err)
	}
	if _, err := a.GetFinderJSON(ctx, "pc", agent.FinderQuery{Offset: -1}); protocol.CodeOf(err) != 400 {
		t.Errorf("negative offset: %v, want 400", err)
	}
}

// TestJoinOfficeGivesUpWithinTimeout: with the Server gone for good,
// JoinOffice waits for a reconnect no longer than the client's Timeout,
// even under a context without deadline.
func TestJoinOfficeGivesUpWithinTimeout(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	a := connect(t, srv.URL, agent.Options{Timeout: 500 * time.Millisecond})
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, wait, "the client noticed the Server going away", func() bool { return a.State() != agent.StateConnected })
	done := make(chan error, 1)
	go func() { done <- a.JoinOffice(context.Background(), "o1") }()
	select {
	case err := <-done:
		if !errors.Is(err, agent.ErrNotConnected) {
			t.Fatalf("join with the Server gone: %v, want ErrNotConnected", err)
		}
	case <-time.After(wait):
		t.Fatalf("JoinOffice still waiting %s after the Server went away (Timeout 500ms)", wait)
	}
}
