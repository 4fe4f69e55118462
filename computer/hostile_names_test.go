package computer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/computer/resindex"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// TestHostileNamesAndURIs runs a server that lists URIs breaking the
// dpe:// rules or carrying control characters, and documents named with
// escape sequences, NUL, invalid UTF-8 and 10 KB of text: the bad URIs
// stay out of the catalog (logged), the names are bounded, and
// `smcp-browse ls` prints them safely as a table and as JSON.
func TestHostileNamesAndURIs(t *testing.T) {
	t.Parallel()
	r := startHostile(t, hostileSetup{spec: "badnames"})
	var ret *protocol.GetFinderRet
	var err error
	if !testutil.WaitUntil(30*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ret, err = r.agent.GetFinder(ctx, "pc", agent.FinderQuery{Limit: 100})
		cancel()
		return err == nil && ret.TotalCount == r.nGood+4 && settled(ret)
	}) {
		t.Fatalf("catalog: %v %+v", err, ret)
	}
	for _, d := range ret.Documents {
		if d.Server != "evil" {
			continue
		}
		switch {
		case strings.Contains(d.URI, "..") || strings.ContainsAny(d.URI, "\x00\x1b") || !utf8.ValidString(d.URI) || strings.Contains(d.URI, "%ff"):
			t.Errorf("the catalog took %q", d.URI)
		case len(d.Title) > resindex.MaxTitleBytes+len("…") || len(d.Summary) > resindex.MaxSummaryBytes+len("…"):
			t.Errorf("%s: a title of %d bytes, a summary of %d", d.URI, len(d.Title), len(d.Summary))
		}
	}
	if log := r.stderr.String(); !strings.Contains(log, "listed entries rejected") || !strings.Contains(log, "entries=6") {
		t.Errorf("the 6 rejected entries were not logged:\n%s", tail(log, 20))
	}
	r.goodServed(t)
	r.inOffice(t)

	// ls joins the office as its agent: the test's agent leaves first.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.agent.LeaveOffice(ctx); err != nil {
		t.Fatal(err)
	}
	ls := func(extra ...string) (string, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		cmd := exec.Command(testutil.Binary(t), append([]string{"ls", "--server", r.url, "--office", hostileOffice, "--computer", "pc", "--limit", "100"}, extra...)...)
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("ls %v: %v\n%s", extra, err, errOut.String())
		}
		return out.String(), errOut.String()
	}
	clean := func(what, s string) {
		t.Helper()
		if strings.ContainsAny(s, "\x00\x07\x1b\u009b") || !utf8.ValidString(s) {
			t.Errorf("%s carries a control character or invalid UTF-8: %q", what, s)
		}
	}
	table, errOut := ls()
	clean("ls", table+errOut)
	// Into a pipe ls writes each cell whole (a script gets the path it
	// can open): a line is as long as the catalog's own bounds on a
	// title and a path allow, no longer.
	most := resindex.MaxTitleBytes + resindex.MaxPathBytes + 400
	for i, l := range strings.Split(table, "\n") {
		if w := ansi.StringWidth(l); w > most {
			t.Errorf("ls line %d is %d cells wide (at most %d)", i, w, most)
		}
	}
	if !strings.Contains(table, "Title") || !strings.Contains(table, "long name") {
		t.Errorf("ls lacks the hostile names, shown safely:\n%s", table)
	}
	raw, errOut := ls("--json")
	clean("ls --json", raw+errOut)
	var got protocol.GetFinderRet
	if err := json.Unmarshal([]byte(raw), &got); err != nil || got.TotalCount != r.nGood+4 {
		t.Errorf("ls --json: %v, %d documents", err, got.TotalCount)
	}
}
