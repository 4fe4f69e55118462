package desktop

import (
	"cmp"
	"log/slog"
	"slices"
	"strings"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// Window is one window:// resource as listed and read from an MCP server.
type Window struct {
	Server   string // the MCP server's bundle_id
	URI      string // as listed
	Contents []protocol.ResourceContents
	// Priority is Resource.annotations.priority and Audience
	// Resource.annotations.audience as the server sent them; Fullscreen is
	// Resource._meta.fullscreen, any JSON value (nil: not given).
	Priority   *float64
	Audience   []string
	Fullscreen any
}

// Organize builds a Computer's desktop from its windows by desktop.md:
// drop invalid, empty and blob-only windows; group by server, servers
// ordered by tool-call history (most recent first) then by name; inside a
// server priority descending (ties in input order); per server only the
// first fullscreen window when there is one; cut to size (nil: no limit,
// <= 0: empty); render "identifier\n\nbody", the identifier being the URI
// without its query.
//
// Priority is annotations.priority, a number in [0, 1] (out of range: 0
// with a warning); fullscreen is _meta.fullscreen (not a boolean: false
// with a warning); an audience without "assistant" is warned about and the
// window kept. The seeds' query form (?priority=0-100&fullscreen=bool) is
// still read, but only when the annotations and _meta say nothing; a query
// is warned about and its invalid values ignored. log may be nil.
func Organize(windows []Window, size *int, history []string, log *slog.Logger) []string {
	if size != nil && *size <= 0 {
		return []string{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	type entry struct {
		id         string
		priority   float64
		fullscreen bool
		body       string
	}
	groups := map[string][]entry{}
	for _, w := range windows {
		id, seed, warnings, err := Identify(w.URI)
		if err != nil {
			log.Debug("desktop: skip window with invalid URI", "uri", w.URI, "err", err)
			continue
		}
		var texts []string
		for _, c := range w.Contents {
			if c.Blob != "" && c.Text == "" {
				log.Warn("desktop: blob window content is not rendered", "uri", w.URI)
				continue
			}
			texts = append(texts, c.Text)
		}
		if len(texts) == 0 {
			continue
		}
		for _, msg := range warnings {
			log.Warn("desktop: "+msg, "uri", w.URI, "server", w.Server)
		}
		e := entry{id: id, body: strings.Join(texts, "\n\n")}
		switch p := w.Priority; {
		case p != nil && *p >= 0 && *p <= 1:
			e.priority = *p
		case p != nil:
			log.Warn("desktop: annotations.priority is outside [0, 1]; taken as 0", "priority", *p, "uri", w.URI, "server", w.Server)
		case seed.Priority != nil:
			e.priority = float64(*seed.Priority) / 100
		}
		switch fs := w.Fullscreen; {
		case fs != nil:
			b, ok := fs.(bool)
			if !ok {
				log.Warn("desktop: _meta.fullscreen is not a boolean; taken as false", "fullscreen", fs, "uri", w.URI, "server", w.Server)
			}
			e.fullscreen = b
		case seed.Fullscreen != nil:
			e.fullscreen = *seed.Fullscreen
		}
		if len(w.Audience) > 0 && !slices.Contains(w.Audience, "assistant") {
			log.Warn("desktop: the window's audience does not include the assistant; shown anyway", "audience", w.Audience, "uri", w.URI, "server", w.Server)
		}
		groups[w.Server] = append(groups[w.Server], e)
	}

	out := []string{}
	for _, server := range serverOrder(groups, history) {
		es := groups[server]
		if i := slices.IndexFunc(es, func(e entry) bool { return e.fullscreen }); i >= 0 {
			es = es[i : i+1]
		} else {
			slices.SortStableFunc(es, func(a, b entry) int { return cmp.Compare(b.priority, a.priority) })
		}
		for _, e := range es {
			if size != nil && len(out) >= *size {
				return out
			}
			out = append(out, render(e.id, e.body))
		}
	}
	return out
}

func render(uri, body string) string {
	if body == "" {
		return uri
	}
	return uri + "\n\n" + body
}

func serverOrder[T any](groups map[string]T, history []string) []string {
	var order []string
	seen := map[string]bool{}
	for i := len(history) - 1; i >= 0; i-- {
		s := history[i]
		if seen[s] {
			continue
		}
		seen[s] = true
		if _, ok := groups[s]; ok {
			order = append(order, s)
		}
	}
	var rest []string
	for s := range groups {
		if !seen[s] {
			rest = append(rest, s)
		}
	}
	slices.Sort(rest)
	return append(order, rest...)
}
