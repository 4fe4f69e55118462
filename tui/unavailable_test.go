package tui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/smcp-browse/smcp-browse/protocol"
)

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
		h.app.c.Tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
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
		h.app.c.Tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { ticks++; return nil }
	})
	hs.requireContains(`✗ 4014 · document server "docs" is disabled on this computer`)
	hs.requireNotContains("refreshes when it is ready", "Waiting for")
	if ticks != 0 {
		t.Fatalf("%d retries scheduled for a disabled server", ticks)
	}
}

// wireError decodes an error payload as the agent receives it.
func wireError(t *testing.T, payload string) *protocol.Error {
	t.Helper()
	pe, ok := protocol.DecodeError([]byte(payload))
	if !ok {
		t.Fatalf("not an error payload: %s", payload)
	}
	return pe
}
