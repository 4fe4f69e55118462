package computer_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/computer/resindex"
)

// cpu returns the CPU time the Computer process has used.
func (r *hostileRig) cpu(t *testing.T) time.Duration {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(r.cmd.Process.Pid) + "/stat")
	if err != nil {
		t.Fatalf("read the computer's /proc stat: %v", err)
	}
	// Fields after the command's closing parenthesis; utime and stime are
	// the 14th and 15th of the whole line, in clock ticks (100 a second).
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

func (n *notes) counts() (finder, tools int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.finder, n.tools
}

// TestNotificationFlood runs a server that sends 5,000 notifications a
// second (resources list_changed and updated, tools list_changed): the
// Computer lists it again at a bounded rate, passes changes on to the
// agent debounced, logs the offender, and keeps serving the good server.
// Its CPU use is logged.
func TestNotificationFlood(t *testing.T) {
	r := startHostile(t, hostileSetup{spec: "flood=5000"})
	r.waitTrace(t, "notifications/initialized", 0, 10*time.Second)
	time.Sleep(time.Second) // the flood is under way
	const window = 5 * time.Second
	lists, cpu0 := r.count("resources/list"), r.cpu(t)
	finder0, tools0 := r.notes.counts()
	start := time.Now()
	r.goodServed(t)
	if left := window - time.Since(start); left > 0 {
		time.Sleep(left)
	}
	elapsed := time.Since(start)
	relists := r.count("resources/list") - lists
	finder, tools := r.notes.counts()
	cpu := r.cpu(t) - cpu0
	t.Logf("under a flood of 5,000 notifications/s for %v: computer CPU %v (%.0f%% of a core), %d re-listings of the flooding server, %d notify:update_finder, %d notify:update_tool_list",
		elapsed.Round(time.Millisecond), cpu, 100*cpu.Seconds()/elapsed.Seconds(), relists, finder-finder0, tools-tools0)
	// Bounds that hold by construction (rate cap, debounce), not timings.
	if max := int(elapsed/resindex.DefaultRelistGap) + 2; relists > max {
		t.Errorf("%d re-listings in %v, want at most %d (one per %v)", relists, elapsed, max, resindex.DefaultRelistGap)
	}
	if max := int(elapsed/resindex.DefaultDebounce) + 2; finder-finder0 > max || tools-tools0 > max {
		t.Errorf("%d notify:update_finder and %d notify:update_tool_list in %v, want at most %d each", finder-finder0, tools-tools0, elapsed, max)
	}
	if !strings.Contains(r.stderr.String(), "floods") {
		t.Errorf("the flooding server was not logged")
	}
	r.goodServed(t)
	r.inOffice(t)
	res, err := r.agent.CallTool(context.Background(), "pc", "evil__hello", nil, 10*time.Second)
	if err != nil || res.IsError || res.Text() != "hello from hostile" {
		t.Errorf("a tool call to the flooding server: %v %+v", err, res)
	}
}
