package computer

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/computer/mcpclient"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Tool listing bounds.
const (
	// toolListWait bounds how long get_tools, or a call by a bare name,
	// waits for the tools of servers still listing them; they are left
	// out, and notify:update_tool_list follows when they come.
	toolListWait = 2 * time.Second
	// Back-off between the tries of a failed tools/list.
	toolRetryMin = time.Second
	toolRetryMax = 30 * time.Second
	// toolRelistGap is the shortest time between the starts of two
	// listings of one server's tools (a flood of list_changed).
	toolRelistGap = 250 * time.Millisecond
)

type toolEntry struct {
	exposed  string
	name     string // alias ?? original
	server   string
	original string
	smcp     protocol.SMCPTool
}

// toolTable is the ExposedToolMapping shared by get_tools and tool_call.
// Each server's tools are listed on their own, so that a server slow or
// hung in tools/list delays no request to another: in the background,
// with the connection's timeout, when the server comes up, after it says
// its tools changed, and with back-off after a failure (a late first
// answer is not the last word). A listing that ends after an answer left
// its server out announces notify:update_tool_list.
type toolTable struct {
	c *Computer

	mu      sync.Mutex
	servers map[string]*serverTools
	// built is the table of the servers' current lists; nil when one
	// changed since.
	built *builtTools
}

type builtTools struct {
	entries []toolEntry
	byName  map[string]int
}

// serverTools is what the table knows of one connection's tools.
type serverTools struct {
	conn    *mcpclient.Conn
	tools   []mcp.Tool
	listed  bool          // tools hold a successful listing
	again   bool          // the tools changed during the listing in flight
	listing chan struct{} // closed when the listing in flight ends
	err     error         // why the last listing failed
	started time.Time     // when the last listing started
	backoff time.Duration
	retry   *time.Timer
	missed  bool // an answer left this server out (not listed yet)
}

func newToolTable(c *Computer) *toolTable {
	return &toolTable{c: c, servers: map[string]*serverTools{}}
}

// reset forgets the tools of server name (it came up or went down) and,
// when it is up, lists them.
func (t *toolTable) reset(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if st := t.servers[name]; st != nil && st.retry != nil {
		st.retry.Stop()
	}
	delete(t.servers, name)
	t.built = nil
	if conn, ok := t.c.mgr.Conn(name); ok {
		t.ensureLocked(t.stateLocked(conn))
	}
}

// changed handles tools/list_changed from server name: its tools are
// listed again (the current list serves until the new one is in).
func (t *toolTable) changed(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	conn, ok := t.c.mgr.Conn(name)
	if !ok {
		return
	}
	st := t.stateLocked(conn)
	if st.listing != nil {
		st.again = true
		return
	}
	if st.retry != nil { // a change notice is worth trying at once
		st.retry.Stop()
		st.retry = nil
	}
	t.startLocked(st)
}

// stateLocked returns the state of conn's server, new when the server
// reconnected since. Call with t.mu held.
func (t *toolTable) stateLocked(conn *mcpclient.Conn) *serverTools {
	st := t.servers[conn.Name()]
	if st == nil || st.conn != conn {
		if st != nil && st.retry != nil {
			st.retry.Stop()
		}
		st = &serverTools{conn: conn}
		t.servers[conn.Name()] = st
		t.built = nil
	}
	return st
}

// ensureLocked starts listing st's tools unless they are listed, being
// listed, or waiting for a retry. Call with t.mu held.
func (t *toolTable) ensureLocked(st *serverTools) {
	if st.listed || st.listing != nil || st.retry != nil {
		return
	}
	t.startLocked(st)
}

// startLocked lists st's tools in the background; a re-listing starts
// toolRelistGap after the previous listing at the earliest. Call with
// t.mu held.
func (t *toolTable) startLocked(st *serverTools) {
	done := make(chan struct{})
	st.listing = done
	wait := toolRelistGap - time.Since(st.started)
	if !st.listed {
		wait = 0
	}
	st.started = time.Now().Add(max(wait, 0))
	go func() {
		defer close(done)
		if wait > 0 {
			select {
			case <-time.After(wait):
			case <-st.conn.Done():
			}
		}
		tools, err := st.conn.ListTools(context.Background())
		t.mu.Lock()
		defer t.mu.Unlock()
		st.listing = nil
		if t.servers[st.conn.Name()] != st {
			return // the server went away or reconnected meanwhile
		}
		if err != nil {
			st.err = err
			st.backoff = min(max(2*st.backoff, toolRetryMin), toolRetryMax)
			t.c.log.Warn("tools/list failed; its tools are left out until it answers", "server", st.conn.Name(), "err", err, "retry_in", st.backoff)
			st.retry = time.AfterFunc(st.backoff, func() {
				t.mu.Lock()
				defer t.mu.Unlock()
				st.retry = nil
				if t.servers[st.conn.Name()] == st && st.listing == nil {
					t.startLocked(st)
				}
			})
			return
		}
		announce := st.missed || (st.listed && !sameTools(st.tools, tools))
		st.tools, st.listed, st.err, st.backoff, st.missed = tools, true, nil, 0, false
		t.built = nil
		if st.again {
			st.again = false
			t.startLocked(st)
		}
		if announce {
			t.c.toolsChanged.Trigger(1)
		}
	}()
}

func sameTools(a, b []mcp.Tool) bool {
	return slices.EqualFunc(a, b, func(x, y mcp.Tool) bool { return x.Name == y.Name && x.Description == y.Description })
}

// get returns the table of the live servers' tools. It waits, at most
// wait (and while ctx lasts), for the servers still listing theirs (only
// for server only, when it is not ""); those still listing then are left
// out, and announced when they are in.
func (t *toolTable) get(ctx context.Context, wait time.Duration, only string) ([]toolEntry, map[string]int) {
	return t.await(ctx, wait, func(name string, _ *serverTools) bool { return only == "" || only == name })
}

// offering returns the names of the servers whose listed tools include
// tool (by its own name, not forbidden). It waits, at most wait, only for
// first listings still under way: a server whose listing failed once may
// hang in every retry, and must not delay the others' requests each time.
func (t *toolTable) offering(ctx context.Context, wait time.Duration, tool string) map[string]bool {
	entries, _ := t.await(ctx, wait, func(_ string, st *serverTools) bool { return st.err == nil })
	out := map[string]bool{}
	for _, e := range entries {
		if e.original == tool {
			out[e.server] = true
		}
	}
	return out
}

// await returns the table once no server that waitFor selects is listing
// its tools for the first time since it came up, or after wait.
func (t *toolTable) await(ctx context.Context, wait time.Duration, waitFor func(name string, st *serverTools) bool) ([]toolEntry, map[string]int) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for {
		t.mu.Lock()
		var pending <-chan struct{}
		for _, conn := range t.c.mgr.Conns() {
			st := t.stateLocked(conn)
			t.ensureLocked(st)
			if st.listing != nil && !st.listed && waitFor(conn.Name(), st) {
				pending = st.listing
			}
		}
		if pending == nil || ctx.Err() != nil {
			b := t.buildLocked()
			for _, st := range t.servers {
				st.missed = st.missed || !st.listed
			}
			t.mu.Unlock()
			return b.entries, b.byName
		}
		t.mu.Unlock()
		select {
		case <-pending:
		case <-ctx.Done():
		}
	}
}

// unlisted reports why server's tools are not known: it is up but has not
// listed them (nil error while the first listing is under way).
func (t *toolTable) unlisted(server string) (error, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.servers[server]
	if st == nil || st.listed {
		return nil, false
	}
	return st.err, true
}

// buildLocked returns the table of the servers' listed tools, building it
// when something changed. Call with t.mu held.
func (t *toolTable) buildLocked() *builtTools {
	if t.built != nil {
		return t.built
	}
	b := &builtTools{byName: map[string]int{}}
	for _, s := range t.c.servers { // configuration order decides name clashes
		st := t.servers[s.BundleID]
		if st == nil || !st.listed {
			continue
		}
		cfg := st.conn.Config()
		for _, tool := range st.tools {
			if cfg.Forbidden(tool.Name) {
				continue
			}
			meta := cfg.MergedToolMeta(tool.Name)
			name := tool.Name
			if alias, _ := meta["alias"].(string); alias != "" {
				name = alias
			}
			exposed := s.BundleID + "__" + name
			if _, clash := b.byName[exposed]; clash {
				t.c.log.Warn("tool name clash inside one server; the later tool is not exposed", "server", s.BundleID, "tool", tool.Name, "name", exposed)
				continue
			}
			smcp, reason := smcpTool(exposed, cfg, tool)
			if reason != "" {
				t.c.log.Warn("tool metadata declared by the server dropped", "server", s.BundleID, "tool", tool.Name, "reason", reason)
			}
			b.byName[exposed] = len(b.entries)
			b.entries = append(b.entries, toolEntry{exposed: exposed, name: name, server: s.BundleID, original: tool.Name, smcp: smcp})
		}
	}
	// Short forms route too when they are unambiguous.
	owners := map[string][]int{}
	for i, e := range b.entries {
		for _, alt := range []string{e.name, e.server + "__" + e.original} {
			if _, canonical := b.byName[alt]; !canonical && !slices.Contains(owners[alt], i) {
				owners[alt] = append(owners[alt], i)
			}
		}
	}
	for alt, is := range owners {
		if len(is) == 1 {
			b.byName[alt] = is[0]
		}
	}
	t.built = b
	return b
}

// serverOf returns the server a canonical tool name "<bundle_id>__..."
// names, or "" (bundle IDs never contain "__").
func serverOf(name string) string {
	server, _, ok := strings.Cut(name, "__")
	if !ok {
		return ""
	}
	return server
}
