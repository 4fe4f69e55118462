package computer_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// toolNames lists the exposed names of a get_tools answer.
func toolNames(ret *protocol.GetToolsRet) []string {
	var out []string
	if ret == nil {
		return nil
	}
	for _, tl := range ret.Tools {
		out = append(out, tl.Name)
	}
	return out
}

// goodToolCall calls the good server's fs_tree and says how long it took.
func (r *hostileRig) goodToolCall(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	res, err := r.agent.CallTool(context.Background(), "pc", "good__fs_tree", map[string]any{}, 20*time.Second)
	if err != nil || res.IsError {
		t.Fatalf("good__fs_tree: %v %+v", err, res)
	}
	return time.Since(start)
}

// TestLateFirstToolsList: the evil server answers its tools/list only
// once the test lets it, after the Computer's request (3 s) timed out and
// it asked again. The good server's tools are listed and callable
// meanwhile without waiting for it, and the evil server's tools appear by
// themselves once it answers the retry, announced by
// notify:update_tool_list.
func TestLateFirstToolsList(t *testing.T) {
	t.Parallel()
	const timeout = 3 * time.Second
	r := startHostile(t, hostileSetup{spec: "plain tools-held", requestTimeout: timeout})
	took := r.goodToolCall(t)
	t.Logf("good tool call while the evil tools/list is late: %v", took)
	if took >= timeout {
		t.Errorf("a good tool call took %v: it waited for the other server's tools/list (timeout %v)", took, timeout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	res, err := r.agent.CallTool(ctx, "pc", "evil__hello", nil, 10*time.Second)
	if err != nil || !res.IsError || res.ErrorCode() != protocol.CodeToolNotFound || !strings.Contains(res.Text(), "has not listed its tools") {
		t.Errorf("a call to the late server's tool: %v %+v, want 4001 saying its tools are not listed", err, res)
	}
	// The first tools/list timed out and the Computer asked again by
	// itself; only now does the server answer.
	r.waitTrace(t, "tools/list", 1, 20*time.Second)
	if err := os.WriteFile(filepath.Join(r.dir, "release-tools"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var tools *protocol.GetToolsRet
	if !testutil.WaitUntil(30*time.Second, func() bool {
		tools, err = r.agent.GetTools(ctx, "pc")
		return err == nil && slices.Contains(toolNames(tools), "evil__hello")
	}) {
		t.Fatalf("the late server's tools never appeared: %v %v", toolNames(tools), err)
	}
	// The announcement is debounced: it may come just after the listing
	// that already shows the tools.
	if !testutil.WaitUntil(10*time.Second, func() bool { _, tools := r.notes.counts(); return tools > 0 }) {
		t.Errorf("no notify:update_tool_list announced the late tools")
	}
	res, err = r.agent.CallTool(ctx, "pc", "evil__hello", nil, 10*time.Second)
	if err != nil || res.IsError || res.Text() != "hello from hostile" {
		t.Errorf("evil__hello once listed: %v %+v", err, res)
	}
}

// TestHungToolsList: the evil server never answers tools/list. Tool
// calls, get_tools and reads of the good server answer without waiting
// for it; a call to one of its tools fails with a clear error within the
// request timeout.
func TestHungToolsList(t *testing.T) {
	t.Parallel()
	const timeout = 8 * time.Second
	r := startHostile(t, hostileSetup{spec: "plain tools-hang", requestTimeout: timeout})
	for range 3 {
		if took := r.goodToolCall(t); took >= timeout/2 {
			t.Errorf("a good tool call took %v while the other server's tools/list hangs (timeout %v)", took, timeout)
		}
	}
	ctx := context.Background()
	start := time.Now()
	ret, err := r.agent.GetTools(ctx, "pc")
	if err != nil || !slices.Contains(toolNames(ret), "good__fs_tree") || slices.Contains(toolNames(ret), "evil__hello") {
		t.Fatalf("get_tools: %v %v", err, toolNames(ret))
	}
	if took := time.Since(start); took >= timeout/2 {
		t.Errorf("get_tools took %v while the other server's tools/list hangs", took)
	}
	r.goodServed(t)
	// A content search asks only the servers known to offer dpe_search;
	// the hung one is left out instead of waited for.
	start = time.Now()
	found, err := r.agent.SearchFinder(ctx, "pc", protocol.SearchQuery{Query: "budget", Literal: true})
	if err != nil || len(found.Matches) == 0 {
		t.Errorf("search while the other server's tools/list hangs: %v %+v", err, found)
	}
	if took := time.Since(start); took >= timeout/2 {
		t.Errorf("a search took %v while the other server's tools/list hangs (timeout %v)", took, timeout)
	}
	start = time.Now()
	res, err := r.agent.CallTool(ctx, "pc", "evil__hello", nil, 30*time.Second)
	took := time.Since(start)
	if err != nil || !res.IsError || res.ErrorCode() != protocol.CodeToolNotFound || !strings.Contains(res.Text(), "evil") {
		t.Errorf("a call to the hung server's tool: %v %+v", err, res)
	}
	t.Logf("a call to the hung server's tool failed after %v: %s", took.Round(time.Millisecond), res.Text())
	if took > 2*timeout {
		t.Errorf("the failing call took %v, beyond the request timeout %v", took, timeout)
	}
	r.inOffice(t)
}

// TestLateFirstResourcesList: the evil server answers its first
// resources/list after the request timeout. Meanwhile the good server's
// documents are listed and read, the Desktop and the catalog answer
// without waiting for it to the end, and its documents come by
// themselves once a retry is answered.
func TestLateFirstResourcesList(t *testing.T) {
	t.Parallel()
	const timeout = 4 * time.Second
	r := startHostile(t, hostileSetup{spec: "plain list-late=8s", requestTimeout: timeout})
	r.goodServed(t)
	ctx := context.Background()
	start := time.Now()
	if _, err := r.agent.GetDesktop(ctx, "pc", 0, ""); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took >= timeout {
		t.Errorf("get_desktop took %v while the other server's first listing hangs (timeout %v)", took, timeout)
	}
	// Tried again by itself, no request asking for it.
	r.waitTrace(t, "resources/list", 1, 20*time.Second)
	var err error
	if !testutil.WaitUntil(30*time.Second, func() bool {
		var doc protocol.DPEDocument
		err = r.agent.ReadJSON(ctx, "pc", "dpe://evil.host/own", &doc)
		return err == nil
	}) {
		t.Fatalf("the late server's documents never came: %v", err)
	}
	r.goodServed(t)
	r.inOffice(t)
}
