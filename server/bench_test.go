package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/internal/sio"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// benchFinder is the computer side of the benchmarks: a small catalog page.
func benchFinder() sio.Handler {
	docs := make([]protocol.DPEDocumentSummary, 5)
	for i := range docs {
		docs[i] = protocol.DPEDocumentSummary{
			DocRef: fmt.Sprint("doc-", i), URI: fmt.Sprint("dpe://docs/doc-", i), FileType: "pdf",
			Title: fmt.Sprint("Quarterly report ", i), PageCount: 12, Server: "docs",
			Keywords: []string{"q3", "revenue"}, LastModified: "2026-11-01T10:00:00Z",
		}
	}
	return servertest.Finder(docs...)
}

// reportLatencies adds p50, p99 and requests per second to b.
func reportLatencies(b *testing.B, lat []time.Duration, elapsed time.Duration) {
	slices.Sort(lat)
	if len(lat) == 0 {
		return
	}
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Nanoseconds()), "p99-ns")
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
}

// BenchmarkRoutedRoundTrip measures client:get_finder from an agent
// through the server to a computer and back, over loopback WebSockets,
// with 1 agent and with 50 agents at once, each in its own office with its
// own computer.
func BenchmarkRoutedRoundTrip(b *testing.B) {
	for _, agents := range []int{1, 50} {
		b.Run(fmt.Sprintf("agents=%d", agents), func(b *testing.B) {
			srv := servertest.Start(b, server.Options{})
			runRouted(b, srv.URL, srv.URL, agents)
		})
	}
}

// BenchmarkDirectCall is the floor for BenchmarkRoutedRoundTrip: the same
// request and handler in-process, JSON encoding both ways included, no
// network and no server.
func BenchmarkDirectCall(b *testing.B) {
	h := benchFinder()
	ctx := context.Background()
	limit := 5
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		req, err := json.Marshal(protocol.GetFinderReq{Agent: "bot", ReqID: fmt.Sprint(i), Computer: "pc", Keywords: []string{"q3"}, Limit: &limit})
		if err != nil {
			b.Fatal(err)
		}
		v, err := h(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		raw, err := json.Marshal(v)
		if err != nil {
			b.Fatal(err)
		}
		var ret protocol.GetFinderRet
		if err := json.Unmarshal(raw, &ret); err != nil || len(ret.Documents) != 5 {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	reportLatencies(b, lat, time.Since(start))
}

// BenchmarkConnectJoin measures a client's start: the handshake probe, the
// WebSocket connection, the namespace CONNECT and server:join_office.
func BenchmarkConnectJoin(b *testing.B) {
	srv := servertest.Start(b, server.Options{})
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c, err := sio.Dial(ctx, sio.Options{URL: srv.URL})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Call(ctx, protocol.EventJoinOffice, protocol.EnterOfficeReq{Role: "computer", Name: fmt.Sprint("pc", i), OfficeID: "o"}); err != nil {
			b.Fatal(err)
		}
		_ = c.Close()
	}
}

// BenchmarkClusterRouted compares a routed client:get_finder on one node
// without Redis ("single"), on a cluster node whose computer is on the same
// node ("same-node": the seat lookup in Redis added) and on a cluster whose
// computer is on another node ("cross-node": the request and its answer
// also cross Redis pub/sub), with 1 agent and with 50. It needs
// redis-server (skipped without it).
func BenchmarkClusterRouted(b *testing.B) {
	for _, agents := range []int{1, 50} {
		for _, mode := range []string{"single", "same-node", "cross-node"} {
			b.Run(fmt.Sprintf("%s/agents=%d", mode, agents), func(b *testing.B) {
				var agentURL, computerURL string
				if mode == "single" {
					srv := servertest.Start(b, server.Options{})
					agentURL, computerURL = srv.URL, srv.URL
				} else {
					nodes := startCluster(b, 2, server.Options{})
					agentURL, computerURL = nodes[0].URL, nodes[0].URL
					if mode == "cross-node" {
						computerURL = nodes[1].URL
					}
				}
				runRouted(b, agentURL, computerURL, agents)
			})
		}
	}
}

// runRouted has agents agents on agentURL each ask its own computer on
// computerURL for a catalog page, b.N requests in all.
func runRouted(b *testing.B, agentURL, computerURL string, agents int) {
	ctx := context.Background()
	clients := make([]*agent.Client, agents)
	for i := range clients {
		office := fmt.Sprint("bench-", i)
		servertest.NewComputer(b, computerURL, office, "pc", servertest.Handlers{protocol.EventGetFinder: benchFinder()})
		a, err := agent.Connect(ctx, agentURL, agent.Options{Name: fmt.Sprint("bot-", i)})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = a.Close() })
		if err := a.JoinOffice(ctx, office); err != nil {
			b.Fatal(err)
		}
		clients[i] = a
	}
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for _, a := range clients {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				t0 := time.Now()
				ret, err := a.GetFinder(ctx, "pc", agent.FinderQuery{Keywords: []string{"q3"}, Limit: 5})
				lat[i] = time.Since(t0)
				if err != nil || len(ret.Documents) != 5 {
					failed.Store(fmt.Sprintf("request %d: %v", i, err))
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if f := failed.Load(); f != nil {
		b.Fatal(f)
	}
	reportLatencies(b, lat, elapsed)
}
