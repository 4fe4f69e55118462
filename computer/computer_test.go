package computer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/computer/mcpclient"
	"github.com/smcp-browse/smcp-browse/internal/rpcerr"
	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	smcpserver "github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// counters count what an in-process server was asked.
type counters struct {
	reads, lists atomic.Int64
	readDelay    atomic.Int64 // nanoseconds each Level 1 read takes
	waiting      atomic.Int64 // calls of the wait tool under way
}

// docServer is an in-process Finder-capable MCP server with n documents,
// one window and a few tools.
func docServer(host string, n int, cnt *counters) *server.MCPServer {
	hooks := &server.Hooks{}
	hooks.AddAfterListResources(func(ctx context.Context, id any, req *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
		cnt.lists.Add(1)
	})
	s := server.NewMCPServer("fleet-"+host, "1", server.WithResourceCapabilities(true, true),
		server.WithToolCapabilities(true), server.WithHooks(hooks))
	var res []server.ServerResource
	for i := range n {
		ref := fmt.Sprintf("doc-%04d", i)
		uri := "dpe://" + host + "/" + ref
		res = append(res, server.ServerResource{
			Resource: mcp.NewResource(uri, ref),
			Handler: func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				cnt.reads.Add(1)
				time.Sleep(time.Duration(cnt.readDelay.Load()))
				b, _ := json.Marshal(protocol.DPEDocument{DocRef: ref, URI: uri, FileType: []string{"md", "pdf"}[i%2],
					Title: fmt.Sprintf("Report %d of %s", i, host), PageCount: 1 + i%7, Keywords: []string{"k" + ref},
					LastModified: fmt.Sprintf("2026-01-%02dT00:00:00Z", 1+i%28)})
				return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "application/json", Text: string(b)}}, nil
			},
		})
	}
	s.AddResources(res...)
	win := mcp.NewResource("window://"+host+"/status?priority=50", "status")
	s.AddResource(win, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "status of " + host}}, nil
	})
	s.AddTool(mcp.NewTool("echo", mcp.WithString("message")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(host + ": " + req.GetString("message", "")), nil
	})
	s.AddTool(mcp.NewTool("danger"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("boom"), nil
	})
	s.AddTool(mcp.NewTool("wait"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		cnt.waiting.Add(1)
		defer cnt.waiting.Add(-1)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Second):
			return mcp.NewToolResultText("done"), nil
		}
	})
	return s
}

// fleet is a Computer over in-process servers, without a socket.
type fleet struct {
	c    *Computer
	cnt  []*counters
	stop func()
}

func newFleet(tb testing.TB, servers, docs int, tweak func(*config.Server)) *fleet {
	tb.Helper()
	return newFleetWith(tb, servers, docs, tweak, Options{})
}

// newFleetWith is newFleet with the Computer's options (Name, Dial and
// Debounce are set here).
func newFleetWith(tb testing.TB, servers, docs int, tweak func(*config.Server), opts Options) *fleet {
	tb.Helper()
	srvs := map[string]*server.MCPServer{}
	var cfg config.Config
	f := &fleet{}
	for i := range servers {
		name := fmt.Sprintf("srv-%02d", i)
		cnt := &counters{}
		f.cnt = append(f.cnt, cnt)
		srvs[name] = docServer(fmt.Sprintf("host%02d.example", i), docs, cnt)
		s := config.NewStdio(name, "in-process")
		if tweak != nil {
			tweak(&s)
		}
		cfg.Servers = append(cfg.Servers, s)
	}
	dial := func(ctx context.Context, s config.Server) (mcpclient.Transport, error) {
		return mcpclient.Transport{T: transport.NewInProcessTransport(srvs[s.BundleID])}, nil
	}
	opts.Name, opts.Dial, opts.Debounce = "pc", dial, 20*time.Millisecond
	c, err := New(cfg, opts)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.mgr.Run(ctx); close(done) }()
	f.c = c
	f.stop = func() { cancel(); <-done; c.index.Close() }
	if !testutil.WaitUntil(30*time.Second, func() bool { return len(c.index.Sources()) >= servers }) {
		tb.Fatalf("only %d of %d servers up", len(c.index.Sources()), servers)
	}
	f.settle()
	return f
}

// settle waits until the start-up listings (each subscription
// acknowledgement triggers one) have stopped.
func (f *fleet) settle() {
	last := f.lists()
	for stable := 0; stable < 4; {
		time.Sleep(50 * time.Millisecond)
		if n := f.lists(); n == last {
			stable++
		} else {
			last, stable = n, 0
		}
	}
}

func (f *fleet) reads() int64 {
	var n int64
	for _, c := range f.cnt {
		n += c.reads.Load()
	}
	return n
}

func (f *fleet) lists() int64 {
	var n int64
	for _, c := range f.cnt {
		n += c.lists.Load()
	}
	return n
}

// serveRaw is h as the connection runs it (route, with the default limit).
func serveRaw[Req any](h func(context.Context, Req) (any, error)) sio.Handler {
	return route("test", DefaultMaxAnswerBytes, h)
}

// call runs h on payload as the connection would, and decodes its answer
// as T.
func call[T, Req any](t testing.TB, h func(context.Context, Req) (any, error), payload string) (T, error) {
	t.Helper()
	var zero T
	v, err := serveRaw(h)(context.Background(), json.RawMessage(payload))
	if err != nil {
		return zero, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("answer %s: %v", b, err)
	}
	return out, nil
}

func TestWarmGetFinderDoesNoMCPRequest(t *testing.T) {
	f := newFleet(t, 3, 200, nil)
	defer f.stop()
	ret, err := call[protocol.GetFinderRet](t, f.c.handleGetFinder, `{"req_id":"r1","limit":5}`)
	if err != nil || ret.TotalCount != 600 || len(ret.Documents) != 5 || ret.ReqID != "r1" {
		t.Fatalf("cold: %v %d %d", err, ret.TotalCount, len(ret.Documents))
	}
	// The first answer may hold entries from the listing (pending) while
	// the Level 1 reads go on; wait until they are all in.
	if !testutil.WaitUntil(30*time.Second, func() bool {
		ret, err = call[protocol.GetFinderRet](t, f.c.handleGetFinder, `{"req_id":"r2","offset":500,"limit":100}`)
		return err == nil && f.reads() >= 600 && len(ret.Documents) == 100 && !ret.Documents[0].Pending && !ret.Documents[99].Pending
	}) {
		t.Fatalf("catalog never filled in: %v", err)
	}
	if r := f.reads(); r != 600 {
		t.Errorf("cold reads = %d, want 600 (one Level 1 read per document)", r)
	}
	reads, lists := f.reads(), f.lists()
	for i := range 5 {
		ret, err := call[protocol.GetFinderRet](t, f.c.handleGetFinder, fmt.Sprintf(`{"req_id":"w%d","keywords":["doc-0007"],"file_type":"pdf"}`, i))
		if err != nil || ret.TotalCount != 3 {
			t.Fatalf("warm: %v %+v", err, ret)
		}
	}
	if f.reads() != reads || f.lists() != lists {
		t.Errorf("warm get_finder did MCP requests: reads %d→%d, lists %d→%d", reads, f.reads(), lists, f.lists())
	}
}

// A keyword query on a catalog still being read waits for the reads it
// depends on instead of answering from entries that have no keywords yet;
// when the reads take longer than it may wait, it says how many are
// missing (pending) rather than report a wrong total as settled.
func TestFilteredGetFinderWaitsForTheReadsItNeeds(t *testing.T) {
	f := newFleet(t, 1, 200, nil)
	defer f.stop()
	f.cnt[0].readDelay.Store(int64(3 * time.Millisecond)) // 200 reads, 8 at a time: far over FirstWait under -race
	// "kdoc-0150" is only in doc-0150's keywords, which only its Level 1
	// read brings.
	ret, err := call[protocol.GetFinderRet](t, f.c.handleGetFinder, `{"req_id":"r1","keywords":["kdoc-0150"]}`)
	if err != nil {
		t.Fatal(err)
	}
	if ret.TotalCount != 1 || len(ret.Documents) != 1 || ret.Documents[0].DocRef != "doc-0150" || ret.Pending != 0 || ret.Listing {
		t.Fatalf("keyword answer: total %d, %d documents, pending %d, listing %v", ret.TotalCount, len(ret.Documents), ret.Pending, ret.Listing)
	}
	// Unfiltered: the page's entries are read first; the rest goes on.
	ret, err = call[protocol.GetFinderRet](t, f.c.handleGetFinder, `{"req_id":"r2","limit":3}`)
	if err != nil || ret.TotalCount != 200 || len(ret.Documents) != 3 || ret.Pending != 0 {
		t.Fatalf("unfiltered answer: %v, %+v", err, ret)
	}
}

func TestFilteredGetFinderSaysWhatItCouldNotRead(t *testing.T) {
	// A 40 ms handler may wait 20 ms for reads that take a second.
	f := newFleetWith(t, 1, 20, nil, Options{HandlerTimeout: 40 * time.Millisecond})
	defer f.stop()
	f.cnt[0].readDelay.Store(int64(time.Second))
	ret, err := call[protocol.GetFinderRet](t, f.c.handleGetFinder, `{"req_id":"r1","keywords":["kdoc-0007"]}`)
	if err != nil {
		t.Fatal(err)
	}
	if ret.TotalCount != 0 || len(ret.Documents) != 0 || ret.Pending != 20 {
		t.Fatalf("answer: total %d, %d documents, pending %d; want 0, 0 and 20 pending", ret.TotalCount, len(ret.Documents), ret.Pending)
	}
	// Once the reads are in, the same query is settled.
	f.cnt[0].readDelay.Store(0)
	testutil.WaitUntil(30*time.Second, func() bool {
		if ret.Pending == 0 {
			return true
		}
		if ret, err = call[protocol.GetFinderRet](t, f.c.handleGetFinder, `{"req_id":"r2","keywords":["kdoc-0007"]}`); err != nil {
			t.Fatal(err)
		}
		return ret.Pending == 0
	})
	if ret.TotalCount != 1 || ret.Pending != 0 {
		t.Fatalf("settled answer: total %d, pending %d", ret.TotalCount, ret.Pending)
	}
}

func TestGetFinderRequests(t *testing.T) {
	f := newFleet(t, 1, 150, nil)
	defer f.stop()
	for _, bad := range []string{`{"offset":-1}`, `{"limit":-5}`, `{"limit":"ten"}`, `{"offset":1.5}`, `[1,2]`, `not json`} {
		_, err := serveRaw(f.c.handleGetFinder)(context.Background(), json.RawMessage(bad))
		if protocol.CodeOf(err) != protocol.CodeBadRequest {
			t.Errorf("%s: %v, want 400", bad, err)
		}
	}
	_, err := serveRaw(f.c.handleGetFinder)(context.Background(), json.RawMessage(`{"offset":-1}`))
	if !strings.Contains(err.Error(), "offset must be >= 0") {
		t.Errorf("message %q does not say what is wrong", err)
	}
	ret, _ := call[protocol.GetFinderRet](t, f.c.handleGetFinder, `{"limit":500}`)
	if len(ret.Documents) != 100 || ret.TotalCount != 150 {
		t.Errorf("limit 500: %d docs of %d (want capped at 100)", len(ret.Documents), ret.TotalCount)
	}
	ret, _ = call[protocol.GetFinderRet](t, f.c.handleGetFinder, `{}`)
	if len(ret.Documents) != 20 {
		t.Errorf("default limit: %d", len(ret.Documents))
	}
	ret, _ = call[protocol.GetFinderRet](t, f.c.handleGetFinder, `{"tags":["doc-0042"]}`)
	if ret.TotalCount != 1 || ret.Documents[0].DocRef != "doc-0042" || ret.Documents[0].Server != "srv-00" {
		t.Errorf("tags alias: %+v", ret)
	}
}

func TestReadBridge(t *testing.T) {
	f := newFleet(t, 2, 3, nil)
	defer f.stop()
	raw, err := serveRaw(f.c.handleReadResource)(context.Background(), json.RawMessage(`{"uri":"dpe://host01.example/doc-0002"}`))
	if err != nil {
		t.Fatal(err)
	}
	var ret protocol.ReadResourceRet
	json.Unmarshal(raw.(json.RawMessage), &ret)
	if len(ret.Contents) != 1 || !strings.Contains(ret.Contents[0].Text, "Report 2 of host01.example") {
		t.Errorf("dpe read = %+v", ret)
	}
	raw, err = serveRaw(f.c.handleReadResource)(context.Background(), json.RawMessage(`{"uri":"window://host00.example/status?priority=50"}`))
	if err != nil || !strings.Contains(string(raw.(json.RawMessage)), "status of host00.example") {
		t.Errorf("window read: %v %s", err, raw)
	}
	tests := []struct {
		payload string
		code    int
		detail  string
	}{
		{`{"uri":"dpe://nohost.example/x"}`, 4201, "host"},
		{`{"uri":"dpe://host00.example/x/pages/-1"}`, 4204, "uri"},
		{`{"uri":"DPE:host"}`, 4204, "uri"},
		{`{"uri":"window://nobody/x"}`, 404, "uri"},
		{`{"uri":""}`, 400, ""},
		{`{"uri":7}`, 400, ""},
	}
	for _, tt := range tests {
		_, err := serveRaw(f.c.handleReadResource)(context.Background(), json.RawMessage(tt.payload))
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != tt.code {
			t.Errorf("%s: %v, want %d", tt.payload, err, tt.code)
			continue
		}
		if tt.detail != "" && pe.Details[tt.detail] == nil {
			t.Errorf("%s: details %v lack %s", tt.payload, pe.Details, tt.detail)
		}
		if tt.code == 4204 && (!strings.HasPrefix(pe.Message, "invalid dpe:// URI: rule ") || strings.Contains(pe.Message, "4204")) {
			t.Errorf("%s: message %q should name the rule once, without the code", tt.payload, pe.Message)
		}
	}
}

func TestReadErrorMapping(t *testing.T) {
	tests := []struct {
		err     error
		code    int
		details map[string]any
	}{
		{&rpcerr.Error{Code: 4201, Message: "document x not found", Data: map[string]any{"doc_ref": "x"}}, 4201, map[string]any{"doc_ref": "x"}},
		{&rpcerr.Error{Code: 4202, Message: "page", Data: map[string]any{"page_index": 9.0, "page_count": 2.0}}, 4202, map[string]any{"page_index": 9.0, "page_count": 2.0}},
		{&rpcerr.Error{Code: 4203, Message: "element"}, 4203, nil},
		{&rpcerr.Error{Code: 4204, Message: "bad", Data: "not an object"}, 4204, nil},
		{&rpcerr.Error{Code: mcp.RESOURCE_NOT_FOUND, Message: "nope"}, 404, map[string]any{"uri": "u"}},
		{&rpcerr.Error{Code: mcp.INTERNAL_ERROR, Message: "broke"}, 500, map[string]any{"uri": "u", "mcp_code": mcp.INTERNAL_ERROR}},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), 408, nil},
		{fmt.Errorf("x: %w", mcpclient.ErrDown), 500, nil},
		{errors.New("other"), 500, nil},
	}
	for _, tt := range tests {
		pe := readError("s", "u", tt.err)
		if pe.Code != tt.code {
			t.Errorf("%v → %d, want %d", tt.err, pe.Code, tt.code)
		}
		if tt.details != nil && fmt.Sprint(pe.Details) != fmt.Sprint(tt.details) {
			t.Errorf("%v → details %v, want %v", tt.err, pe.Details, tt.details)
		}
		if var4201 := tt.code == 4201; var4201 && pe.Message != "document x not found" {
			t.Errorf("message not kept: %q", pe.Message)
		}
	}
}

func TestToolsNamingAndCalls(t *testing.T) {
	f := newFleet(t, 2, 1, func(s *config.Server) {
		if s.BundleID == "srv-01" {
			s.ForbiddenTools = []string{"danger"}
			s.ToolMeta = map[string]config.ToolMeta{"wait": {"alias": "pause", "tags": []any{"slow"}}}
		}
	})
	defer f.stop()
	ret, err := call[protocol.GetToolsRet](t, f.c.handleGetTools, `{"req_id":"t"}`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range ret.Tools {
		names = append(names, tl.Name+"@"+tl.BundleID)
		if len(tl.ParamsSchema) == 0 {
			t.Errorf("%s has no params_schema", tl.Name)
		}
		if tl.Name == "srv-01__pause" {
			var meta map[string]any
			if s, _ := tl.Meta["a2c_tool_meta"].(string); json.Unmarshal([]byte(s), &meta) != nil || meta["alias"] != "pause" {
				t.Errorf("pause meta = %v", tl.Meta)
			}
		}
	}
	slices.Sort(names)
	// Every name carries its bundle_id, whatever the other servers expose.
	want := []string{"srv-00__danger@srv-00", "srv-00__echo@srv-00", "srv-00__wait@srv-00", "srv-01__echo@srv-01", "srv-01__pause@srv-01"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}

	tool := func(name string, timeout float64, reqID string) (protocol.CallToolResult, error) {
		return call[protocol.CallToolResult](t, f.c.handleToolCall,
			fmt.Sprintf(`{"req_id":%q,"tool_name":%q,"params":{"message":"m"},"timeout":%v}`, reqID, name, timeout))
	}
	for name, wantText := range map[string]string{"srv-01__echo": "host01.example: m", "srv-00__echo": "host00.example: m"} {
		res, err := tool(name, 5, "e-"+name)
		if err != nil || res.IsError || res.Text() != wantText {
			t.Errorf("%s: %v %+v", name, err, res)
		}
	}
	// An unknown tool is an error result with meta.error_code 4001 and a
	// readable text, which the official SDK's Agent parses (a flat
	// {"code":4001} fails its CallToolResult validation).
	if res, err := tool("danger-not-here", 5, "x1"); err != nil || !res.IsError || res.ErrorCode() != protocol.CodeToolNotFound ||
		!strings.Contains(res.Text(), `"danger-not-here" not found`) {
		t.Errorf("unknown tool: %v %+v", err, res)
	}
	// Unambiguous short forms route too: a bare name only one server
	// exposes (danger is forbidden on srv-01), and bundle_id + the original
	// name behind an alias.
	if res, err := tool("danger", 5, "short-1"); err != nil || res.Text() != "boom" {
		t.Errorf("danger: %v %+v", err, res)
	}
	if res, err := tool("srv-01__wait", 0.2, "short-2"); err != nil || !res.TimedOut() {
		t.Errorf("srv-01__wait: %v %+v", err, res)
	}
	if res, err := tool("echo", 5, "x2"); err != nil || res.ErrorCode() != protocol.CodeToolNotFound {
		t.Errorf("a bare name two servers share must not guess: %v %+v", err, res)
	}
	if res, err := tool("srv-01__danger", 5, "x3"); err != nil || !res.IsError || res.ErrorCode() != protocol.CodeToolDisabled || res.Meta["mcp_server"] != "srv-01" {
		t.Errorf("tool forbidden on srv-01, by its exposed name: %v %+v, want error_code 4002", err, res)
	}

	// Timeout: the result is an error result marked a2c_timeout.
	start := time.Now()
	res, err := tool("pause", 0.2, "slow-1")
	if err != nil || !res.IsError || !res.TimedOut() || time.Since(start) > 3*time.Second {
		t.Errorf("timeout: %v %+v after %v", err, res, time.Since(start))
	}
	// Cancel: notify:tool_call_cancel with the req_id ends it.
	type outcome struct {
		res protocol.CallToolResult
		err error
	}
	ch := make(chan outcome, 1)
	go func() {
		r, err := tool("wait", 30, "slow-2")
		ch <- outcome{r, err}
	}()
	testutil.Eventually(t, 5*time.Second, "the call reached srv-00", func() bool { return f.cnt[0].waiting.Load() > 0 })
	f.c.onToolCallCancel(json.RawMessage(`{"agent":"a","req_id":"unknown"}`)) // ignored
	f.c.onToolCallCancel(json.RawMessage(`{"agent":"a","req_id":"slow-2"}`))
	select {
	case o := <-ch:
		if o.err != nil || !o.res.IsError || !o.res.Cancelled() || o.res.Meta[protocol.MetaCancelReason] != "agent_requested" {
			t.Errorf("cancel: %v %+v", o.err, o.res)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelled call did not return")
	}
	h := f.c.History()
	if len(h) != 6 || h[2].Server != "srv-00" || h[3].Server != "srv-01" || h[4].Outcome != "timeout" || h[5].Outcome != "cancelled" || h[5].Server != "srv-00" || !h[0].Success {
		t.Errorf("history = %+v", h)
	}
}

// TestTooLargeAnswersAreRefused: an answer bigger than a Server carries
// in one message is a 413 (a CallToolResult with error_code 413 for a tool
// call), never a packet that would end the Computer's connection.
func TestTooLargeAnswersAreRefused(t *testing.T) {
	const limit = 64 << 10
	f := newFleetWith(t, 1, 1, nil, Options{MaxAnswerBytes: limit})
	defer f.stop()
	msg := strings.Repeat("m", limit)
	res, err := call[protocol.CallToolResult](t, f.c.handleToolCall,
		fmt.Sprintf(`{"req_id":"big","tool_name":"srv-00__echo","params":{"message":%q},"timeout":10}`, msg))
	if err != nil || !res.IsError || res.ErrorCode() != protocol.CodePayloadTooLarge || !strings.Contains(res.Text(), "more than") {
		t.Errorf("a tool result over the limit: %v, error_code %d, %.200s", err, res.ErrorCode(), res.Text())
	}
	small, err := call[protocol.CallToolResult](t, f.c.handleToolCall, `{"req_id":"small","tool_name":"srv-00__echo","params":{"message":"m"}}`)
	if err != nil || small.IsError {
		t.Errorf("a small result: %v %+v", err, small)
	}
	_, err = encodeAnswer(protocol.EventGetTools, limit, map[string]string{"x": msg})
	if pe := (*protocol.Error)(nil); !errors.As(err, &pe) || pe.Code != protocol.CodePayloadTooLarge || pe.Details["limit"] != limit {
		t.Errorf("an answer over the limit: %v", err)
	}
}

func TestForbiddenToolIs4002(t *testing.T) {
	f := newFleet(t, 1, 1, func(s *config.Server) { s.ForbiddenTools = []string{"danger"} })
	defer f.stop()
	for _, name := range []string{"danger", "srv-00__danger"} {
		res, err := call[protocol.CallToolResult](t, f.c.handleToolCall, `{"tool_name":"`+name+`","params":{}}`)
		if err != nil || !res.IsError || res.ErrorCode() != protocol.CodeToolDisabled || !strings.Contains(res.Text(), "disabled") {
			t.Errorf("forbidden %s: %v %+v, want error_code 4002", name, err, res)
		}
	}
	for _, bad := range []string{`{"tool_name":""}`, `{"tool_name":"echo","timeout":-1}`, `{"tool_name":5}`} {
		if _, err := serveRaw(f.c.handleToolCall)(context.Background(), json.RawMessage(bad)); protocol.CodeOf(err) != 400 {
			t.Errorf("%s: %v, want 400", bad, err)
		}
	}
}

func TestDesktopAndConfig(t *testing.T) {
	f := newFleet(t, 3, 1, nil)
	defer f.stop()
	ret, err := call[protocol.GetDeskTopRet](t, f.c.handleGetDesktop, `{"req_id":"d"}`)
	// The listed URI has the seeds' query; the desktop shows its identifier.
	if err != nil || len(ret.Desktops) != 3 || !strings.HasPrefix(ret.Desktops[0], "window://host00.example/status\n\nstatus of host00.example") {
		t.Fatalf("desktop: %v %q", err, ret.Desktops)
	}
	ret, _ = call[protocol.GetDeskTopRet](t, f.c.handleGetDesktop, `{"desktop_size":1}`)
	if len(ret.Desktops) != 1 {
		t.Errorf("desktop_size 1: %d", len(ret.Desktops))
	}
	// window selects by the URI as listed or as the desktop shows it.
	for _, w := range []string{"window://host02.example/status?priority=50", "window://host02.example/status"} {
		ret, _ = call[protocol.GetDeskTopRet](t, f.c.handleGetDesktop, `{"window":"`+w+`"}`)
		if len(ret.Desktops) != 1 || !strings.Contains(ret.Desktops[0], "host02") {
			t.Errorf("window filter %s: %q", w, ret.Desktops)
		}
	}
	ret, _ = call[protocol.GetDeskTopRet](t, f.c.handleGetDesktop, `{"window":"window://nope/x"}`)
	if len(ret.Desktops) != 0 {
		t.Errorf("unknown window: %q", ret.Desktops)
	}
	cfg, err := call[protocol.GetComputerConfigRet](t, f.c.handleGetConfig, `{}`)
	if err != nil || len(cfg.Servers) != 3 || !strings.Contains(string(cfg.Servers["srv-01"]), `"type":"stdio"`) {
		t.Errorf("config: %v %v", err, cfg.Servers)
	}
}

func TestNewRejectsClashingExtraServers(t *testing.T) {
	cfg := config.Config{Servers: []config.Server{config.NewStdio("docs", "x")}}
	if _, err := New(cfg, Options{Servers: []config.Server{config.NewStdio("docs", "y")}}); err == nil {
		t.Error("a clashing extra server was accepted")
	}
	if _, err := New(cfg, Options{Servers: []config.Server{config.NewStdio("more", "y")}}); err != nil {
		t.Error(err)
	}
	owned := config.NewStdio("owner", "x")
	owned.Hosts = []string{"docs.example"}
	thief := config.NewStdio("thief", "y")
	thief.Hosts = []string{"docs.example"}
	if _, err := New(config.Config{Servers: []config.Server{owned}}, Options{Servers: []config.Server{thief}}); err == nil || !strings.Contains(err.Error(), "already owned") {
		t.Errorf("an extra server claiming a configured host: %v", err)
	}
}

// BenchmarkGetFinder measures client:get_finder over 10 in-process
// document servers × 1,000 documents, cold (fresh Computer: list and read
// every Level 1) and warm (served from the cache), without the socket.
func BenchmarkGetFinder(b *testing.B) {
	req := json.RawMessage(`{"req_id":"b","keywords":["report"],"limit":20}`)
	b.Run("warm", func(b *testing.B) {
		f := newFleet(b, 10, 1000, nil)
		defer f.stop()
		if _, err := serveRaw(f.c.handleGetFinder)(context.Background(), req); err != nil {
			b.Fatal(err)
		}
		reads := f.reads()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := serveRaw(f.c.handleGetFinder)(context.Background(), req); err != nil {
				b.Fatal(err)
			}
		}
		if f.reads() != reads {
			b.Fatal("warm get_finder read resources")
		}
	})
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			f := newFleet(b, 10, 1000, nil)
			b.StartTimer()
			v, err := serveRaw(f.c.handleGetFinder)(context.Background(), req)
			if err != nil || v.(protocol.GetFinderRet).TotalCount != 10_000 {
				b.Fatal(err)
			}
			b.StopTimer()
			f.stop()
			b.StartTimer()
		}
	})
}

// socketFleet runs a fleet Computer joined to a real Server with an agent.
func socketFleet(b testing.TB, srvURL string, servers, docs int) (*fleet, func()) {
	b.Helper()
	f := &fleet{}
	srvs := map[string]*server.MCPServer{}
	var cfg config.Config
	for i := range servers {
		name := fmt.Sprintf("srv-%02d", i)
		cnt := &counters{}
		f.cnt = append(f.cnt, cnt)
		srvs[name] = docServer(fmt.Sprintf("host%02d.example", i), docs, cnt)
		cfg.Servers = append(cfg.Servers, config.NewStdio(name, "in-process"))
	}
	dial := func(ctx context.Context, s config.Server) (mcpclient.Transport, error) {
		return mcpclient.Transport{T: transport.NewInProcessTransport(srvs[s.BundleID])}, nil
	}
	c, err := New(cfg, Options{Name: "pc", Office: "bench", ServerURL: srvURL, Dial: dial})
	if err != nil {
		b.Fatal(err)
	}
	f.c = c
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = c.Run(ctx); close(done) }()
	if !testutil.WaitUntil(30*time.Second, func() bool { return len(c.index.Sources()) >= servers }) {
		b.Fatalf("only %d of %d servers up", len(c.index.Sources()), servers)
	}
	return f, func() { cancel(); <-done }
}

// BenchmarkGetFinderSocket measures client:get_finder as an agent sees
// it: agent → Server → Computer → 10 × 1,000 documents and back.
func BenchmarkGetFinderSocket(b *testing.B) {
	srv := servertest.Start(b, smcpserver.Options{})
	ctx := context.Background()
	ag, err := agent.Connect(ctx, srv.URL, agent.Options{Name: "bench-agent"})
	if err != nil {
		b.Fatal(err)
	}
	defer ag.Close()
	if err := ag.JoinOffice(ctx, "bench"); err != nil {
		b.Fatal(err)
	}
	q := agent.FinderQuery{Keywords: []string{"report"}, Limit: 20}
	b.Run("warm", func(b *testing.B) {
		f, stop := socketFleet(b, srv.URL, 10, 1000)
		defer stop()
		waitComputer(b, ag)
		if ret, err := ag.GetFinder(ctx, "pc", q); err != nil || ret.TotalCount != 10_000 {
			b.Fatalf("%v %+v", err, ret)
		}
		reads := f.reads()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ag.GetFinder(ctx, "pc", q); err != nil {
				b.Fatal(err)
			}
		}
		if f.reads() != reads {
			b.Fatal("warm get_finder read resources")
		}
	})
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			_, stop := socketFleet(b, srv.URL, 10, 1000)
			waitComputer(b, ag)
			b.StartTimer()
			ret, err := ag.GetFinder(ctx, "pc", q)
			b.StopTimer()
			if err != nil || ret.TotalCount != 10_000 {
				b.Fatalf("%v %+v", err, ret)
			}
			stop()
			b.StartTimer()
		}
	})
}

// waitComputer waits until computer pc is in the agent's office.
func waitComputer(b testing.TB, ag *agent.Client) {
	b.Helper()
	testutil.Eventually(b, 10*time.Second, "computer pc in the office", func() bool {
		sessions, err := ag.ListRoom(context.Background())
		return err == nil && slices.ContainsFunc(sessions, func(s protocol.SessionInfo) bool { return s.Name == "pc" })
	})
}

// TestRejoinAfterServerRestart stops the SMCP Server under a running
// Computer and starts it again on the same address: the Computer
// reconnects, joins its office again and serves the catalog.
func TestRejoinAfterServerRestart(t *testing.T) {
	srv := servertest.Start(t, smcpserver.Options{})
	addr := srv.Addr
	_, stop := socketFleet(t, srv.URL, 1, 5)
	defer stop()
	ctx := context.Background()
	connect := func(url string) *agent.Client {
		ag, err := agent.Connect(ctx, url, agent.Options{Name: "a"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ag.Close() })
		if err := ag.JoinOffice(ctx, "bench"); err != nil {
			t.Fatal(err)
		}
		return ag
	}
	ag := connect(srv.URL)
	waitComputer(t, ag)
	if ret, err := ag.GetFinder(ctx, "pc", agent.FinderQuery{}); err != nil || ret.TotalCount != 5 {
		t.Fatalf("before restart: %v %+v", err, ret)
	}
	ag.Close()
	if err := srv.Stop(); err != nil {
		t.Logf("stop: %v", err)
	}
	srv2 := servertest.StartAt(t, addr, smcpserver.Options{})
	ag2 := connect(srv2.URL)
	waitComputer(t, ag2)
	if ret, err := ag2.GetFinder(ctx, "pc", agent.FinderQuery{}); err != nil || ret.TotalCount != 5 {
		t.Fatalf("after restart: %v %+v", err, ret)
	}
}
