package cluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/redistest"
	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// envInt reads a positive integer from the environment.
func envInt(key string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(key)); err == nil && v > 0 {
		return v
	}
	return def
}

// TestSoak runs SMCP_SOAK_PAIRS agents and as many computers (default
// 1,000 each) over 3 nodes on loopback for SMCP_SOAK_SECONDS (default 60):
// agent i and computer i share office i and sit on different nodes, so
// every request crosses nodes. Each agent sends requests one after the
// other; every answer must carry its own req_id, the nonce sent and the
// computer's name. It prints requests/s, p50/p99, lost and mismatched
// answers, and each node's memory before and after. Run it with make soak
// (SMCP_SOAK=1); it is not part of make test. SMCP_SOAK_SINGLE=1 runs the
// same load on one node without Redis.
func TestSoak(t *testing.T) {
	if os.Getenv("SMCP_SOAK") != "1" {
		t.Skip("the soak runs with SMCP_SOAK=1 (make soak)")
	}
	pairs := envInt("SMCP_SOAK_PAIRS", 1000)
	duration := time.Duration(envInt("SMCP_SOAK_SECONDS", 60)) * time.Second
	nodeCount := 3
	var nodes []*node
	if os.Getenv("SMCP_SOAK_SINGLE") == "1" {
		// The same load on one node without Redis, for comparison.
		nodeCount = 1
		nodes = []*node{startNode(t, testutil.Binary(t), "", 0)}
	} else {
		var r *redistest.Redis
		// Redis over TCP, as deployed (the soak restarts nothing).
		r, nodes = clusterOn(t, redistest.StartTCP(t), nodeCount, 3*time.Second)
		t.Cleanup(func() {
			if b, _ := os.ReadFile(r.LogPath()); t.Failed() && len(b) > 0 {
				t.Logf("redis log:\n%.5000s", b)
			}
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), duration+5*time.Minute)
	defer cancel()

	rss := func() []int {
		out := make([]int, len(nodes))
		for i, n := range nodes {
			out[i] = n.rssKB()
		}
		return out
	}
	idle := rss()

	// Connect and join, 64 at a time.
	agents := make([]*sio.Conn, pairs)
	var handled, reconnects atomic.Int64
	// rejoin re-joins after a reconnect, as the real roles do.
	rejoin := func(c *sio.Conn, req protocol.EnterOfficeReq) {
		c.OnReconnect(func(ctx context.Context) {
			reconnects.Add(1)
			for i := 0; i < 50 && ctx.Err() == nil; i++ {
				if _, err := c.Call(ctx, protocol.EventJoinOffice, req); err == nil {
					return
				}
				time.Sleep(200 * time.Millisecond)
			}
		})
	}
	sem := make(chan struct{}, 64)
	var wg sync.WaitGroup
	var setupErr atomic.Value
	start := time.Now()
	for i := range pairs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			office, name := fmt.Sprint("office-", i), fmt.Sprint("pc-", i)
			comp, err := sio.Dial(ctx, sio.Options{URL: nodes[(i+1)%nodeCount].URL})
			if err != nil {
				setupErr.Store(err)
				return
			}
			t.Cleanup(func() { _ = comp.Close() })
			comp.Handle(protocol.EventGetTools, func(_ context.Context, raw json.RawMessage) (any, error) {
				var req struct {
					ReqID string `json:"req_id"`
					Nonce string `json:"nonce"`
				}
				if err := json.Unmarshal(raw, &req); err != nil {
					return nil, err
				}
				handled.Add(1)
				return map[string]string{"req_id": req.ReqID, "nonce": req.Nonce, "computer": name}, nil
			})
			creq := protocol.EnterOfficeReq{Role: protocol.RoleComputer, Name: name, OfficeID: office}
			rejoin(comp, creq)
			if _, err := comp.Call(ctx, protocol.EventJoinOffice, creq); err != nil {
				setupErr.Store(err)
				return
			}
			ag, err := sio.Dial(ctx, sio.Options{URL: nodes[i%nodeCount].URL})
			if err != nil {
				setupErr.Store(err)
				return
			}
			t.Cleanup(func() { _ = ag.Close() })
			areq := protocol.EnterOfficeReq{Role: protocol.RoleAgent, Name: fmt.Sprint("bot-", i), OfficeID: office}
			rejoin(ag, areq)
			if _, err := ag.Call(ctx, protocol.EventJoinOffice, areq); err != nil {
				setupErr.Store(err)
				return
			}
			agents[i] = ag
		})
	}
	wg.Wait()
	if err := setupErr.Load(); err != nil {
		t.Fatalf("setup: %v", err)
	}
	t.Logf("%d agents and %d computers connected and joined over %d nodes in %s", pairs, pairs, nodeCount, time.Since(start).Round(time.Millisecond))
	before := rss()

	// The load: each agent sends one request after the other.
	// lost: no answer at all (the client's own timeout); refused: an error
	// answer (a computer reconnecting is not found meanwhile).
	var sent, ok, lost, refused, mismatched atomic.Int64
	lat := make([][]time.Duration, pairs)
	stop := time.Now().Add(duration)
	var errCount atomic.Int32
	// report logs the first failures; the checks after the run decide.
	report := func(format string, args ...any) {
		if errCount.Add(1) <= 20 {
			t.Logf(format, args...)
		}
	}
	start = time.Now()
	var half []int
	halfTaken := make(chan struct{})
	time.AfterFunc(duration/2, func() { half = rss(); close(halfTaken) })
	for i := range pairs {
		wg.Go(func() {
			name := fmt.Sprint("pc-", i)
			for seq := 0; time.Now().Before(stop); seq++ {
				reqID := fmt.Sprintf("r-%d-%d", i, seq)
				nonce := strconv.FormatInt(time.Now().UnixNano(), 36)
				sent.Add(1)
				t0 := time.Now()
				cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
				raw, err := agents[i].Call(cctx, protocol.EventGetTools, map[string]string{
					"agent": fmt.Sprint("bot-", i), "req_id": reqID, "computer": name, "nonce": nonce,
				})
				ccancel()
				if err != nil {
					if protocol.CodeOf(err) == protocol.CodeTimeout && strings.Contains(err.Error(), "no answer within") {
						lost.Add(1)
					} else {
						refused.Add(1)
					}
					report("request %s at %s: %v", reqID, time.Since(start).Round(time.Millisecond), err)
					continue
				}
				var ans map[string]string
				if json.Unmarshal(raw, &ans) != nil || ans["req_id"] != reqID || ans["nonce"] != nonce || ans["computer"] != name {
					mismatched.Add(1)
					report("request %s answered %s", reqID, raw)
					continue
				}
				ok.Add(1)
				lat[i] = append(lat[i], time.Since(t0))
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	after := rss()
	<-halfTaken

	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	slices.Sort(all)
	pct := func(p float64) time.Duration {
		if len(all) == 0 {
			return 0
		}
		return all[min(len(all)-1, int(float64(len(all))*p))]
	}
	t.Logf("soak: %d agents, %d computers, %d nodes, %s: %d requests sent, %d answered right, %d lost, %d mismatched, %d refused; computers handled %d; %d reconnects",
		pairs, pairs, nodeCount, took.Round(time.Millisecond), sent.Load(), ok.Load(), lost.Load(), mismatched.Load(), refused.Load(), handled.Load(), reconnects.Load())
	t.Logf("soak: %.0f requests/s, p50 %s, p99 %s, max %s",
		float64(ok.Load())/took.Seconds(), pct(0.50).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), pct(1).Round(time.Microsecond))
	for i := range nodes {
		t.Logf("soak: node %d RSS: %d kB idle, %d kB with its clients joined, %d kB half-way, %d kB after the load", i, idle[i], before[i], half[i], after[i])
	}
	if lost.Load() != 0 || mismatched.Load() != 0 {
		t.Fatalf("%d lost and %d mismatched answers, want none", lost.Load(), mismatched.Load())
	}
	if refused.Load() != 0 && reconnects.Load() == 0 {
		t.Fatalf("%d requests refused with no client reconnecting", refused.Load())
	}
	if handled.Load() != ok.Load() {
		t.Fatalf("computers handled %d requests, %d were answered right: some were handled twice or answered without being handled", handled.Load(), ok.Load())
	}
}
