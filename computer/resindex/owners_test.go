package resindex

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// TestFirstListerOwnsAHost: a host belongs to the first source that lists
// it; another source's entries under it (documents and windows) are
// refused, whatever its name, and stay refused when it is re-added (a
// restart) and while the owner is down.
func TestFirstListerOwnsAHost(t *testing.T) {
	ctx := context.Background()
	var logs bytes.Buffer
	a := New(Options{Debounce: 20 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	t.Cleanup(a.Close)
	good := newFake("docs.good", "a", "b")
	good.uris = append(good.uris, "window://docs.good/main")
	a.AddSource(ctx, "good", good)
	// "evil" sorts first: before ownership, it was the one reads went to.
	evil := newFake("evil.host", "own")
	evil.uris = append(evil.uris, "dpe://docs.good/a", "dpe://docs.good/stolen", "dpe://docs.good/a/pages/0",
		"window://docs.good/main", "window://docs.good/other")
	check := func(when string, goodUp bool) {
		t.Helper()
		want := map[string]string{"dpe://docs.good/a": "good", "dpe://docs.good/stolen": "good", "dpe://docs.good": "good",
			"window://docs.good/main": "good", "window://docs.good/other": "good", "dpe://evil.host/own": "evil"}
		for uri, owner := range want {
			got, ok := a.Owner(ctx, uri)
			if !goodUp && owner == "good" {
				if ok {
					t.Errorf("%s: Owner(%q) = %q while its owner is down, want none", when, uri, got)
				}
				continue
			}
			if !ok || got != owner {
				t.Errorf("%s: Owner(%q) = %q %v, want %q", when, uri, got, ok, owner)
			}
		}
		cat := a.Catalog(ctx)
		for _, d := range cat.Documents {
			if d.Server == "evil" && d.URI != "dpe://evil.host/own" {
				t.Errorf("%s: catalog has the impostor's %s", when, d.URI)
			}
		}
		wantRefused := []protocol.RefusedHost{{MCPServer: "evil", Host: "docs.good", Owner: "good", Documents: 3}}
		if len(cat.Refused) != 1 || cat.Refused[0] != wantRefused[0] {
			t.Errorf("%s: refused = %+v, want %+v", when, cat.Refused, wantRefused)
		}
		for _, w := range a.Windows(ctx) {
			if w.Server == "evil" {
				t.Errorf("%s: the impostor's window %s is on the desktop", when, w.URI)
			}
		}
		for _, u := range evil.lastSubs() {
			if strings.Contains(u, "docs.good") {
				t.Errorf("%s: the impostor is subscribed to %s", when, u)
			}
		}
	}
	a.AddSource(ctx, "evil", evil)
	check("impostor listed", true)
	a.AddSource(ctx, "evil", evil) // restarted
	check("impostor restarted", true)
	a.RemoveSource("good")
	a.ResourceListChanged("evil")
	a.AddSource(ctx, "evil", evil)
	check("owner down", false)
	a.AddSource(ctx, "good", good)
	check("owner back", true)
	// One line per host (dpe:// and window://) and impostor incarnation.
	if n := strings.Count(logs.String(), "owned by another server refused"); n != 2*3 {
		t.Errorf("refusals logged %d times, want once per host and impostor incarnation (6):\n%s", n, logs.String())
	}
	evil.mu.Lock()
	defer evil.mu.Unlock()
	for _, u := range evil.readURIs {
		if u != "dpe://evil.host/own" {
			t.Errorf("the impostor was asked to read %s", u)
		}
	}
}

// TestConfiguredHostOwner: a host given to a server in Options.Hosts is
// its own even when another lists it first.
func TestConfiguredHostOwner(t *testing.T) {
	ctx := context.Background()
	a := New(Options{Hosts: map[string]string{"docs.good": "good"}})
	t.Cleanup(a.Close)
	evil := newFake("docs.good", "stolen")
	a.AddSource(ctx, "evil", evil)
	if got, ok := a.Owner(ctx, "dpe://docs.good/stolen"); ok {
		t.Errorf("Owner before the owner is up = %q, want none", got)
	}
	a.AddSource(ctx, "good", newFake("docs.good", "a"))
	for _, uri := range []string{"dpe://docs.good/stolen", "dpe://docs.good/a"} {
		if got, ok := a.Owner(ctx, uri); !ok || got != "good" {
			t.Errorf("Owner(%q) = %q %v, want good", uri, got, ok)
		}
	}
	if docs := uris(a.Documents(ctx)); len(docs) != 1 || docs[0] != "dpe://docs.good/a" {
		t.Errorf("documents = %v", docs)
	}
}
