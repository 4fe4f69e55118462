package mcpfacade

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/rpcerr"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// wait bounds every wait for an event: generous for a loaded machine.
const wait = 20 * time.Second

// fakeOffice is an office of computers, each with a catalog of one host;
// block makes every call wait for its context.
type fakeOffice struct {
	mu       sync.Mutex
	catalogs map[string][]protocol.DPEDocumentSummary // computer → entries
	block    bool
}

func newFakeOffice() *fakeOffice {
	o := &fakeOffice{catalogs: map[string][]protocol.DPEDocumentSummary{}}
	for _, c := range []string{"laptop", "desktop"} {
		for i := range 3 {
			o.catalogs[c] = append(o.catalogs[c], doc(c, fmt.Sprintf("doc-%d", i), "2026-01-01T00:00:00Z"))
		}
	}
	return o
}

func doc(computer, ref, modified string) protocol.DPEDocumentSummary {
	return protocol.DPEDocumentSummary{
		DocRef: ref, URI: dpe.Document(computer+".docs", ref).String(), Title: "Title " + ref, Path: ref + ".md",
		FileType: "md", PageCount: 2, LastModified: modified, Server: computer + ".docs",
	}
}

func (o *fakeOffice) hold(ctx context.Context) error {
	o.mu.Lock()
	block := o.block
	o.mu.Unlock()
	if block {
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

func (o *fakeOffice) ListRoom(ctx context.Context) ([]protocol.SessionInfo, error) {
	if err := o.hold(ctx); err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	out := []protocol.SessionInfo{{Name: "me", Role: protocol.RoleAgent}}
	for c := range o.catalogs {
		out = append(out, protocol.SessionInfo{Name: c, Role: protocol.RoleComputer})
	}
	return out, nil
}

func (o *fakeOffice) GetFinder(ctx context.Context, computer string, q protocol.FinderQuery) (*protocol.GetFinderRet, error) {
	if err := o.hold(ctx); err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	all, ok := o.catalogs[computer]
	if !ok {
		return nil, protocol.Errorf(protocol.CodeNotFound, "computer %q not found", computer)
	}
	end := len(all)
	if q.Limit > 0 {
		end = min(end, q.Offset+q.Limit)
	}
	return &protocol.GetFinderRet{Documents: slices.Clone(all[min(q.Offset, end):end]), TotalCount: len(all)}, nil
}

func (o *fakeOffice) GetFinderJSON(ctx context.Context, computer string, q protocol.FinderQuery) (json.RawMessage, error) {
	ret, err := o.GetFinder(ctx, computer, q)
	if err != nil {
		return nil, err
	}
	return json.Marshal(ret)
}

func (o *fakeOffice) SearchFinderJSON(ctx context.Context, computer string, q protocol.SearchQuery) (json.RawMessage, error) {
	if err := o.hold(ctx); err != nil {
		return nil, err
	}
	return json.Marshal(protocol.SearchFinderRet{Matches: []protocol.SearchMatch{}})
}

func (o *fakeOffice) ReadResource(ctx context.Context, computer, uri string) (*protocol.ReadResourceRet, error) {
	if err := o.hold(ctx); err != nil {
		return nil, err
	}
	u, err := dpe.Parse(uri)
	if err != nil {
		return nil, err
	}
	if u.Host != computer+".docs" {
		return nil, protocol.Errorf(protocol.CodeDocumentNotFound, "no MCP server of this computer serves host %q", u.Host).
			WithDetails(map[string]any{"host": u.Host, "uri": uri})
	}
	return &protocol.ReadResourceRet{Contents: []protocol.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: "read on " + computer}}}, nil
}

func (o *fakeOffice) set(computer string, docs ...protocol.DPEDocumentSummary) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.catalogs[computer] = docs
}

// notes records a client's notifications.
type notes struct {
	mu   sync.Mutex
	seen []mcp.JSONRPCNotification
	ch   chan struct{}
}

func (n *notes) add(m mcp.JSONRPCNotification) {
	n.mu.Lock()
	n.seen = append(n.seen, m)
	n.mu.Unlock()
	select {
	case n.ch <- struct{}{}:
	default:
	}
}

// waitFor waits for a notification of method (with params.uri = uri when
// uri is not "") and removes it.
func (n *notes) waitFor(t *testing.T, method, uri string) {
	t.Helper()
	deadline := time.After(wait)
	for {
		n.mu.Lock()
		i := slices.IndexFunc(n.seen, func(m mcp.JSONRPCNotification) bool {
			return m.Method == method && (uri == "" || m.Params.AdditionalFields["uri"] == uri)
		})
		if i >= 0 {
			n.seen = slices.Delete(n.seen, i, i+1)
		}
		n.mu.Unlock()
		if i >= 0 {
			return
		}
		select {
		case <-n.ch:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("no %s notification (uri %q) within %v", method, uri, wait)
		}
	}
}

func (n *notes) count(method, uri string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	c := 0
	for _, m := range n.seen {
		if m.Method == method && (uri == "" || m.Params.AdditionalFields["uri"] == uri) {
			c++
		}
	}
	return c
}

func dial(t *testing.T, tr transport.Interface) *client.Client {
	t.Helper()
	c := client.NewClient(tr)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = "2025-06-18"
	req.Params.ClientInfo = mcp.Implementation{Name: "facade-test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	return c
}

func callTool(t *testing.T, c *client.Client, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// TestOfficeAwayAndBack: while the agent reconnects, tools answer that the
// office is unreachable and that it rejoins by itself; when it is back,
// hosts hear that the list changed and the tools answer again.
func TestOfficeAwayAndBack(t *testing.T) {
	office := newFakeOffice()
	f := New(Options{})
	t.Cleanup(f.Close)
	h := f.Handlers()
	f.Attach(office, "")
	c := dial(t, f.InProcessTransport())
	n := &notes{ch: make(chan struct{}, 1)}
	c.OnNotification(n.add)

	if text, isErr := callTool(t, c, "finder_computers", nil); isErr || !strings.Contains(text, `"name":"laptop"`) {
		t.Fatalf("finder_computers = %s (error %v)", text, isErr)
	}
	h.State(agent.StateReconnecting)
	text, isErr := callTool(t, c, "finder_list", nil)
	if !isErr || !strings.Contains(text, "error 503") || !strings.Contains(text, "reconnects and rejoins") {
		t.Errorf("finder_list while away = %s (error %v), want a 503 that says it rejoins", text, isErr)
	}
	office.set("tablet", doc("tablet", "new", "2026-02-01T00:00:00Z"))
	h.State(agent.StateConnected)
	n.waitFor(t, mcp.MethodNotificationResourcesListChanged, "")
	text, isErr = callTool(t, c, "finder_computers", nil)
	if isErr || !strings.Contains(text, `"name":"tablet"`) {
		t.Errorf("finder_computers once back = %s (error %v), want the computer that came meanwhile", text, isErr)
	}
}

// TestChangesBecomeNotifications: a notify:update_finder whose catalog
// shows a document changed becomes resources/updated for that document
// (to a host subscribed to it), and one that adds a document becomes
// list_changed.
func TestChangesBecomeNotifications(t *testing.T) {
	office := newFakeOffice()
	f := New(Options{Debounce: 10 * time.Millisecond})
	t.Cleanup(f.Close)
	h := f.Handlers()
	f.Attach(office, "")
	c := dial(t, f.InProcessTransport())
	n := &notes{ch: make(chan struct{}, 1)}
	c.OnNotification(n.add)
	changed := dpe.Document("laptop.docs", "doc-1").String()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	sub := mcp.SubscribeRequest{}
	sub.Params.URI = changed + "/pages/0"
	//lint:ignore SA1019 hosts speaking protocol 2025-06-18 (the TypeScript SDK's among them) subscribe so
	if err := c.Subscribe(ctx, sub); err != nil {
		t.Fatal(err)
	}
	// The first stamps are taken in the background: wait for them.
	deadline := time.Now().Add(wait)
	for {
		f.mu.Lock()
		ready := len(f.stamps) == 2
		f.mu.Unlock()
		if ready {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the catalogs were never stamped")
		}
		time.Sleep(10 * time.Millisecond)
	}

	office.set("laptop", doc("laptop", "doc-0", "2026-01-01T00:00:00Z"), doc("laptop", "doc-1", "2026-03-03T00:00:00Z"), doc("laptop", "doc-2", "2026-01-01T00:00:00Z"))
	h.UpdateFinder(protocol.UpdateComputerConfigReq{Computer: "laptop"})
	n.waitFor(t, mcp.MethodNotificationResourceUpdated, changed)
	if k := n.count(mcp.MethodNotificationResourceUpdated, ""); k != 0 {
		t.Errorf("%d more updated notifications, for documents not subscribed or not changed", k)
	}
	if k := n.count(mcp.MethodNotificationResourcesListChanged, ""); k != 0 {
		t.Errorf("list_changed for a change that added nothing")
	}

	office.set("desktop", append(office.catalogs["desktop"], doc("desktop", "doc-9", "2026-03-03T00:00:00Z"))...)
	h.UpdateFinder(protocol.UpdateComputerConfigReq{Computer: "desktop"})
	n.waitFor(t, mcp.MethodNotificationResourcesListChanged, "")
}

// TestEveryCallIsBounded: a computer that never answers gets a 408 that
// says what to do, within the façade's timeout, not a hang.
func TestEveryCallIsBounded(t *testing.T) {
	office := newFakeOffice()
	f := New(Options{Timeout: 200 * time.Millisecond})
	t.Cleanup(f.Close)
	f.Attach(office, "laptop")
	c := dial(t, f.InProcessTransport())
	office.mu.Lock()
	office.block = true
	office.mu.Unlock()
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"finder_list", nil},
		{"finder_page", map[string]any{"uri": "dpe://laptop.docs/doc-0/pages/0"}},
		{"finder_search", map[string]any{"query": "x"}},
	} {
		// finder_list reports a computer's error beside the others'
		// answers; the other tools answer with the error.
		text, _ := callTool(t, c, tc.tool, tc.args)
		if !strings.Contains(text, "error 408") || !strings.Contains(text, "try again") {
			t.Errorf("%s against a silent computer = %s, want error 408 that says what to do", tc.tool, text)
		}
	}
}

// TestReadsRouteByHost: a URI goes to the computer serving its host,
// learned by asking; a host nobody serves is 4201.
func TestReadsRouteByHost(t *testing.T) {
	office := newFakeOffice()
	f := New(Options{})
	t.Cleanup(f.Close)
	f.Attach(office, "")
	ctx := context.Background()
	for _, c := range []string{"desktop", "laptop"} {
		ret, got, err := f.read(ctx, dpe.Page(c+".docs", "doc-0", 0).String())
		if err != nil || got != c || ret.Contents[0].Text != "read on "+c {
			t.Errorf("read of %s's page: computer %q, %v, %v", c, got, ret, err)
		}
	}
	_, _, err := f.read(ctx, "dpe://nobody.docs/x")
	if protocol.CodeOf(err) != protocol.CodeDocumentNotFound {
		t.Errorf("read of an unserved host: %v, want 4201", err)
	}
}

// TestHTTPTransport: the façade over Streamable HTTP answers mcp-go's
// client as over stdio.
func TestHTTPTransport(t *testing.T) {
	f := New(Options{})
	t.Cleanup(f.Close)
	f.Attach(newFakeOffice(), "")
	srv := httptest.NewServer(f.HTTPHandler("/mcp"))
	t.Cleanup(srv.Close)
	tr, err := transport.NewStreamableHTTP(srv.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, rpcerr.WrapTransport(tr))
	text, isErr := callTool(t, c, "finder_page", map[string]any{"uri": "dpe://desktop.docs/doc-2", "page": 1})
	if isErr || text != "read on desktop" {
		t.Errorf("finder_page over HTTP = %q (error %v)", text, isErr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cctx, answered := rpcerr.Capture(ctx)
	req := mcp.ReadResourceRequest{}
	req.Params.URI = "dpe://nobody.docs/x"
	if _, err := c.ReadResource(cctx, req); err == nil {
		t.Fatal("a read of a host nobody serves succeeded")
	}
	if e := answered(); e == nil || e.Code != protocol.CodeDocumentNotFound {
		t.Errorf("resources/read over HTTP answered %+v, want code 4201", e)
	}
}

func TestCutText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
		cut  bool
	}{
		{"short", 10, "short", false},
		{"line one\nline two\nline three", 22, "line one\nline two\n", true},
		{"日本語のテキスト", 7, "日本", true},         // never inside a rune
		{"abcdefghij\nk", 5, "abcde", true}, // no break in the second half: cut at n
	} {
		got, cut := cutText(tc.in, tc.n)
		if got != tc.want || cut != tc.cut {
			t.Errorf("cutText(%q, %d) = %q, %v; want %q, %v", tc.in, tc.n, got, cut, tc.want, tc.cut)
		}
	}
}

// TestMergeResumes: matches of two computers merged best first and cut
// at the limit; the cursor goes on from the first match not shown of each
// computer, and walking it shows every match once.
func TestMergeResumes(t *testing.T) {
	answer := func(computer string, scores ...float64) *protocol.SearchFinderRet {
		r := &protocol.SearchFinderRet{}
		for i, s := range scores {
			r.Matches = append(r.Matches, protocol.SearchMatch{URI: fmt.Sprintf("dpe://%s.docs/d/pages/%d", computer, i), Score: s})
		}
		return r
	}
	all := map[string]*protocol.SearchFinderRet{
		"desktop": answer("desktop", 0.9, 0.5, 0.1),
		"laptop":  answer("laptop", 0.8, 0.7),
	}
	// What each computer answers from a resume point: its matches after
	// Skip (the fake has no server-side cursor: one answer holds all).
	ask := func(from searchCursor) []computerSearch {
		var out []computerSearch
		for c, r := range from {
			out = append(out, computerSearch{computer: c, from: r, ret: all[c]})
		}
		slices.SortFunc(out, func(a, b computerSearch) int { return strings.Compare(a.computer, b.computer) })
		return out
	}
	first := merge(ask(searchCursor{"desktop": {}, "laptop": {}}), 2, true)
	if len(first.Matches) != 2 || first.Matches[0].Score != 0.9 || first.Matches[1].Score != 0.8 || !first.Truncated {
		t.Fatalf("first answer = %+v", first)
	}
	var seen []float64
	for a := first; ; {
		for _, m := range a.Matches {
			seen = append(seen, m.Score)
		}
		if a.NextCursor == "" {
			break
		}
		from, ok := decodeSearchCursor(a.NextCursor)
		if !ok {
			t.Fatalf("cursor %q does not decode", a.NextCursor)
		}
		a = merge(ask(from), 2, true)
		if len(seen) > 10 {
			t.Fatal("the cursor never ends")
		}
	}
	slices.Sort(seen)
	if want := []float64{0.1, 0.5, 0.7, 0.8, 0.9}; !slices.Equal(seen, want) {
		t.Errorf("walking the cursor showed %v, want each of %v once", seen, want)
	}
}

func TestDiff(t *testing.T) {
	before := map[string]stamp{"a": {modified: "1"}, "b": {modified: "1"}, "c": {pending: true}}
	now := map[string]stamp{"a": {modified: "1"}, "b": {modified: "2"}, "c": {pages: 3}, "d": {}}
	added, removed, changed := diff(before, now)
	slices.Sort(changed)
	if added != 1 || removed != 0 || !slices.Equal(changed, []string{"b", "c"}) {
		t.Errorf("diff = %d added, %d removed, changed %v", added, removed, changed)
	}
	if _, removed, _ := diff(now, before); removed != 1 {
		t.Errorf("a document gone is not counted as removed")
	}
}

// TestFirstCallWaitsForTheFirstJoin: a host that starts the façade and
// asks at once gets its answer once the office is joined, not a 503 it
// must retry; a call while the first try has failed is told why at once.
func TestFirstCallWaitsForTheFirstJoin(t *testing.T) {
	f := New(Options{Timeout: 20 * time.Second})
	t.Cleanup(f.Close)
	c := dial(t, f.InProcessTransport())
	go func() {
		time.Sleep(300 * time.Millisecond) // the join under way
		f.Attach(newFakeOffice(), "")
	}()
	if text, isErr := callTool(t, c, "finder_computers", nil); isErr || !strings.Contains(text, `"name":"laptop"`) {
		t.Errorf("finder_computers during the first join = %s (error %v), want the computers once joined", text, isErr)
	}

	g := New(Options{Timeout: 20 * time.Second})
	t.Cleanup(g.Close)
	g.Unjoined(protocol.NewError(503, "the Server at http://127.0.0.1:1 does not answer"))
	gc := dial(t, g.InProcessTransport())
	start := time.Now()
	text, isErr := callTool(t, gc, "finder_computers", nil)
	if !isErr || !strings.Contains(text, "does not answer") {
		t.Errorf("finder_computers after a failed join = %s (error %v), want why", text, isErr)
	}
	if waited := time.Since(start); waited > 10*time.Second {
		t.Errorf("the answer after a failed join took %v: it waited for a join that had already failed", waited)
	}
}
