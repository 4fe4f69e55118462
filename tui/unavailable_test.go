package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// wireError decodes an error payload as the agent receives it.
func wireError(t *testing.T, payload string) *protocol.Error {
	t.Helper()
	pe, ok := protocol.DecodeError([]byte(payload))
	if !ok {
		t.Fatalf("not an error payload: %s", payload)
	}
	return pe
}

// The Computer answers get_finder with 4014 when the catalog is empty
// because its document servers are not up (computer.catalogUnavailable);
// the line shown says which server and what it is doing, never "gone".
func TestDescribeUnavailableDocumentServers(t *testing.T) {
	cases := []struct{ payload, want string }{
		{`{"code":4014,"message":"the catalog is empty: MCP server \"docs\" is still starting","mcp_server":"docs","details":{"state":"starting"}}`,
			`4014 · document server "docs" is still starting`},
		{`{"code":4014,"message":"the catalog is empty: MCP server \"docs\" is still listing its documents","mcp_server":"docs","details":{"state":"listing"}}`,
			`4014 · document server "docs" is still listing its documents`},
		{`{"code":4014,"message":"...","mcp_server":"docs","details":{"state":"down","last_error":"exec: \"serve-docs\": executable file not found in $PATH"}}`,
			`4014 · document server "docs" is down (exec: "serve-docs": executable file not found in $PATH), the computer keeps restarting it`},
		{`{"code":4014,"message":"...","mcp_server":"docs","details":{"state":"list_failed","last_error":"index is corrupt"}}`,
			`4014 · document server "docs" failed to list its documents (index is corrupt)`},
		{`{"code":4014,"message":"...","mcp_server":"docs","details":{"state":"disabled"}}`,
			`4014 · document server "docs" is disabled on this computer`},
		{`{"code":4014,"message":"the catalog is empty: 2 document servers are unavailable: ...","mcp_server":"a","details":{"servers":[{"mcp_server":"a","state":"down","last_error":"boom"},{"mcp_server":"b","state":"starting"}]}}`,
			`4014 · 2 document servers are unavailable: "a" is down (boom), the computer keeps restarting it; "b" is still starting`},
		// A peer that says no more than the code and a message.
		{`{"code":4014,"message":"server docs went away"}`,
			`4014 · the document server is not available — server docs went away`},
	}
	for _, tc := range cases {
		got := describeError(wireError(t, tc.payload), opFinder)
		if got != tc.want {
			t.Errorf("describeError(%s)\n got %q\nwant %q", tc.payload, got, tc.want)
		}
		if strings.Contains(got, "gone") {
			t.Errorf("%q says the server is gone", got)
		}
	}
}

// A browser opened while its computer's document server starts shows that
// it is starting (not an empty catalog, not an error), asks again on its
// own with backoff, follows the server's state, and shows the documents
// once they come.
func TestCatalogWaitsForStartingDocumentServers(t *testing.T) {
	f := newFake()
	starting := `{"code":4014,"message":"the catalog is empty: MCP server \"docs\" is still starting","mcp_server":"docs","details":{"state":"starting"}}`
	f.setErr("get_finder", wireError(t, starting))
	var ticks []func(time.Time) tea.Msg
	var delays []time.Duration
	o := testOptions()
	o.Computer = "laptop"
	hs := newHarnessWith(t, f, o, 100, 30, func(h *harness) {
		h.app.c.tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
			ticks, delays = append(ticks, fn), append(delays, d)
			return nil
		}
	})
	hs.requireContains(`◌ 4014 · document server "docs" is still starting — the catalog refreshes when it is ready`,
		"Waiting for the document servers…")
	hs.requireNotContains("✗", "gone", "has no documents")
	if len(ticks) != 1 {
		t.Fatalf("want one retry scheduled, got %d", len(ticks))
	}

	// Next try: the server crashed and is being restarted.
	f.setErr("get_finder", wireError(t, `{"code":4014,"message":"...","mcp_server":"docs","details":{"state":"down","last_error":"exit status 1"}}`))
	fire := func() {
		t.Helper()
		hs.send(ticks[len(ticks)-1](testNow))
		hs.settle()
	}
	fire()
	hs.requireContains(`document server "docs" is down (exit status 1), the computer keeps restarting it`, "refreshes when it is ready")
	if len(ticks) != 2 || delays[1] <= delays[0] {
		t.Fatalf("want a second, longer retry: %v", delays)
	}

	// It comes up: the documents appear and the retries stop.
	f.setErr("get_finder", nil)
	fire()
	hs.requireContains("1–7 of 7", "2026 年度报告")
	hs.requireNotContains("◌", "Waiting for the document servers", "4014")
	if len(ticks) != 2 {
		t.Fatalf("retries go on after the catalog came: %d", len(ticks))
	}
}

// A server that will not come up by itself (disabled) is an error, and
// nothing is retried.
func TestCatalogDoesNotWaitForADisabledServer(t *testing.T) {
	f := newFake()
	f.setErr("get_finder", wireError(t, `{"code":4014,"message":"...","mcp_server":"docs","details":{"state":"disabled"}}`))
	var ticks int
	o := testOptions()
	o.Computer = "laptop"
	hs := newHarnessWith(t, f, o, 100, 30, func(h *harness) {
		h.app.c.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { ticks++; return nil }
	})
	hs.requireContains(`✗ 4014 · document server "docs" is disabled on this computer`)
	hs.requireNotContains("refreshes when it is ready", "Waiting for")
	if ticks != 0 {
		t.Fatalf("%d retries scheduled for a disabled server", ticks)
	}
}
