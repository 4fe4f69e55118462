package computer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/computer/mcpclient"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Tests of the events the 0.2-0.4 upstream line added or changed, against
// in-process MCP servers: client:get_resources, the SKILL and blob
// events, the get_config form and the Desktop's annotation rules.

// Ways a server of customComputer fails.
const (
	failStart = "start" // the server cannot be started
	failList  = "list"  // the server runs but resources/list fails
)

// listFailing is an in-process transport whose resources/list answers an
// internal error.
type listFailing struct{ *transport.InProcessTransport }

func (t listFailing) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if req.Method == string(mcp.MethodResourcesList) {
		return &transport.JSONRPCResponse{JSONRPC: "2.0", ID: req.ID,
			Error: &mcp.JSONRPCErrorDetails{Code: mcp.INTERNAL_ERROR, Message: "index is corrupt"}}, nil
	}
	return t.InProcessTransport.SendRequest(ctx, req)
}

// customComputer runs a Computer over the servers of cfg: those in srvs
// in process (failing to list when failing says "list"), those failing
// with "start" fail to start, any other never finishes starting. It
// returns once the in-process ones are up and the failing ones have
// failed once.
func customComputer(t *testing.T, cfg config.Config, srvs map[string]*server.MCPServer, failing map[string]string) *Computer {
	t.Helper()
	dial := func(ctx context.Context, s config.Server) (mcpclient.Transport, error) {
		if srv, ok := srvs[s.BundleID]; ok {
			if failing[s.BundleID] == failList {
				return mcpclient.Transport{T: listFailing{transport.NewInProcessTransport(srv)}}, nil
			}
			return mcpclient.Transport{T: transport.NewInProcessTransport(srv)}, nil
		}
		if failing[s.BundleID] == failStart {
			return mcpclient.Transport{}, fmt.Errorf("exec: %q: executable file not found in $PATH", s.Params.Command)
		}
		<-ctx.Done() // still starting
		return mcpclient.Transport{}, ctx.Err()
	}
	c, err := New(cfg, Options{Name: "pc", Dial: dial, Debounce: 20 * time.Millisecond,
		MinBackoff: time.Hour, MaxBackoff: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.mgr.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; c.index.Close() })
	if !testutil.WaitUntil(20*time.Second, func() bool {
		for name, st := range c.mgr.States() {
			if _, ok := srvs[name]; ok && !st.Up || failing[name] == failStart && st.LastError == "" {
				return false
			}
		}
		return true
	}) {
		t.Fatalf("servers not ready: %+v", c.mgr.States())
	}
	return c
}

func stdio(name string, tweak ...func(*config.Server)) config.Server {
	s := config.NewStdio(name, "/nonexistent/"+name)
	for _, f := range tweak {
		f(&s)
	}
	return s
}

// resourceServer lists n plain resources, two per page, and one with
// every field an A2CResource carries.
func resourceServer(n int) *server.MCPServer {
	s := server.NewMCPServer("res", "1", server.WithResourceCapabilities(false, false), server.WithPaginationLimit(2))
	read := func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "x"}}, nil
	}
	full := mcp.NewResource("window://res.example/main", "main", mcp.WithResourceDescription("the main window"),
		mcp.WithMIMEType("text/plain"), mcp.WithResourceSize(42), mcp.WithResourceTitle("Main"),
		mcp.WithAnnotations([]mcp.Role{mcp.RoleAssistant}, 0.8, "2026-01-15T08:30:00Z"))
	full.Meta = &mcp.Meta{AdditionalFields: map[string]any{"fullscreen": true}}
	s.AddResource(full, read)
	for i := range n {
		s.AddResource(mcp.NewResource(fmt.Sprintf("custom://res.example/r%02d", i), fmt.Sprintf("r%02d", i)), read)
	}
	return s
}

func errorOf(t *testing.T, err error) *protocol.Error {
	t.Helper()
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v (%T), want a protocol error", err, err)
	}
	// What travels is the flat payload: check the top-level fields there.
	b, _ := json.Marshal(pe)
	back, ok := protocol.DecodeError(b)
	if !ok {
		t.Fatalf("payload %s does not decode", b)
	}
	return back
}

func TestGetResources(t *testing.T) {
	cfg := config.Config{Servers: []config.Server{
		stdio("res"), stdio("tools"), stdio("slow"), stdio("broken"),
		stdio("off", func(s *config.Server) { s.Disabled = true }),
	}}
	tools := server.NewMCPServer("tools", "1", server.WithToolCapabilities(false))
	tools.AddTool(mcp.NewTool("t"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("t"), nil
	})
	c := customComputer(t, cfg, map[string]*server.MCPServer{"res": resourceServer(5), "tools": tools}, map[string]string{"broken": failStart})

	// Every page, following next_cursor, passed through without filtering.
	var uris []string
	var first protocol.A2CResource
	cursor, pages := "", 0
	for {
		payload, _ := json.Marshal(map[string]any{"req_id": fmt.Sprint("p", pages), "mcp_server": "res", "cursor": cursor})
		ret, err := call[protocol.GetResourcesRet](t, c.handleGetResources, string(payload))
		if err != nil {
			t.Fatal(err)
		}
		if ret.ReqID != fmt.Sprint("p", pages) || len(ret.Resources) > 2 {
			t.Fatalf("page %d: %+v", pages, ret)
		}
		for _, r := range ret.Resources {
			if r.URI == "window://res.example/main" {
				first = r
			}
			uris = append(uris, r.URI)
		}
		pages++
		if ret.NextCursor == "" {
			break
		}
		cursor = ret.NextCursor
	}
	if len(uris) != 6 || pages < 3 { // mcp-go may end with an empty page
		t.Errorf("%d resources in %d pages: %v", len(uris), pages, uris)
	}
	// The snake_case A2CResource of data-structures.md, as a2c-smcp's Computer writes it.
	raw, _ := json.Marshal(first)
	if want := `{"uri":"window://res.example/main","name":"main","description":"the main window","mime_type":"text/plain","size":42,` +
		`"annotations":{"audience":["assistant"],"priority":0.8,"last_modified":"2026-01-15T08:30:00Z"},"_meta":{"fullscreen":true}}`; string(raw) != want {
		t.Errorf("resource =\n %s\nwant\n %s", raw, want)
	}

	for _, tt := range []struct {
		payload string
		code    int
		extra   map[string]any
		text    string
	}{
		{`{"mcp_server":"nobody"}`, 4014, map[string]any{"mcp_server": "nobody"}, "no MCP server \"nobody\" is configured"},
		{`{"mcp_server":"off"}`, 4014, map[string]any{"mcp_server": "off"}, "disabled"},
		{`{"mcp_server":"slow"}`, 4014, map[string]any{"mcp_server": "slow"}, "still starting"},
		{`{"mcp_server":"broken"}`, 4014, map[string]any{"mcp_server": "broken"}, "executable file not found"},
		{`{"mcp_server":"tools"}`, 4015, map[string]any{"mcp_server": "tools", "capability": "resources"}, "resources"},
		{`{"mcp_server":"res","cursor":"not-a-cursor"}`, 400, nil, "cursor"},
		{`{}`, 400, nil, "mcp_server is required"},
		{`{"mcp_server":5}`, 400, nil, "malformed"},
	} {
		_, err := serveRaw(c.handleGetResources)(context.Background(), json.RawMessage(tt.payload))
		pe := errorOf(t, err)
		if pe.Code != tt.code || !strings.Contains(pe.Message, tt.text) {
			t.Errorf("%s: %d %q, want %d containing %q", tt.payload, pe.Code, pe.Message, tt.code, tt.text)
		}
		for k, v := range tt.extra {
			if pe.Extra[k] != v {
				t.Errorf("%s: top-level %s = %v, want %v (payload %+v)", tt.payload, k, pe.Extra[k], v, pe)
			}
		}
	}
}

func TestSkillsAndBlobs(t *testing.T) {
	f := newFleet(t, 1, 1, nil)
	defer f.stop()
	c := f.c
	skills, err := call[map[string]any](t, c.handleGetSkills, `{"req_id":"s1","computer":"pc"}`)
	if err != nil || fmt.Sprint(skills) != "map[req_id:s1 skills:[]]" {
		t.Errorf("get_skills = %v, %v", skills, err)
	}
	for name, code := range map[string]int{
		"my-helper": 4014, "acme-audit:audit": 4014, "mcp:srv-00:code-review": 4014, "mcp:my_api:csv-aggregator": 4014,
		"": 4016, "Bad": 4016, "a:b:c": 4016, "mcp:a__b:x": 4016, "mcp:a.b:x": 4016, "-x": 4016, "a--b": 4016,
		"a:b:c:d": 4016, "mcp::x": 4016, strings.Repeat("a", 65): 4016, "bad name!!": 4016,
	} {
		payload, _ := json.Marshal(map[string]any{"req_id": "k", "computer": "pc", "name": name})
		_, err := serveRaw(c.handleGetSkill)(context.Background(), payload)
		pe := errorOf(t, err)
		if pe.Code != code || pe.Details["name"] != name {
			t.Errorf("get_skill %q: %d %q %v, want %d with details.name", name, pe.Code, pe.Message, pe.Details, code)
		}
	}
	// A 100 KB name is not echoed whole.
	huge := strings.Repeat("x", 100_000)
	_, err = serveRaw(c.handleGetSkill)(context.Background(), json.RawMessage(`{"name":"`+huge+`"}`))
	if pe := errorOf(t, err); pe.Code != 4016 || len(pe.Message) > 1000 || len(pe.Details["name"].(string)) > 1000 {
		t.Errorf("huge name echoed: %d bytes", len(pe.Message))
	}
	for _, payload := range []string{`{"blob_handle":"skill:abc"}`, `{"blob_handle":""}`, `{"blob_handle":"x","chunk_offset":5}`} {
		_, err := serveRaw(c.handleGetBlob)(context.Background(), json.RawMessage(payload))
		if pe := errorOf(t, err); pe.Code != 4018 || pe.Details["reason"] != "invalid_handle" {
			t.Errorf("get_blob %s: %+v", payload, pe)
		}
	}
	_, err = serveRaw(c.handlePutBlob)(context.Background(), json.RawMessage(`{"chunk_offset":0,"eof":true,"total_size":3,"blob":"YWJj"}`))
	if pe := errorOf(t, err); pe.Code != 4019 || pe.Details["reason"] != "forbidden" {
		t.Errorf("put_blob: %+v", pe)
	}
}

// The get_config answer has every field data-structures.md requires for
// each server type (a2c-smcp's Server validates it and drops it otherwise).
func TestGetConfigRequiredFields(t *testing.T) {
	cfg, err := config.Parse([]byte(`{
		"inputs":[{"id":"tok","type":"promptString","description":"token","password":true}],
		"servers":{
			"res":{"type":"stdio","server_parameters":{"command":"x","env":{"T":"${input:tok}"}}},
			"web":{"type":"streamable","disabled":true,"server_parameters":{"url":"http://127.0.0.1:9/mcp"}},
			"old":{"type":"sse","disabled":true,"server_parameters":{"url":"http://127.0.0.1:9/sse"}}
		}}`), config.Options{LookupEnv: func(k string) (string, bool) { return "s3cret", k == "A2C_SMCP_tok" }})
	if err != nil || len(cfg.Problems) > 0 {
		t.Fatal(err, cfg.Problems)
	}
	c := customComputer(t, cfg, map[string]*server.MCPServer{"res": resourceServer(0)}, nil)
	ret, err := call[map[string]any](t, c.handleGetConfig, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(ret)
	if strings.Contains(string(raw), "s3cret") {
		t.Fatalf("a resolved secret leaves the computer: %s", raw)
	}
	required := map[string][]string{
		"stdio":      {"command", "args", "env", "cwd", "encoding", "encoding_error_handler"},
		"streamable": {"url", "headers", "timeout", "sse_read_timeout", "terminate_on_close"},
		"sse":        {"url", "headers", "timeout", "sse_read_timeout"},
	}
	servers := ret["servers"].(map[string]any)
	if len(servers) != 3 {
		t.Fatalf("servers = %v", servers)
	}
	for id, v := range servers {
		entry := v.(map[string]any)
		for _, k := range []string{"name", "bundle_id", "disabled", "forbidden_tools", "tool_meta", "type", "server_parameters"} {
			if _, ok := entry[k]; !ok {
				t.Errorf("%s lacks %s", id, k)
			}
		}
		params := entry["server_parameters"].(map[string]any)
		typ := entry["type"].(string)
		for _, k := range required[typ] {
			if _, ok := params[k]; !ok {
				t.Errorf("%s (%s) lacks server_parameters.%s: %v", id, typ, k, params)
			}
		}
		if len(params) != len(required[typ]) {
			t.Errorf("%s (%s) has extra parameters: %v", id, typ, params)
		}
		if entry["bundle_id"] != id {
			t.Errorf("key %s holds bundle_id %v", id, entry["bundle_id"])
		}
	}
	if _, ok := servers["web"].(map[string]any)["server_parameters"].(map[string]any)["timeout"].(string); !ok {
		t.Error("streamable timeout is not an ISO 8601 string")
	}
	if _, ok := servers["old"].(map[string]any)["server_parameters"].(map[string]any)["timeout"].(float64); !ok {
		t.Error("sse timeout is not a number")
	}
	inputs := ret["inputs"].([]any)
	if len(inputs) != 1 || fmt.Sprint(inputs[0]) != "map[description:token id:tok password:true type:promptString]" {
		t.Errorf("inputs = %v", inputs)
	}
}

// Desktop rules of desktop.md, end to end through get_desktop: priority
// from annotations.priority, fullscreen from _meta.fullscreen, the seeds'
// query read only when they say nothing and dropped from what is shown.
func TestDesktopFollowsAnnotations(t *testing.T) {
	s := server.NewMCPServer("win", "1", server.WithResourceCapabilities(true, true))
	add := func(uri string, priority *float64, meta map[string]any) {
		r := mcp.NewResource(uri, uri)
		if priority != nil {
			r.Annotations = &mcp.Annotations{Priority: priority}
		}
		if meta != nil {
			r.Meta = &mcp.Meta{AdditionalFields: meta}
		}
		s.AddResource(r, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "body of " + req.Params.URI}}, nil
		})
	}
	p := func(f float64) *float64 { return &f }
	add("window://w.example/low", p(0.1), nil)
	add("window://w.example/query-overridden?priority=5", p(0.9), nil) // ?priority=5 used to win
	add("window://w.example/query-only?priority=50", nil, nil)
	add("window://w.example/bad-query?priority=high", p(0.3), nil) // used to be dropped
	add("window://w.example/out-of-range", p(7), nil)
	c := customComputer(t, config.Config{Servers: []config.Server{stdio("win")}}, map[string]*server.MCPServer{"win": s}, nil)
	ret, err := call[protocol.GetDeskTopRet](t, c.handleGetDesktop, `{"req_id":"d"}`)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, d := range ret.Desktops {
		id, _, _ := strings.Cut(d, "\n\n")
		order = append(order, id)
	}
	want := []string{"window://w.example/query-overridden", "window://w.example/query-only", "window://w.example/bad-query",
		"window://w.example/low", "window://w.example/out-of-range"}
	if !slices.Equal(order, want) {
		t.Errorf("desktop order = %q\nwant %q", order, want)
	}

	// _meta.fullscreen: the first fullscreen window alone; a non-boolean is false.
	add("window://w.example/fs-string", nil, map[string]any{"fullscreen": "true"})
	add("window://w.example/fs", nil, map[string]any{"fullscreen": true})
	if !testutil.WaitUntil(10*time.Second, func() bool {
		ret, err = call[protocol.GetDeskTopRet](t, c.handleGetDesktop, `{"req_id":"d2"}`)
		return err == nil && len(ret.Desktops) == 1 && strings.HasPrefix(ret.Desktops[0], "window://w.example/fs\n\n")
	}) {
		t.Fatalf("after adding a fullscreen window: %v %q", err, ret.Desktops)
	}
}

// docsServer is a Finder-capable in-process server with n documents.
func docsServer(host string, n int) *server.MCPServer { return docServer(host, n, &counters{}) }

// A catalog that is empty because its document servers are still starting,
// down or unable to list answers 4014 naming them, not total_count 0.
func TestEmptyCatalogNamesUnavailableServers(t *testing.T) {
	tools := server.NewMCPServer("tools", "1", server.WithToolCapabilities(false))

	tests := []struct {
		name    string
		servers []config.Server
		inproc  map[string]*server.MCPServer
		failing map[string]string
		code    int
		texts   []string
		docs    int
	}{
		{name: "docs server still starting", servers: []config.Server{stdio("docs")},
			code: 4014, texts: []string{`"docs" is still starting`}},
		{name: "docs server down", servers: []config.Server{stdio("docs")}, failing: map[string]string{"docs": failStart},
			code: 4014, texts: []string{`"docs" is not running`, "executable file not found"}},
		{name: "two down", servers: []config.Server{stdio("a"), stdio("b")}, failing: map[string]string{"a": failStart},
			code: 4014, texts: []string{"2 document servers are unavailable", `"a" is not running`, `"b" is still starting`}},
		{name: "docs server cannot list", servers: []config.Server{stdio("docs")}, inproc: map[string]*server.MCPServer{"docs": docsServer("h.example", 2)},
			failing: map[string]string{"docs": failList}, code: 4014, texts: []string{`"docs" failed to list its documents`, "index is corrupt"}},
		{name: "a server without Finder does not count", servers: []config.Server{stdio("tools"), stdio("docs")},
			inproc: map[string]*server.MCPServer{"tools": tools, "docs": docsServer("h.example", 0)}},
		{name: "documents from one server while another starts", servers: []config.Server{stdio("docs"), stdio("slow")},
			inproc: map[string]*server.MCPServer{"docs": docsServer("h.example", 3)}, docs: 3},
		{name: "empty and every server up", servers: []config.Server{stdio("docs")},
			inproc: map[string]*server.MCPServer{"docs": docsServer("h.example", 0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := customComputer(t, config.Config{Servers: tt.servers}, tt.inproc, tt.failing)
			ret, err := call[protocol.GetFinderRet](t, c.handleGetFinder, `{"req_id":"f"}`)
			if tt.code == 0 {
				if err != nil || ret.TotalCount != tt.docs {
					t.Fatalf("get_finder = %+v, %v; want %d documents", ret, err, tt.docs)
				}
				return
			}
			pe := errorOf(t, err)
			if pe.Code != tt.code || pe.Extra["mcp_server"] == nil {
				t.Fatalf("get_finder error %+v, want %d with mcp_server", pe, tt.code)
			}
			for _, want := range tt.texts {
				if !strings.Contains(pe.Message, want) {
					t.Errorf("message %q lacks %q", pe.Message, want)
				}
			}
		})
	}
}
