package server_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// TestWireNodeClient runs test/node/wire.mjs: the npm socket.io-client
// connects without and with an incompatible a2c_version, then joins an
// office as agent, lists it, upgrades from polling to WebSocket and routes
// client:get_finder to a Go computer.
func TestWireNodeClient(t *testing.T) {
	modules := testutil.NodeModules(t)
	srv := servertest.Start(t, server.Options{})
	var got protocol.GetFinderReq
	servertest.NewComputer(t, srv.URL, "wire-office", "pc", servertest.Handlers{
		protocol.EventGetFinder: func(_ context.Context, raw json.RawMessage) (any, error) {
			if err := json.Unmarshal(raw, &got); err != nil {
				return nil, err
			}
			return protocol.GetFinderRet{
				Documents: []protocol.DPEDocumentSummary{{
					DocRef: "rpt-2026", URI: "dpe://docs/rpt-2026", FileType: "pdf",
					Title: "Q3 报告", PageCount: 12, Server: "docs",
				}},
				TotalCount: 1, ReqID: got.ReqID,
			}, nil
		},
	})

	ctx := testCtx(t)
	cmd := exec.CommandContext(ctx, "node", filepath.Join(filepath.Dir(modules), "wire.mjs"), srv.URL, "wire-office", "pc")
	cmd.Dir = filepath.Dir(modules)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("node wire.mjs: %v\n%s\n%s", err, out, stderr)
	}
	t.Logf("report: %s", out)
	type refusal struct {
		ConnectError    string         `json:"connect_error"`
		ClientSawBody   map[string]any `json:"client_saw_body"`
		HTTPStatus      int            `json:"http_status"`
		HTTPErrorHeader *string        `json:"http_error_header"`
		HTTPBody        map[string]any `json:"http_body"`
		Error           string         `json:"error"`
	}
	var report struct {
		MissingVersion      refusal `json:"missing_version"`
		IncompatibleVersion refusal `json:"incompatible_version"`
		Session             struct {
			Transports      []string              `json:"transports"`
			JoinAck         any                   `json:"join_ack"`
			ListRoom        protocol.ListRoomRet  `json:"list_room"`
			GetFinder       protocol.GetFinderRet `json:"get_finder"`
			BinaryPayload   map[string]any        `json:"binary_payload"`
			UnknownComputer map[string]any        `json:"unknown_computer"`
			StillConnected  bool                  `json:"still_connected"`
			FinalTransport  string                `json:"final_transport"`
			Error           string                `json:"error"`
		} `json:"session"`
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("report: %v", err)
	}

	mv := report.MissingVersion
	if mv.Error != "" || mv.ConnectError == "" {
		t.Errorf("without a2c_version the client connected or saw no connect_error: %+v", mv)
	}
	if mv.HTTPStatus != 400 || mv.HTTPBody["code"] != 400.0 || mv.HTTPBody["message"] != "Missing a2c_version query parameter" {
		t.Errorf("missing version answered %d %v", mv.HTTPStatus, mv.HTTPBody)
	}
	iv := report.IncompatibleVersion
	if iv.Error != "" || iv.ConnectError == "" {
		t.Errorf("with a2c_version 0.1.0 the client connected or saw no connect_error: %+v", iv)
	}
	if iv.HTTPStatus != 400 || iv.HTTPErrorHeader == nil || *iv.HTTPErrorHeader != "4008" {
		t.Errorf("incompatible version answered %d header %v", iv.HTTPStatus, iv.HTTPErrorHeader)
	}
	want4008 := map[string]any{
		"code": 4008.0, "message": "Protocol version mismatch: the client speaks 0.1.0, this Server speaks " + protocol.Version,
		"server_version": protocol.Version, "client_version": "0.1.0",
		"min_supported": "0.4.0", "max_supported": "0.4.999",
	}
	if !reflect.DeepEqual(iv.HTTPBody, want4008) {
		t.Errorf("4008 body %v\nwant %v", iv.HTTPBody, want4008)
	}
	if iv.ClientSawBody != nil && !reflect.DeepEqual(iv.ClientSawBody, want4008) {
		t.Errorf("the 4008 body socket.io-client saw: %v", iv.ClientSawBody)
	}

	s := report.Session
	if s.Error != "" {
		t.Fatalf("session: %s", s.Error)
	}
	if !reflect.DeepEqual(s.Transports, []string{"polling", "websocket"}) || s.FinalTransport != "websocket" {
		t.Errorf("transports %v final %s, want polling then websocket", s.Transports, s.FinalTransport)
	}
	if s.JoinAck != true { // emitWithAck resolves with the first value of (true, null)
		t.Errorf("join ack %v, want true (the protocol's (true, null))", s.JoinAck)
	}
	if s.ListRoom.ReqID != "wire-list" || names(s.ListRoom.Sessions) != "agent:node-agent@wire-office/0.4.0 computer:pc@wire-office/0.4.0" {
		t.Errorf("list_room %+v", s.ListRoom)
	}
	if s.GetFinder.ReqID != "wire-1" || s.GetFinder.TotalCount != 1 || len(s.GetFinder.Documents) != 1 || s.GetFinder.Documents[0].Title != "Q3 报告" {
		t.Errorf("get_finder answer %+v", s.GetFinder)
	}
	if got.Agent != "node-agent" || !reflect.DeepEqual(got.Keywords, []string{"q3", "报告"}) || got.Limit == nil || *got.Limit != 5 {
		t.Errorf("the computer got %+v", got)
	}
	if s.BinaryPayload["code"] != 400.0 {
		t.Errorf("binary payload answered %v, want 400", s.BinaryPayload)
	}
	if s.UnknownComputer["code"] != 404.0 || s.UnknownComputer["message"] != "computer 'ghost' not found" {
		t.Errorf("unknown computer answered %v", s.UnknownComputer)
	}
	if !s.StillConnected {
		t.Error("the client was disconnected")
	}
}
