package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/redistest"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// Shape of the steady-state comparisons: pairs of an agent and its own
// computer, each pair alone in its office, driven by two Node processes of
// the npm socket.io-client (test/node/bench.mjs); every agent sends
// relayWarmup requests, then relayMeasure measured ones, one at a time.
const (
	relayDrivers  = 2
	relayWarmup   = 50
	relayMeasure  = 600
	relayRounds   = 3
	clockTicksSec = 100 // USER_HZ: the unit of utime/stime in /proc/PID/stat
)

// relayTarget is one server measured: where its agents and computers
// connect, and the processes whose CPU time is its cost.
type relayTarget struct {
	name                  string
	agentURL, computerURL string
	pid                   int // the server (our Server runs in this process)
	redisPID              int // the cluster's redis-server, 0 for none
}

// relayRun is one measured run against one target.
type relayRun struct {
	rps        float64
	p50, p99   time.Duration
	mean       time.Duration // latency
	serverCPU  time.Duration // per request, user+system
	redisCPU   time.Duration // per request
	clientCPU  time.Duration // per request, the drivers' (agents and computers)
	count, err int
}

// BenchmarkRelayVsNode compares our Server (in this process, so that
// -cpuprofile profiles it) with a minimal SMCP relay on the reference Node
// socket.io server (test/node/relay.mjs) at steady state: 50 agents, 600
// routed client:get_finder each after 50 of warm-up, the same npm
// socket.io-client load, 3 rounds alternating which server goes first,
// medians. It prints the server's CPU per request, p50/p99, requests/s and
// the client's own CPU per request for both, and our figures as ratios of
// Node's. Targets (issue 25): server CPU/request ≤ 0.6×, p99 ≤ 1×.
func BenchmarkRelayVsNode(b *testing.B) { benchVsNode(b, 50, 1) }

// BenchmarkRelayVsNodePipelined is BenchmarkRelayVsNode with 10 agents
// that keep 8 requests in flight each: frames for one connection come
// together, where writes can be coalesced.
func BenchmarkRelayVsNodePipelined(b *testing.B) { benchVsNode(b, 10, 8) }

// benchVsNode runs our Server and the Node relay with pairs pairs and
// inflight requests in flight per agent, and reports our figures and their
// ratios to Node's.
func benchVsNode(b *testing.B, pairs, inflight int) {
	if testing.Short() {
		b.Skip("starts two servers and four Node processes")
	}
	dir := filepath.Dir(testutil.NodeModules(b))
	goSrv := servertest.Start(b, server.Options{})
	nodeURL, nodePID := startNodeRelay(b, dir)
	targets := []relayTarget{
		{name: "node", agentURL: nodeURL, computerURL: nodeURL, pid: nodePID},
		{name: "go", agentURL: goSrv.URL, computerURL: goSrv.URL, pid: os.Getpid()},
	}
	for range b.N {
		reportVsNode(b, compareRelays(b, dir, targets, pairs, inflight))
	}
}

// reportVsNode reports our figures and their ratios to Node's.
func reportVsNode(b *testing.B, med map[string]relayRun) {
	goR, nodeR := med["go"], med["node"]
	b.ReportMetric(goR.rps, "go-req/s")
	b.ReportMetric(nodeR.rps, "node-req/s")
	b.ReportMetric(float64(goR.serverCPU.Nanoseconds())/1e3, "go-cpu-µs/req")
	b.ReportMetric(float64(nodeR.serverCPU.Nanoseconds())/1e3, "node-cpu-µs/req")
	b.ReportMetric(ratio(goR.serverCPU, nodeR.serverCPU), "cpu/req-ratio")
	b.ReportMetric(ratio(goR.p50, nodeR.p50), "p50-ratio")
	b.ReportMetric(ratio(goR.p99, nodeR.p99), "p99-ratio")
	b.ReportMetric(ratio(goR.clientCPU, nodeR.clientCPU), "client-cpu/req-ratio")
}

// BenchmarkRelayCrossNode measures what crossing nodes costs: two Server
// nodes in this process sharing a real redis-server, 20 pairs whose agent
// and computer are on the same node ("same-node") or on the two nodes
// ("cross-node"), at steady state as BenchmarkRelayVsNode. The server CPU
// is both nodes' (this process); Redis's is printed apart. Targets (issue
// 25): cross-node server CPU/request ≤ 1.5× same-node, p50 ≤ 1.3×.
func BenchmarkRelayCrossNode(b *testing.B) {
	if testing.Short() {
		b.Skip("starts a Redis, two Server nodes and Node processes")
	}
	dir := filepath.Dir(testutil.NodeModules(b))
	r := redistest.StartTCP(b) // Redis over TCP, as deployed
	nodes := make([]*servertest.Server, 2)
	for i := range nodes {
		nodes[i] = servertest.Start(b, server.Options{Redis: r.URL})
	}
	redisPID, _ := strconv.Atoi(r.PID())
	targets := []relayTarget{
		{name: "same-node", agentURL: nodes[0].URL, computerURL: nodes[0].URL, pid: os.Getpid(), redisPID: redisPID},
		{name: "cross-node", agentURL: nodes[0].URL, computerURL: nodes[1].URL, pid: os.Getpid(), redisPID: redisPID},
	}
	for range b.N {
		med := compareRelays(b, dir, targets, 20, 1)
		same, cross := med["same-node"], med["cross-node"]
		b.ReportMetric(float64(same.serverCPU.Nanoseconds())/1e3, "same-cpu-µs/req")
		b.ReportMetric(float64(cross.serverCPU.Nanoseconds())/1e3, "cross-cpu-µs/req")
		b.ReportMetric(ratio(cross.serverCPU, same.serverCPU), "cpu/req-ratio")
		b.ReportMetric(ratio(cross.serverCPU+cross.redisCPU, same.serverCPU+same.redisCPU), "cpu+redis/req-ratio")
		b.ReportMetric(ratio(cross.p50, same.p50), "p50-ratio")
		b.ReportMetric(ratio(cross.p99, same.p99), "p99-ratio")
		// With the cores saturated, latency follows the CPU every process
		// spends per request (Little's law: mean = in flight / throughput).
		b.ReportMetric(ratio(cross.mean, same.mean), "mean-ratio")
		b.ReportMetric(ratio(cross.serverCPU+cross.redisCPU+cross.clientCPU, same.serverCPU+same.redisCPU+same.clientCPU), "all-cpu/req-ratio")
	}
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

// compareRelays drives every target relayRounds times with pairs pairs, in
// rounds that alternate which target goes first (a load that comes or goes
// on a shared machine then favours neither), prints each run and the
// medians with each target's ratios to the first one, and returns the
// medians by target name.
func compareRelays(b *testing.B, dir string, targets []relayTarget, pairs, inflight int) map[string]relayRun {
	runs := map[string][]relayRun{}
	for round := range relayRounds {
		order := slices.Clone(targets)
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for i, tg := range order {
			first := (round*len(targets) + i) * pairs // each run has offices of its own
			r := driveRelay(b, dir, tg, first, pairs, inflight)
			b.Logf("round %d %-10s %s  (%d requests; load %s)", round, tg.name, r, r.count, loadAvg())
			runs[tg.name] = append(runs[tg.name], r)
		}
	}
	med := map[string]relayRun{}
	for name, rs := range runs {
		med[name] = relayRun{
			rps:       median(rs, func(r relayRun) float64 { return r.rps }),
			p50:       time.Duration(median(rs, func(r relayRun) float64 { return float64(r.p50) })),
			p99:       time.Duration(median(rs, func(r relayRun) float64 { return float64(r.p99) })),
			mean:      time.Duration(median(rs, func(r relayRun) float64 { return float64(r.mean) })),
			serverCPU: time.Duration(median(rs, func(r relayRun) float64 { return float64(r.serverCPU) })),
			redisCPU:  time.Duration(median(rs, func(r relayRun) float64 { return float64(r.redisCPU) })),
			clientCPU: time.Duration(median(rs, func(r relayRun) float64 { return float64(r.clientCPU) })),
		}
	}
	ref := med[targets[0].name]
	var out strings.Builder
	fmt.Fprintf(&out, "steady state, %d agents × %d requests (%d in flight each) after %d of warm-up, median of %d rounds:\n",
		pairs, relayMeasure, inflight, relayWarmup, relayRounds)
	for _, tg := range targets {
		m := med[tg.name]
		fmt.Fprintf(&out, "  %-10s %s\n", tg.name, m)
		if tg.name != targets[0].name {
			fmt.Fprintf(&out, "  %-10s server cpu/req %.2f×  p50 %.2f×  p99 %.2f×  req/s %.2f×  client cpu/req %.2f×\n",
				tg.name+"/"+targets[0].name, ratio(m.serverCPU, ref.serverCPU), ratio(m.p50, ref.p50), ratio(m.p99, ref.p99),
				m.rps/ref.rps, ratio(m.clientCPU, ref.clientCPU))
		}
	}
	fmt.Fprint(os.Stderr, out.String())
	return med
}

func (r relayRun) String() string {
	s := fmt.Sprintf("server cpu/req %6s  p50 %7s  p99 %7s  mean %7s  %6.0f req/s  client cpu/req %6s",
		r.serverCPU.Round(time.Microsecond), r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond),
		r.mean.Round(time.Microsecond), r.rps, r.clientCPU.Round(time.Microsecond))
	if r.redisCPU > 0 {
		s += fmt.Sprintf("  redis cpu/req %s", r.redisCPU.Round(time.Microsecond))
	}
	return s
}

func median(rs []relayRun, f func(relayRun) float64) float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// startNodeRelay runs relay.mjs and returns its URL and pid.
func startNodeRelay(b *testing.B, dir string) (string, int) {
	cmd := exec.Command("node", "relay.mjs")
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening on ") {
		b.Fatalf("node relay.mjs: %q %v", line, err)
	}
	return strings.TrimSpace(strings.TrimPrefix(line, "listening on ")), cmd.Process.Pid
}

// relayDriver is one bench.mjs process.
type relayDriver struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// expect reads the driver's next line and fails b unless it is want.
func (d relayDriver) expect(b *testing.B, want string) {
	if line, err := d.out.ReadString('\n'); err != nil || strings.TrimSpace(line) != want {
		b.Fatalf("bench.mjs: %q %v, want %q", line, err, want)
	}
}

// driveRelay runs the drivers against tg once, pairs pairs numbered from
// first, and measures the server's, Redis's and the drivers' CPU time
// over the measured requests.
func driveRelay(b *testing.B, dir string, tg relayTarget, first, pairs, inflight int) relayRun {
	per := pairs / relayDrivers
	ds := make([]relayDriver, relayDrivers)
	for i := range ds {
		cmd := exec.Command("node", "bench.mjs", tg.agentURL, tg.computerURL, protocol.Version,
			strconv.Itoa(first+i*per), strconv.Itoa(per), strconv.Itoa(relayWarmup), strconv.Itoa(relayMeasure), strconv.Itoa(inflight))
		cmd.Dir = dir
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		ds[i] = relayDriver{cmd, in, bufio.NewReaderSize(out, 1<<20)}
	}
	defer func() {
		for _, d := range ds {
			_ = d.cmd.Process.Kill()
			_ = d.cmd.Wait()
		}
	}()
	for _, d := range ds {
		d.expect(b, "ready")
	}
	for _, d := range ds {
		_, _ = io.WriteString(d.in, "warm up\n")
	}
	for _, d := range ds {
		d.expect(b, "warm")
	}
	cpu := func() (server, redis, client time.Duration) {
		server = cpuTime(b, tg.pid)
		if tg.redisPID != 0 {
			redis = cpuTime(b, tg.redisPID)
		}
		for _, d := range ds {
			client += cpuTime(b, d.cmd.Process.Pid)
		}
		return server, redis, client
	}
	s0, r0, c0 := cpu()
	for _, d := range ds {
		_, _ = io.WriteString(d.in, "measure\n")
	}
	var run relayRun
	var lat []int
	var wall int
	for _, d := range ds {
		line, err := d.out.ReadString('\n')
		if err != nil {
			b.Fatalf("bench.mjs result: %v", err)
		}
		var res struct {
			Count  int   `json:"count"`
			Errors int   `json:"errors"`
			WallUS int   `json:"wall_us"`
			LatUS  []int `json:"lat_us"`
		}
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			b.Fatalf("bench.mjs result %.200q: %v", line, err)
		}
		run.count += res.Count
		run.err += res.Errors
		wall = max(wall, res.WallUS)
		lat = append(lat, res.LatUS...)
	}
	s1, r1, c1 := cpu()
	if run.err > 0 || run.count != pairs*relayMeasure {
		b.Fatalf("%s: %d requests answered, %d errors, want %d answered", tg.name, run.count, run.err, pairs*relayMeasure)
	}
	slices.Sort(lat)
	n := time.Duration(run.count)
	run.rps = float64(run.count) / (float64(wall) / 1e6)
	run.p50 = time.Duration(lat[len(lat)/2]) * time.Microsecond
	run.p99 = time.Duration(lat[len(lat)*99/100]) * time.Microsecond
	sum := 0
	for _, l := range lat {
		sum += l
	}
	run.mean = time.Duration(sum/len(lat)) * time.Microsecond
	run.serverCPU, run.redisCPU, run.clientCPU = (s1-s0)/n, (r1-r0)/n, (c1-c0)/n
	return run
}

// loadAvg is the machine's 1-minute load average, for the log: the
// figures of a loaded machine are not those of a quiet one.
func loadAvg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(raw))[0]
}

// cpuTime returns the user+system CPU time a process has used so far.
func cpuTime(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatalf("cpu time of %d: %v", pid, err)
	}
	// Fields after the command name (which may hold spaces) start at ")".
	fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / clockTicksSec
}
