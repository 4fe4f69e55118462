package computer

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	smcpserver "github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// TestFlappingServer stops the SMCP Server under a running Computer and a
// connected agent, and starts it again on the same address, five times
// with random gaps. After every restart the same agent, left to reconnect
// and re-join by itself, must get the Computer's catalog again.
func TestFlappingServer(t *testing.T) {
	srv := servertest.Start(t, smcpserver.Options{})
	addr := srv.Addr
	_, stop := socketFleet(t, srv.URL, 1, 5)
	defer stop()
	ctx := context.Background()
	ag, err := agent.Connect(ctx, srv.URL, agent.Options{Name: "a", ReconnectMin: 50 * time.Millisecond, ReconnectMax: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ag.Close() })
	if err := ag.JoinOffice(ctx, "bench"); err != nil {
		t.Fatal(err)
	}
	catalogBack := func(round int) time.Duration {
		start := time.Now()
		var ret *protocol.GetFinderRet
		var err error
		if !testutil.WaitUntil(30*time.Second, func() bool {
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			ret, err = ag.GetFinder(cctx, "pc", agent.FinderQuery{})
			cancel()
			return err == nil && ret.TotalCount == 5
		}) {
			t.Fatalf("round %d: no catalog 30 s after the restart: %v %+v", round, err, ret)
		}
		return time.Since(start)
	}
	catalogBack(0)
	rng := rand.New(rand.NewPCG(7, 7))
	for round := 1; round <= 5; round++ {
		if err := srv.Stop(); err != nil {
			t.Logf("round %d: stop: %v", round, err)
		}
		time.Sleep(time.Duration(rng.IntN(300)) * time.Millisecond)
		srv = servertest.StartAt(t, addr, smcpserver.Options{})
		t.Logf("round %d: catalog back %s after the restart", round, catalogBack(round).Round(time.Millisecond))
	}
}
