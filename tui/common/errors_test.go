package common

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/protocol"
)

func TestDescribeError(t *testing.T) {
	cases := []struct {
		err  error
		op   Operation
		want string
	}{
		{protocol.NewError(4201, "doc x"), OpDocument, "4201 · this document no longer exists — doc x"},
		{protocol.NewError(4202, "page 9"), OpPage, "4202 · this page is out of range — page 9"},
		{protocol.NewError(4204, "rule 3: bad"), OpPage, "4204 · the dpe:// URI is invalid — rule 3: bad"},
		{protocol.NewError(404, "computer x not found"), OpDocument, "404 · the computer is not in the office (it left or never joined) — computer x not found"},
		{protocol.NewError(408, "slow"), OpFinder, "408 · timed out waiting for the computer"},
		{context.DeadlineExceeded, OpFinder, "408 · timed out waiting for the computer"},
		{errors.New("unknown event: client:get_finder"), OpFinder, "not supported by this computer (unknown event: client:get_finder)"},
		{protocol.NewError(4104, "x"), OpFinder, "4104 · the computer belongs to another office — x"},
		{protocol.NewError(4103, "x"), OpFinder, "4103 · this session is not in the office — x"},
		{protocol.NewError(4999, "odd\x1b[2J"), OpFinder, "4999 · request failed — odd"},
		{errors.New("socket closed"), OpFinder, "socket closed"},
	}
	for _, tc := range cases {
		if got := DescribeError(tc.err, tc.op); got != tc.want {
			t.Errorf("describeError(%v) = %q, want %q", tc.err, got, tc.want)
		}
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
		got := DescribeError(wireError(t, tc.payload), OpFinder)
		if got != tc.want {
			t.Errorf("describeError(%s)\n got %q\nwant %q", tc.payload, got, tc.want)
		}
		if strings.Contains(got, "gone") {
			t.Errorf("%q says the server is gone", got)
		}
	}
}

// TestDescribeInteropErrors checks the lines shown when a catalog or a
// document is opened through peers built on the official a2c-smcp SDK: its
// Computer has no Finder (our Server answers 404 "not supported"), its
// Server does not route Finder requests (the agent's ErrNotRouted).
func TestDescribeInteropErrors(t *testing.T) {
	unsupported := func(event string) error {
		return protocol.Errorf(protocol.CodeNotFound, "%s is not supported by computer 'pyc' (it answered with an empty acknowledgement)", event)
	}
	cases := []struct {
		err  error
		op   Operation
		want string
	}{
		{unsupported("client:get_finder"), OpFinder, "404 · not supported by this computer — client:get_finder is not supported by computer 'pyc'"},
		{unsupported("client:read_resource"), OpDocument, "404 · not supported by this computer — client:read_resource is not supported by computer 'pyc'"},
		{fmt.Errorf("this server does not route Finder requests (client:get_finder): it answered with an empty acknowledgement instead of asking the computer: %w", agent.ErrNotRouted),
			OpFinder, "this server does not route Finder requests (client:get_finder)"},
	}
	for _, tc := range cases {
		if got := DescribeError(tc.err, tc.op); !strings.HasPrefix(got, tc.want) {
			t.Errorf("describeError(%v) = %q, want it to start with %q", tc.err, got, tc.want)
		}
	}
}
