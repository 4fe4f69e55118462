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

	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// Shape of BenchmarkRelayVsNode: 50 agents, each with its own computer in
// its own office, driven by two Node processes of the npm socket.io-client.
const (
	relayPairs    = 50
	relayDrivers  = 2
	relayWarmup   = 2 * time.Second
	relayMeasure  = 5 * time.Second
	relayRounds   = 3
	clockTicksSec = 100 // USER_HZ: the unit of utime/stime in /proc/PID/stat
)

// relayRun is one measured run against one server.
type relayRun struct {
	rps        float64
	p50, p99   time.Duration
	cpuPerReq  time.Duration // server CPU time (user+system) per routed request
	count, err int
}

// BenchmarkRelayVsNode starts our Server (in this process) and a minimal SMCP relay
// on the reference Node socket.io server (test/node/relay.mjs), drives
// each with the same npm socket.io-client load (test/node/bench.mjs), in
// alternating rounds, and reports our Server's requests/s, p99 and CPU per
// routed request as ratios of the Node relay's (median of the rounds).
// The issue-12 target: rps ≥ 1.3×, p99 ≤ 1×, CPU/request ≤ 0.6×.
func BenchmarkRelayVsNode(b *testing.B) {
	if testing.Short() {
		b.Skip("starts two servers and four Node processes")
	}
	modules := testutil.NodeModules(b)
	nodeDir := filepath.Dir(modules)
	// Our Server runs in this process, so that -cpuprofile profiles it; its
	// CPU time is this process's (the drivers are separate processes).
	goSrv := servertest.Start(b, server.Options{})
	nodeURL, nodePID := startNodeRelay(b, nodeDir)
	targets := []struct {
		name string
		url  string
		pid  int
	}{{"node", nodeURL, nodePID}, {"go", goSrv.URL, os.Getpid()}}
	runs := map[string][]relayRun{}
	for range b.N {
		for round := range relayRounds {
			// Each round measures both, in turn, the first one changing
			// from round to round: a load that comes or goes on a shared
			// machine then favours neither.
			order := slices.Clone(targets)
			if round%2 == 1 {
				slices.Reverse(order)
			}
			for _, tg := range order {
				r := driveRelay(b, nodeDir, tg.url, tg.pid, round)
				b.Logf("round %d %-4s %8.0f req/s  p50 %6s  p99 %6s  cpu/req %6s  (%d requests, %d errors; load %s)",
					round, tg.name, r.rps, r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond),
					r.cpuPerReq.Round(time.Microsecond), r.count, r.err, loadAvg())
				runs[tg.name] = append(runs[tg.name], r)
			}
		}
	}
	med := func(name string, f func(relayRun) float64) float64 {
		var v []float64
		for _, r := range runs[name] {
			v = append(v, f(r))
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	rps := func(r relayRun) float64 { return r.rps }
	p99 := func(r relayRun) float64 { return float64(r.p99) }
	cpu := func(r relayRun) float64 { return float64(r.cpuPerReq) }
	b.ReportMetric(med("go", rps), "go-req/s")
	b.ReportMetric(med("node", rps), "node-req/s")
	b.ReportMetric(med("go", rps)/med("node", rps), "rps-ratio")
	b.ReportMetric(med("go", p99)/med("node", p99), "p99-ratio")
	b.ReportMetric(med("go", cpu)/med("node", cpu), "cpu/req-ratio")
	b.ReportMetric(med("go", cpu)/1e3, "go-cpu-µs/req")
	b.ReportMetric(med("node", cpu)/1e3, "node-cpu-µs/req")
	fmt.Fprintf(os.Stderr, "relay vs node (median of %d rounds, %d agents): rps %.2fx, p99 %.2fx, cpu/request %.2fx (go %.0f µs, node %.0f µs)\n",
		relayRounds, relayPairs, med("go", rps)/med("node", rps), med("go", p99)/med("node", p99),
		med("go", cpu)/med("node", cpu), med("go", cpu)/1e3, med("node", cpu)/1e3)
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

// driveRelay runs the drivers against url once and measures the server
// process pid meanwhile. Each round uses its own offices.
func driveRelay(b *testing.B, dir, url string, pid, round int) relayRun {
	type driver struct {
		cmd *exec.Cmd
		in  io.WriteCloser
		out *bufio.Reader
	}
	per := relayPairs / relayDrivers
	ds := make([]driver, relayDrivers)
	for i := range ds {
		first := round*relayPairs + i*per
		cmd := exec.Command("node", "bench.mjs", url, protocol.Version, strconv.Itoa(first), strconv.Itoa(per),
			strconv.FormatFloat(relayWarmup.Seconds(), 'f', -1, 64), strconv.FormatFloat(relayMeasure.Seconds(), 'f', -1, 64))
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
		ds[i] = driver{cmd, in, bufio.NewReaderSize(out, 1<<20)}
	}
	defer func() {
		for _, d := range ds {
			_ = d.cmd.Process.Kill()
			_ = d.cmd.Wait()
		}
	}()
	for _, d := range ds {
		if line, err := d.out.ReadString('\n'); err != nil || strings.TrimSpace(line) != "ready" {
			b.Fatalf("bench.mjs against %s: %q %v", url, line, err)
		}
	}
	for _, d := range ds {
		_, _ = io.WriteString(d.in, "go\n")
	}
	time.Sleep(relayWarmup)
	cpu0 := cpuTime(b, pid)
	time.Sleep(relayMeasure)
	cpu1 := cpuTime(b, pid)
	var run relayRun
	var lat []int
	for _, d := range ds {
		line, err := d.out.ReadString('\n')
		if err != nil {
			b.Fatalf("bench.mjs result: %v", err)
		}
		var res struct {
			Count  int   `json:"count"`
			Errors int   `json:"errors"`
			LatUS  []int `json:"lat_us"`
		}
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			b.Fatalf("bench.mjs result %.200q: %v", line, err)
		}
		run.count += res.Count
		run.err += res.Errors
		lat = append(lat, res.LatUS...)
	}
	if run.err > 0 || run.count == 0 {
		b.Fatalf("%s: %d requests, %d errors", url, run.count, run.err)
	}
	slices.Sort(lat)
	run.rps = float64(run.count) / relayMeasure.Seconds()
	run.p50 = time.Duration(lat[len(lat)/2]) * time.Microsecond
	run.p99 = time.Duration(lat[len(lat)*99/100]) * time.Microsecond
	run.cpuPerReq = (cpu1 - cpu0) / time.Duration(run.count)
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
