// Package desktop implements the A2C-SMCP Desktop organizer: window://
// URIs (parse, build, the five rules) and Organize, which turns the window
// resources of a Computer's MCP servers into the rendered desktop list.
package desktop

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Scheme is the URI scheme of Desktop windows.
const Scheme = "window"

// WindowURI is a parsed window:// URI. Path segments are percent-decoded;
// nil Priority and Fullscreen mean the query did not give them.
type WindowURI struct {
	Host       string
	Path       []string
	Priority   *int
	Fullscreen *bool
}

// Rule numbers the five window:// validation rules.
type Rule int

// The rules, numbered as in the Desktop specification.
const (
	RuleScheme     Rule = 1 // scheme must be window
	RuleHost       Rule = 2 // host must not be empty
	RulePriority   Rule = 3 // priority must be an integer in [0, 100]
	RuleFullscreen Rule = 4 // fullscreen must be a boolean spelling
	RulePath       Rule = 5 // path segments must be valid percent-encoding
)

// URIError reports a window:// URI that breaks one of the rules.
type URIError struct {
	URI    string
	Rule   Rule
	Reason string
}

func (e *URIError) Error() string {
	return fmt.Sprintf("invalid window URI %q: rule %d: %s", e.URI, e.Rule, e.Reason)
}

// ParseWindowURI parses and validates a window:// URI in the seeds' form:
// the five rules, with priority and fullscreen read from the query. Use
// Identify to read a listed window the way desktop.md does.
func ParseWindowURI(raw string) (WindowURI, error) {
	w, rawQuery, err := parseBase(raw)
	if err != nil {
		return WindowURI{}, err
	}
	q := parseSeedQuery(rawQuery)
	if len(q.problems) > 0 {
		return WindowURI{}, &URIError{URI: raw, Rule: q.problems[0].rule, Reason: q.problems[0].reason}
	}
	w.Priority, w.Fullscreen = q.priority, q.fullscreen
	return w, nil
}

// Identify reads a listed window:// URI as desktop.md does: the URI is an
// identifier, so the query (and fragment) are dropped from it, with a
// warning. The seeds' query values that are valid are returned in seed,
// for use when the resource's annotations and _meta say nothing; invalid
// ones are ignored with a warning instead of dropping the window. An
// error means the scheme, host or path breaks its rule.
func Identify(raw string) (id string, seed WindowURI, warnings []string, err error) {
	w, rawQuery, err := parseBase(raw)
	if err != nil {
		return "", WindowURI{}, nil, err
	}
	id = raw
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		id = raw[:i]
		warnings = append(warnings, fmt.Sprintf("a window URI carries no query or fragment (desktop.md); %q is dropped from its identifier", raw[i:]))
	}
	q := parseSeedQuery(rawQuery)
	for _, p := range q.problems {
		warnings = append(warnings, p.reason+"; ignored")
	}
	w.Priority, w.Fullscreen = q.priority, q.fullscreen
	return id, w, warnings, nil
}

// parseBase checks the scheme, host and path of raw (rules 1, 2 and 5)
// and returns them with the raw query.
func parseBase(raw string) (WindowURI, string, error) {
	fail := func(rule Rule, format string, args ...any) (WindowURI, string, error) {
		return WindowURI{}, "", &URIError{URI: raw, Rule: rule, Reason: fmt.Sprintf(format, args...)}
	}
	const prefix = Scheme + "://"
	if len(raw) < len(prefix) || !strings.EqualFold(raw[:len(prefix)], prefix) {
		return fail(RuleScheme, "scheme must be %q", Scheme)
	}
	rest := raw[len(prefix):]
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	rest, rawQuery, _ := strings.Cut(rest, "?")
	host, path, hasPath := strings.Cut(rest, "/")
	if host == "" {
		return fail(RuleHost, "host must not be empty")
	}
	if strings.ContainsFunc(host, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '%' || r == '\\' }) {
		return fail(RuleHost, "host %q has characters a host cannot have", host)
	}
	w := WindowURI{Host: host}
	if hasPath && path != "" {
		for _, seg := range strings.Split(path, "/") {
			s, err := url.PathUnescape(seg)
			if err != nil {
				return fail(RulePath, "path segment %q is not valid percent-encoding", seg)
			}
			w.Path = append(w.Path, s)
		}
	}
	return w, rawQuery, nil
}

type queryProblem struct {
	rule   Rule
	reason string
}

type seedQuery struct {
	priority   *int
	fullscreen *bool
	problems   []queryProblem // in query order
}

// parseSeedQuery reads priority and fullscreen from a query (the first
// occurrence of each counts; other parameters are ignored).
func parseSeedQuery(rawQuery string) seedQuery {
	var q seedQuery
	var seenPriority, seenFullscreen bool
	for rawQuery != "" {
		var kv string
		kv, rawQuery, _ = strings.Cut(rawQuery, "&")
		k, v, _ := strings.Cut(kv, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			continue // not a parameter this parser knows; ignored like any other
		}
		switch {
		case key == "priority" && !seenPriority:
			seenPriority = true
			val, err := url.QueryUnescape(v)
			n, convErr := strconv.Atoi(val)
			if err != nil || convErr != nil || n < 0 || n > 100 || strings.TrimLeft(val, "0123456789") != "" {
				q.problems = append(q.problems, queryProblem{RulePriority, fmt.Sprintf("priority %q must be an integer in [0, 100]", v)})
				continue
			}
			q.priority = &n
		case key == "fullscreen" && !seenFullscreen:
			seenFullscreen = true
			val, err := url.QueryUnescape(v)
			b, ok := parseBool(val)
			if err != nil || !ok {
				q.problems = append(q.problems, queryProblem{RuleFullscreen, fmt.Sprintf("fullscreen %q must be true/1/yes/on or false/0/no/off", v)})
				continue
			}
			q.fullscreen = &b
		}
	}
	return q
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "true", "1", "yes", "on":
		return true, true
	case "false", "0", "no", "off":
		return false, true
	}
	return false, false
}

// String builds the URI text with percent-encoded path segments.
func (w WindowURI) String() string {
	var b strings.Builder
	b.WriteString(Scheme + "://")
	b.WriteString(w.Host)
	for _, seg := range w.Path {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(seg))
	}
	sep := "?"
	if w.Priority != nil {
		b.WriteString(sep + "priority=" + strconv.Itoa(*w.Priority))
		sep = "&"
	}
	if w.Fullscreen != nil {
		b.WriteString(sep + "fullscreen=" + strconv.FormatBool(*w.Fullscreen))
	}
	return b.String()
}

// IsWindow reports whether raw uses the window scheme (valid or not).
func IsWindow(raw string) bool {
	const prefix = Scheme + "://"
	return len(raw) >= len(prefix) && strings.EqualFold(raw[:len(prefix)], prefix)
}
