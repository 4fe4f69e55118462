package dpe

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// Scheme is the URI scheme of DPE resources.
const Scheme = "dpe"

// Level is the depth a dpe:// URI addresses.
type Level int

// The four addressing levels.
const (
	LevelCatalog  Level = 0 // dpe://host
	LevelDocument Level = 1 // dpe://host/doc-ref
	LevelPage     Level = 2 // dpe://host/doc-ref/pages/{N}
	LevelElement  Level = 3 // dpe://host/doc-ref/elements/{ID}
)

// Response formats of the format query parameter.
const (
	FormatJSON     = "json"
	FormatMarkdown = "markdown"
	FormatText     = "text"
)

// Depths of the depth query parameter.
const (
	DepthMetadata = "metadata"
	DepthPages    = "pages"
)

// Page-index limits of a Level 1 read.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// Query holds the recognised query parameters of a dpe:// URI. Empty strings
// and nil pointers mean "not given".
type Query struct {
	Format     string
	Depth      string
	Offset     *int
	Limit      *int
	Categories []Category
}

// URI is a parsed dpe:// URI. DocRef and ElementID are percent-decoded.
// Page is meaningful only at LevelPage.
type URI struct {
	Host      string
	DocRef    string
	Page      int
	ElementID string
	Query     Query
	level     Level
}

// Level returns the addressing level of u.
func (u URI) Level() Level { return u.level }

// Catalog returns the Level 0 URI of host.
func Catalog(host string) URI { return URI{Host: host, level: LevelCatalog} }

// Document returns the Level 1 URI of a document.
func Document(host, docRef string) URI {
	return URI{Host: host, DocRef: docRef, level: LevelDocument}
}

// Page returns the Level 2 URI of page index of a document.
func Page(host, docRef string, index int) URI {
	return URI{Host: host, DocRef: docRef, Page: index, level: LevelPage}
}

// Element returns the Level 3 URI of an element of a document.
func Element(host, docRef, elementID string) URI {
	return URI{Host: host, DocRef: docRef, ElementID: elementID, level: LevelElement}
}

// DocumentURI returns the Level 1 URI of the document u belongs to (u itself
// without sub-path and query). It returns the catalog for a Level 0 URI.
func (u URI) DocumentURI() URI {
	if u.level == LevelCatalog {
		return Catalog(u.Host)
	}
	return Document(u.Host, u.DocRef)
}

// WithQuery returns u with its query replaced by q.
func (u URI) WithQuery(q Query) URI {
	u.Query = q
	return u
}

// String builds the URI text: segments percent-encoded, query parameters in
// a fixed order (format, depth, offset, limit, categories).
func (u URI) String() string {
	var b strings.Builder
	b.Grow(len(u.Host) + len(u.DocRef) + len(u.ElementID) + 48 + 12*len(u.Query.Categories))
	b.WriteString("dpe://")
	b.WriteString(u.Host)
	if u.level >= LevelDocument {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(u.DocRef))
	}
	switch u.level {
	case LevelPage:
		b.WriteString("/pages/")
		b.WriteString(strconv.Itoa(u.Page))
	case LevelElement:
		b.WriteString("/elements/")
		b.WriteString(url.PathEscape(u.ElementID))
	}
	sep := byte('?')
	add := func(k, escapedValue string) {
		b.WriteByte(sep)
		sep = '&'
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(escapedValue)
	}
	q := u.Query
	if q.Format != "" {
		add("format", url.QueryEscape(q.Format))
	}
	if q.Depth != "" {
		add("depth", url.QueryEscape(q.Depth))
	}
	if q.Offset != nil {
		add("offset", strconv.Itoa(*q.Offset))
	}
	if q.Limit != nil {
		add("limit", strconv.Itoa(*q.Limit))
	}
	if len(q.Categories) > 0 {
		add("categories", "")
		for i, c := range q.Categories {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(url.QueryEscape(string(c)))
		}
	}
	return b.String()
}

// Rule numbers the eight validation rules of the specification.
type Rule int

// The validation rules, numbered as in the specification.
const (
	RuleScheme     Rule = 1 // scheme must be dpe
	RuleHost       Rule = 2 // host must not be empty
	RuleSubPath    Rule = 3 // sub-path must be pages/{N} or elements/{ID}; no dot-segment, non-UTF-8 or control-character doc-ref or ID
	RuleFormat     Rule = 4 // format must be json, markdown or text
	RuleDepth      Rule = 5 // depth must be metadata or pages
	RuleOffset     Rule = 6 // offset must be a non-negative integer
	RuleLimit      Rule = 7 // limit must be an integer in [1, 100]
	RuleCategories Rule = 8 // categories must be a comma-separated list of categories
)

func invalid(raw string, rule Rule, format string, args ...any) error {
	return protocol.Errorf(protocol.CodeInvalidDPEURI, "rule %d: %s", rule, fmt.Sprintf(format, args...)).
		WithDetails(map[string]any{"uri": raw, "rule": int(rule)})
}

// RuleOf returns the validation rule a Parse error (possibly wrapped)
// reports, or 0.
func RuleOf(err error) Rule {
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeInvalidDPEURI {
		return 0
	}
	switch r := pe.Details["rule"].(type) {
	case int:
		return Rule(r)
	case float64:
		return Rule(r)
	}
	return 0
}

// Parse parses and validates a dpe:// URI. A failure is a *protocol.Error
// with code 4204 whose message names the rule broken and whose details carry
// the URI and the rule number.
func Parse(raw string) (URI, error) {
	rest, ok := cutScheme(raw)
	if !ok {
		return URI{}, invalid(raw, RuleScheme, "scheme must be %q", Scheme)
	}
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	rawQuery := ""
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest, rawQuery = rest[:i], rest[i+1:]
	}
	host, path, _ := strings.Cut(rest, "/")
	if host == "" {
		return URI{}, invalid(raw, RuleHost, "host must not be empty")
	}
	if !validHost(host) {
		return URI{}, invalid(raw, RuleHost, "host %q has characters a host cannot have", host)
	}
	u := URI{Host: host}
	if err := u.parsePath(raw, path); err != nil {
		return URI{}, err
	}
	if err := u.Query.parse(raw, rawQuery); err != nil {
		return URI{}, err
	}
	return u, nil
}

// validHost rejects spaces, control characters, '%' and backslashes in a host.
func validHost(host string) bool {
	for i := 0; i < len(host); i++ {
		if c := host[i]; c <= ' ' || c == 0x7f || c == '%' || c == '\\' {
			return false
		}
	}
	return true
}

// pathUnescape is url.PathUnescape without the call when there is nothing
// to decode.
func pathUnescape(s string) (string, error) {
	if strings.IndexByte(s, '%') < 0 {
		return s, nil
	}
	return url.PathUnescape(s)
}

// cutScheme strips "dpe://" (the scheme compared case-insensitively).
func cutScheme(raw string) (string, bool) {
	const prefix = Scheme + "://"
	if len(raw) < len(prefix) || !strings.EqualFold(raw[:len(prefix)], prefix) {
		return "", false
	}
	return raw[len(prefix):], true
}

func (u *URI) parsePath(raw, path string) error {
	if path == "" {
		u.level = LevelCatalog
		return nil
	}
	seg, sub, hasSub := strings.Cut(path, "/")
	docRef, err := pathUnescape(seg)
	if err != nil {
		return invalid(raw, RuleSubPath, "doc-ref %q is not valid percent-encoding", seg)
	}
	if docRef == "" {
		return invalid(raw, RuleSubPath, "empty doc-ref")
	}
	if why := badSegment(docRef); why != "" {
		return invalid(raw, RuleSubPath, "doc-ref %q %s", docRef, why)
	}
	u.DocRef = docRef
	if !hasSub || sub == "" { // dpe://host/doc or one trailing slash: dpe://host/doc/
		u.level = LevelDocument
		return nil
	}
	kind, arg, ok := strings.Cut(sub, "/")
	switch {
	case ok && kind == "pages" && !strings.Contains(arg, "/"):
		n, ok := nonNegativeInt(arg)
		if !ok {
			return invalid(raw, RuleSubPath, "page index %q is not a non-negative integer", arg)
		}
		u.Page, u.level = n, LevelPage
	case ok && kind == "elements" && !strings.Contains(arg, "/"):
		id, err := pathUnescape(arg)
		if err != nil || id == "" {
			return invalid(raw, RuleSubPath, "element ID %q is empty or not valid percent-encoding", arg)
		}
		if why := badSegment(id); why != "" {
			return invalid(raw, RuleSubPath, "element ID %q %s", id, why)
		}
		u.ElementID, u.level = id, LevelElement
	default:
		return invalid(raw, RuleSubPath, "sub-path %q must be pages/{N} or elements/{ID}", sub)
	}
	return nil
}

// badSegment says what is wrong with a decoded doc-ref or element ID, or
// "": a dot segment ("." or "..", which URI normalisation would remove or
// climb with), bytes that are not UTF-8, or control characters (C0, DEL,
// C1), which no name has and a terminal would act on. Rule 3 covers them:
// what servers list is held to it too.
func badSegment(s string) string {
	switch {
	case s == "." || s == "..":
		return "is a dot segment"
	case !utf8.ValidString(s):
		return "is not UTF-8"
	case strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) }):
		return "has control characters"
	}
	return ""
}

// nonNegativeInt accepts plain decimal digits that fit an int.
func nonNegativeInt(s string) (int, bool) {
	if s == "" || len(s) > 18 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// queryRules maps each recognised query parameter to its validation rule.
func queryRule(key string) (Rule, bool) {
	switch key {
	case "format":
		return RuleFormat, true
	case "depth":
		return RuleDepth, true
	case "offset":
		return RuleOffset, true
	case "limit":
		return RuleLimit, true
	case "categories":
		return RuleCategories, true
	}
	return 0, false
}

// parse reads the recognised parameters (the first occurrence of each wins;
// unknown parameters are ignored) and applies rules 4-8.
func (q *Query) parse(raw, rawQuery string) error {
	var seen uint16 // bit r set once rule r's parameter was read
	for rawQuery != "" {
		var kv string
		kv, rawQuery, _ = strings.Cut(rawQuery, "&")
		k, v, _ := strings.Cut(kv, "=")
		key, err := queryUnescape(k)
		if err != nil {
			continue
		}
		rule, known := queryRule(key)
		if !known || seen&(1<<rule) != 0 {
			continue
		}
		seen |= 1 << rule
		val, err := queryUnescape(v)
		if err != nil {
			return invalid(raw, rule, "%s value %q is not valid percent-encoding", key, v)
		}
		if err := q.set(raw, rule, val); err != nil {
			return err
		}
	}
	return nil
}

// queryUnescape is url.QueryUnescape without the call when there is
// nothing to decode.
func queryUnescape(s string) (string, error) {
	if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '+') < 0 {
		return s, nil
	}
	return url.QueryUnescape(s)
}

func (q *Query) set(raw string, rule Rule, v string) error {
	switch rule {
	case RuleFormat:
		if v != FormatJSON && v != FormatMarkdown && v != FormatText {
			return invalid(raw, RuleFormat, "format %q must be json, markdown or text", v)
		}
		q.Format = v
	case RuleDepth:
		if v != DepthMetadata && v != DepthPages {
			return invalid(raw, RuleDepth, "depth %q must be metadata or pages", v)
		}
		q.Depth = v
	case RuleOffset:
		n, ok := nonNegativeInt(v)
		if !ok {
			return invalid(raw, RuleOffset, "offset %q must be a non-negative integer", v)
		}
		q.Offset = &n
	case RuleLimit:
		n, ok := nonNegativeInt(v)
		if !ok || n < 1 || n > MaxLimit {
			return invalid(raw, RuleLimit, "limit %q must be an integer in [1, %d]", v, MaxLimit)
		}
		q.Limit = &n
	case RuleCategories:
		parts := strings.Split(v, ",")
		cats := make([]Category, 0, len(parts))
		for _, p := range parts {
			c := Category(strings.TrimSpace(p))
			if !c.Valid() {
				return invalid(raw, RuleCategories, "category %q is not one of the 19 element categories", p)
			}
			cats = append(cats, c)
		}
		q.Categories = cats
	}
	return nil
}

// Valid reports whether raw is a valid dpe:// URI.
func Valid(raw string) bool {
	_, err := Parse(raw)
	return err == nil
}

// IsDPE reports whether raw uses the dpe scheme (valid or not).
func IsDPE(raw string) bool {
	_, ok := cutScheme(raw)
	return ok
}
