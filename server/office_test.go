package server_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

func names(list []protocol.SessionInfo) string {
	var out []string
	for _, s := range list {
		out = append(out, fmt.Sprintf("%s:%s@%s/%s", s.Role, s.Name, s.OfficeID, s.A2CVersion))
	}
	return strings.Join(out, " ")
}

// TestOfficeLifecycle walks one office through joins, a computer moving
// to another office, a disconnect and the agent leaving, checking what each
// member hears and what list_room shows.
func TestOfficeLifecycle(t *testing.T) { eachTopology(t, server.Options{}, testOfficeLifecycle) }

func testOfficeLifecycle(t *testing.T, tp topology) {
	ctx := testCtx(t)

	c1 := servertest.NewComputer(t, tp.at(0), "o1", "pc1", nil)
	c1In := newInbox(t)
	listenAll(c1.Conn, c1In)

	aIn := newInbox(t)
	a := newAgent(t, tp.at(1), "bot", agentHandlers(aIn))
	if err := a.JoinOffice(ctx, "o1"); err != nil {
		t.Fatal(err)
	}
	if a.Office() != "o1" {
		t.Fatalf("Office() = %q", a.Office())
	}
	c1In.expect(`notify:enter_office {"agent":"bot","office_id":"o1"}`)

	c2 := servertest.NewComputer(t, tp.at(0), "o1", "pc2", nil)
	aIn.expect(`notify:enter_office {"computer":"pc2","office_id":"o1"}`)
	c1In.expect(`notify:enter_office {"computer":"pc2","office_id":"o1"}`)

	list, err := a.ListRoom(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(list); got != "agent:bot@o1/0.4.0 computer:pc1@o1/0.4.0 computer:pc2@o1/0.4.0" {
		t.Fatalf("list_room: %s", got)
	}
	if list[1].SID != c1.Conn.ID() || list[2].SID != c2.Conn.ID() {
		t.Errorf("sids %q %q, want the computers' own %q %q", list[1].SID, list[2].SID, c1.Conn.ID(), c2.Conn.ID())
	}

	// pc2 moves to o2: o1 hears it leave.
	join(t, c2.Conn, protocol.RoleComputer, "pc2", "o2")
	aIn.expect(`notify:leave_office {"computer":"pc2","office_id":"o1"}`)
	c1In.expect(`notify:leave_office {"computer":"pc2","office_id":"o1"}`)
	if list, _ = a.ListRoom(ctx); names(list) != "agent:bot@o1/0.4.0 computer:pc1@o1/0.4.0" {
		t.Fatalf("after the move: %s", names(list))
	}

	// pc1 disconnects: the agent hears it leave.
	_ = c1.Conn.Close()
	aIn.expect(`notify:leave_office {"computer":"pc1","office_id":"o1"}`)
	if list, _ = a.ListRoom(ctx); names(list) != "agent:bot@o1/0.4.0" {
		t.Fatalf("after the disconnect: %s", names(list))
	}

	// The agent leaves and joins o2, where pc2 now is.
	if err := a.LeaveOffice(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ListRoom(ctx); !errors.Is(err, agent.ErrNoOffice) {
		t.Fatalf("ListRoom outside an office: %v", err)
	}
	if err := a.JoinOffice(ctx, "o2"); err != nil {
		t.Fatal(err)
	}
	if list, _ = a.ListRoom(ctx); names(list) != "agent:bot@o2/0.4.0 computer:pc2@o2/0.4.0" {
		t.Fatalf("in o2: %s", names(list))
	}
	aIn.empty()
}

// TestErrorCodes checks every refusal code of the office and routing rules
// on the real wire.
func TestErrorCodes(t *testing.T) { eachTopology(t, server.Options{}, testErrorCodes) }

func testErrorCodes(t *testing.T, tp topology) {
	ctx := testCtx(t)
	pc := servertest.NewComputer(t, tp.at(0), "o1", "pc", servertest.Handlers{protocol.EventGetTools: servertest.Reply(protocol.GetToolsRet{})})
	servertest.NewComputer(t, tp.at(1), "o2", "far", nil)
	bot := dial(t, tp.at(1))
	join(t, bot, protocol.RoleAgent, "bot", "o1")
	lonely := dial(t, tp.at(0))

	tests := []struct {
		name    string
		from    *sio.Conn
		event   string
		payload any
		code    int
		msg     string
	}{
		{"join payload not an object", lonely, protocol.EventJoinOffice, "o1", 400, "must be a JSON object"},
		{"join without name", lonely, protocol.EventJoinOffice, map[string]any{"role": "agent", "office_id": "o1"}, 400, `"name" is required`},
		{"join with a bad role", lonely, protocol.EventJoinOffice, map[string]any{"role": "robot", "name": "x", "office_id": "o1"}, 400, "role must be"},
		{"join with a wrong type", lonely, protocol.EventJoinOffice, map[string]any{"role": "agent", "name": 5, "office_id": "o1"}, 400, `"name" must be string`},
		{"second agent in an office", lonely, protocol.EventJoinOffice, protocol.EnterOfficeReq{Role: "agent", Name: "bot2", OfficeID: "o1"}, 4101, "already has an agent"},
		{"agent already in another office", bot, protocol.EventJoinOffice, protocol.EnterOfficeReq{Role: "agent", Name: "bot", OfficeID: "o2"}, 4106, "already in office"},
		{"name taken", lonely, protocol.EventJoinOffice, protocol.EnterOfficeReq{Role: "computer", Name: "pc", OfficeID: "o1"}, 4105, "already taken"},
		{"malformed before not-in-office", lonely, protocol.EventGetTools, map[string]any{"computer": 1}, 400, `"computer" must be string`},
		{"request from outside any office", lonely, protocol.EventGetTools, protocol.ComputerCall{Agent: "x", ReqID: "1", Computer: "pc"}, 4103, "not in any office"},
		{"request from a computer", pc.Conn, protocol.EventGetTools, protocol.ComputerCall{Agent: "x", ReqID: "1", Computer: "pc"}, 403, "only an agent"},
		{"computer in another office", bot, protocol.EventGetTools, protocol.ComputerCall{Agent: "bot", ReqID: "1", Computer: "far"}, 4104, "not in your office"},
		{"unknown computer", bot, protocol.EventGetFinder, protocol.ComputerCall{Agent: "bot", ReqID: "1", Computer: "ghost"}, 404, "computer 'ghost' not found"},
		{"request without computer", bot, protocol.EventGetConfig, map[string]any{"agent": "bot", "req_id": "1"}, 400, `"computer" is required`},
		{"tool call without tool", bot, protocol.EventToolCall, map[string]any{"agent": "bot", "req_id": "1", "computer": "pc"}, 400, `"tool_name" is required`},
		{"tool call with negative timeout", bot, protocol.EventToolCall, map[string]any{"computer": "pc", "tool_name": "t", "timeout": -1}, 400, "timeout"},
		{"list another office", bot, protocol.EventListRoom, protocol.ListRoomReq{Agent: "bot", ReqID: "1", OfficeID: "o2"}, 4104, "cannot list"},
		{"list from outside any office", lonely, protocol.EventListRoom, protocol.ListRoomReq{Agent: "x", ReqID: "1", OfficeID: "o1"}, 4103, "not in any office"},
		{"update from outside any office", lonely, protocol.EventUpdateFinder, protocol.UpdateComputerConfigReq{Computer: "x"}, 4103, "not in any office"},
		{"update from an agent", bot, protocol.EventUpdateFinder, protocol.UpdateComputerConfigReq{Computer: "bot"}, 403, "only come from a computer"},
		{"cancel from a computer", pc.Conn, protocol.EventToolCallCancel, protocol.AgentCallData{Agent: "pc", ReqID: "1"}, 403, "only come from an agent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.from.Call(ctx, tt.event, tt.payload)
			if got := codeOf(t, err); got != tt.code {
				t.Fatalf("code %d (%v), want %d", got, err, tt.code)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("message %q does not say %q", err, tt.msg)
			}
		})
	}
	// Every refusal left the connections working.
	if _, err := bot.Call(ctx, protocol.EventGetTools, protocol.ComputerCall{Agent: "bot", ReqID: "2", Computer: "pc"}); err != nil {
		t.Fatalf("routing after the refusals: %v", err)
	}
}

// TestHandshakeRefusals checks that Dial surfaces the server's refusal as
// a *protocol.Error with its payload.
func TestHandshakeRefusals(t *testing.T) {
	open := servertest.Start(t, server.Options{})
	locked := servertest.Start(t, server.Options{Token: "s3cret"})
	tests := []struct {
		name    string
		url     string
		version string
		token   string
		code    int
		extra   map[string]any
	}{
		{"incompatible version", open.URL, "0.1.0", "", 4008, map[string]any{
			"server_version": protocol.Version, "client_version": "0.1.0",
			"min_supported": "0.4.0", "max_supported": "0.4.999",
		}},
		{"malformed version", open.URL, "two", "", 400, nil},
		{"missing token", locked.URL, "", "", 401, nil},
		{"wrong token", locked.URL, "", "guess", 401, nil},
		{"right token", locked.URL, "", "s3cret", 0, nil},
		{"python sdk version", open.URL, "0.4.0", "", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := sio.Dial(testCtx(t), sio.Options{URL: tt.url, Version: tt.version, Token: tt.token, Logger: servertest.Logger()})
			if tt.code == 0 {
				if err != nil {
					t.Fatal(err)
				}
				_ = c.Close()
				return
			}
			if err == nil {
				_ = c.Close()
				t.Fatal("connected, want a refusal")
			}
			var pe *protocol.Error
			if !errors.As(err, &pe) || pe.Code != tt.code {
				t.Fatalf("err %v, want a *protocol.Error %d", err, tt.code)
			}
			for k, want := range tt.extra {
				if pe.Extra[k] != want {
					t.Errorf("%s = %v, want %v", k, pe.Extra[k], want)
				}
			}
		})
	}
}

// TestJoinAckIsTheProtocolTuple checks the raw acks of server:join_office
// and server:leave_office: (true, null) on success and (false, message,
// error payload) on refusal, which the official SDK's Computer reads as
// its (success, error) tuple.
func TestJoinAckIsTheProtocolTuple(t *testing.T) {
	eachTopology(t, server.Options{}, testJoinAckIsTheProtocolTuple)
}

func testJoinAckIsTheProtocolTuple(t *testing.T, tp topology) {
	first := openPoll(t, tp.at(0))
	first.send(`42/smcp,1["server:join_office",{"role":"computer","name":"pc","office_id":"o1"}]`)
	if got := first.waitFor("43/smcp,1"); got != `43/smcp,1[true,null]` {
		t.Fatalf("join answered %s, want [true,null]", got)
	}
	second := openPoll(t, tp.at(1))
	second.send(`42/smcp,1["server:join_office",{"role":"computer","name":"pc","office_id":"o1"}]`)
	got := second.waitFor("43/smcp,1")
	var args []json.RawMessage
	if err := json.Unmarshal([]byte(strings.TrimPrefix(got, "43/smcp,1")), &args); err != nil || len(args) != 3 {
		t.Fatalf("refused join answered %s, want three values", got)
	}
	var ok bool
	var msg string
	if json.Unmarshal(args[0], &ok) != nil || ok || json.Unmarshal(args[1], &msg) != nil || msg == "" {
		t.Errorf("refused join answered %s, want (false, message, ...)", got)
	}
	pe, isErr := protocol.DecodeError(args[2])
	if !isErr || pe.Code != protocol.CodeNameTaken || pe.Message != msg {
		t.Errorf("third value %s, want the 4105 payload with the same message", args[2])
	}
	first.send(`42/smcp,2["server:leave_office",{"office_id":"o1"}]`)
	if got := first.waitFor("43/smcp,2"); got != `43/smcp,2[true,null]` {
		t.Errorf("leave answered %s, want [true,null]", got)
	}
	// Leaving an office one is not in (any more) succeeds too, as
	// upstream's Server answers.
	first.send(`42/smcp,3["server:leave_office",{"office_id":"o1"}]`, `42/smcp,4["server:leave_office",{"office_id":"elsewhere"}]`)
	for _, id := range []string{"3", "4"} {
		if got := first.waitFor("43/smcp," + id); got != `43/smcp,`+id+`[true,null]` {
			t.Errorf("leaving an office one is not in answered %s, want [true,null]", got)
		}
	}
}
