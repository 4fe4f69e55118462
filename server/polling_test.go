package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// TestPollingSessionSurvivesRapidPolls drives one long-polling session
// through many request/answer rounds, each poll sent the moment the last
// answer arrives, as a polling-only client does. The engine once cleared a
// new poll with the cleanup of the previous one, and the next answer then
// failed and closed the session.
func TestPollingSessionSurvivesRapidPolls(t *testing.T) {
	srv := servertest.Start(t, server.Options{})
	p := openPoll(t, srv.URL)
	p.send(`42/smcp,1["server:join_office",{"role":"agent","name":"poller","office_id":"o1"}]`)
	p.waitFor("43/smcp,1")
	for i := 2; i < 300; i++ {
		p.send(fmt.Sprintf(`42/smcp,%d["server:list_room",{"agent":"poller","req_id":"r%d","office_id":"o1"}]`, i, i))
		got := p.waitFor(fmt.Sprintf("43/smcp,%d", i))
		if !strings.Contains(got, `"name":"poller"`) {
			t.Fatalf("round %d answered %s", i, got)
		}
	}
}
