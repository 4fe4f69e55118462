package desktop

import (
	"cmp"
	"log/slog"
	"slices"
	"strings"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// Window is one window:// resource as read from an MCP server.
type Window struct {
	Server   string // MCP server name
	URI      string
	Contents []protocol.ResourceContents
	// Priority is Resource.annotations.priority (0-1), used when the URI's
	// query has no priority; Fullscreen is Resource._meta.fullscreen, used
	// when the query has no fullscreen.
	Priority   *float64
	Fullscreen *bool
}

// Organize builds a Computer's desktop from its windows by the Desktop
// specification: drop invalid, empty and blob-only windows; group by
// server, servers ordered by tool-call history (most recent first) then by
// name; inside a server priority descending (ties in input order); per
// server only the first fullscreen window when there is one; cut to size
// (nil: no limit, <= 0: empty); render "URI\n\nbody". log may be nil.
func Organize(windows []Window, size *int, history []string, log *slog.Logger) []string {
	if size != nil && *size <= 0 {
		return []string{}
	}
	type entry struct {
		idx        int
		priority   float64
		fullscreen bool
		body       string
	}
	groups := map[string][]entry{}
	for i, w := range windows {
		u, err := ParseWindowURI(w.URI)
		if err != nil {
			logDebug(log, "desktop: skip window with invalid URI", "uri", w.URI, "err", err)
			continue
		}
		var texts []string
		for _, c := range w.Contents {
			if c.Blob != "" && c.Text == "" {
				if log != nil {
					log.Warn("desktop: blob window content is not rendered", "uri", w.URI)
				}
				continue
			}
			texts = append(texts, c.Text)
		}
		if len(texts) == 0 {
			continue
		}
		e := entry{idx: i, body: strings.Join(texts, "\n\n")}
		switch {
		case u.Priority != nil:
			e.priority = float64(*u.Priority)
		case w.Priority != nil:
			e.priority = *w.Priority * 100
		}
		switch {
		case u.Fullscreen != nil:
			e.fullscreen = *u.Fullscreen
		case w.Fullscreen != nil:
			e.fullscreen = *w.Fullscreen
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
			out = append(out, render(windows[e.idx].URI, e.body))
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

func logDebug(log *slog.Logger, msg string, args ...any) {
	if log != nil {
		log.Debug(msg, args...)
	}
}
