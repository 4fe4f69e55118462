package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// TestEveryClientEventIsRouted: the Server routes any client:* event to
// the computer named in it, the 0.4 line's (get_resources, get_skills,
// get_skill, get_blob) and ones it has never heard of alike; the payload
// arrives as sent (the agent field stamped).
func TestEveryClientEventIsRouted(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	events := []string{
		protocol.EventGetResources, protocol.EventGetSkills, protocol.EventGetSkill, protocol.EventGetBlob, "client:bogus",
	}
	h := servertest.Handlers{}
	for _, ev := range events {
		h[ev] = echo(ev)
	}
	servertest.NewComputer(t, srv.URL, "o1", "pc", h)
	bot := dial(t, srv.URL)
	join(t, bot, protocol.RoleAgent, "bot", "o1")
	for _, ev := range events {
		payload := `{"agent":"bot","req_id":"r1","computer":"pc","mcp_server":"docs","cursor":null,"extra":[1,{"x":"y"}]}`
		raw, err := bot.Call(testCtx(t), ev, json.RawMessage(payload))
		if err != nil {
			t.Fatalf("%s: %v", ev, err)
		}
		var ans struct {
			Handled string          `json:"handled"`
			Got     json.RawMessage `json:"got"`
		}
		if err := json.Unmarshal(raw, &ans); err != nil || ans.Handled != ev || string(ans.Got) != payload {
			t.Errorf("%s answered %s (%v), want the computer's echo of %s", ev, raw, err, payload)
		}
	}
}

// TestClientEventTheComputerLacks: a client:* event the computer has no
// handler for is answered at once, not left to the agent's timeout.
func TestClientEventTheComputerLacks(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	servertest.NewComputer(t, srv.URL, "o1", "pc", servertest.Handlers{})
	bot := dial(t, srv.URL)
	join(t, bot, protocol.RoleAgent, "bot", "o1")
	start := time.Now()
	_, err := bot.Call(testCtx(t), "client:bogus", protocol.ComputerCall{Agent: "bot", ReqID: "1", Computer: "pc"})
	if protocol.CodeOf(err) != protocol.CodeNotFound || time.Since(start) > wait {
		t.Fatalf("answered %v", err)
	}
}

// TestUnknownEventIsAnsweredAtOnce: an event that is neither a server:*
// event the Server serves nor a client:* one gets a 404 naming it at once.
func TestUnknownEventIsAnsweredAtOnce(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	bot := dial(t, srv.URL)
	for _, ev := range []string{"server:bogus", "notify:enter_office", "hello"} {
		_, err := bot.Call(testCtx(t), ev, map[string]any{})
		if protocol.CodeOf(err) != protocol.CodeNotFound || !strings.Contains(err.Error(), `unknown event "`+ev+`"`) {
			t.Errorf("%s answered %v", ev, err)
		}
	}
}

// TestUpdateSkillsIsRelayed: a computer's server:update_skills reaches the
// rest of its office as notify:update_skills naming it.
func TestUpdateSkillsIsRelayed(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	pc := servertest.NewComputer(t, srv.URL, "o1", "pc", servertest.Handlers{})
	bot := dial(t, srv.URL)
	got := make(chan string, 4)
	bot.Listen(protocol.NotifyUpdateSkills, func(raw json.RawMessage) { got <- string(raw) })
	join(t, bot, protocol.RoleAgent, "bot", "o1")
	if err := pc.Update(testCtx(t), protocol.EventUpdateSkills); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-got:
		if n != `{"computer":"pc"}` {
			t.Fatalf("notify:update_skills %s", n)
		}
	case <-time.After(wait):
		t.Fatal("no notify:update_skills")
	}
}
