package finder

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Paging defaults of client:get_finder.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// Organize filters, orders and pages a Finder catalog by the specification's
// four steps and returns the page and the size of the filtered set:
//
//  1. drop documents whose uri is not a valid dpe:// URI; keep those matching
//     any keyword (case-insensitive, in title, keywords, summary or path) and, when
//     fileType is set, exactly that file_type;
//  2. order servers by tool-call history (most recent first, de-duplicated),
//     then the rest alphabetically;
//  3. inside a server, last_modified descending: ISO 8601 values as instants,
//     then values that do not parse (as strings, descending), then missing
//     ones; ties keep input order;
//  4. page with offset and limit (limit <= 0 gives an empty page, limit is
//     capped at MaxLimit).
//
// The order is total, so the same documents in any input order (other than
// exact ties) give the same pages. The input slice is not modified.
func Organize(docs []protocol.DPEDocumentSummary, keywords []string, fileType string,
	history []string, offset, limit int) ([]protocol.DPEDocumentSummary, int) {
	return OrganizeQuery(docs, protocol.FinderQuery{Keywords: keywords, FileType: fileType, Offset: offset, Limit: limit}, history)
}

// OrganizeQuery is Organize with this project's Finder extension (see
// protocol.FinderQuery): with q.MatchAll a document must match every
// keyword, keywords also match the document's path, and q.Sort replaces
// steps 2 and 3 (ties keep the specification's order). Provisional
// entries (Pending) are organized as Answer says.
func OrganizeQuery(docs []protocol.DPEDocumentSummary, q protocol.FinderQuery, history []string) ([]protocol.DPEDocumentSummary, int) {
	a := Organized(docs, q, history)
	return a.Page, a.Total
}

// Answer is an organized page of a catalog whose entries may be
// provisional (Pending: built from a listing, their Level 1 read not in
// yet, so without keywords or page count).
type Answer struct {
	Page  []protocol.DPEDocumentSummary
	Total int
	// Needs are the provisional entries the answer depends on: those
	// whose match the query cannot decide without their Level 1 read
	// (left out of Page and Total), those on the page, and, for a sort by
	// title or pages, every one that matches. An answer with no Needs is
	// settled.
	Needs []protocol.DPEDocumentSummary
}

// Organized organizes a catalog like OrganizeQuery and says which
// provisional entries the answer depends on. A provisional entry matches
// a file type when its listing gave one; it matches keywords when its
// title, summary or path do (all of them with MatchAll); otherwise its
// match is undecided until it is read.
func Organized(docs []protocol.DPEDocumentSummary, q protocol.FinderQuery, history []string) Answer {
	kws := normalizeKeywords(q.Keywords)
	kept := make([]int, 0, len(docs))
	var needs []protocol.DPEDocumentSummary
	for i := range docs {
		switch decide(&docs[i], kws, q.MatchAll, q.FileType) {
		case matched:
			kept = append(kept, i)
		case undecided:
			needs = append(needs, docs[i])
		}
	}
	total := len(kept)
	byRead := strings.TrimPrefix(q.Sort, "-")
	if byRead == protocol.SortTitle || byRead == protocol.SortPages {
		for _, i := range kept {
			if docs[i].Pending {
				needs = append(needs, docs[i])
			}
		}
	}
	offset, limit := max(q.Offset, 0), q.Limit
	if limit <= 0 || offset >= total {
		return Answer{Page: []protocol.DPEDocumentSummary{}, Total: total, Needs: needs}
	}
	limit = min(limit, MaxLimit)
	end := min(offset+limit, total)

	ranks := serverRanks(docs, kept, history)
	keys := make([]sortKey, len(kept))
	for k, i := range kept {
		class, sec, nsec := parseTime(docs[i].LastModified)
		keys[k] = sortKey{sec: sec, idx: int32(i), rank: ranks[k], nsec: nsec, class: class}
	}
	compare := func(a, b sortKey) int { return compareKeys(docs, a, b) }
	if by := sortBy(docs, keys, q.Sort); by != nil {
		compare = func(a, b sortKey) int {
			if c := by(a, b); c != 0 {
				return c
			}
			return compareKeys(docs, a, b)
		}
	}
	top := smallest(keys, end, compare)

	page := make([]protocol.DPEDocumentSummary, 0, end-offset)
	for _, k := range top[offset:end] {
		d := docs[k.idx]
		page = append(page, d)
		if d.Pending && byRead != protocol.SortTitle && byRead != protocol.SortPages {
			needs = append(needs, d)
		}
	}
	return Answer{Page: page, Total: total, Needs: needs}
}

// verdict is whether a document is kept by a query.
type verdict uint8

const (
	dropped verdict = iota
	matched
	undecided // provisional, and its read may change the answer
)

// decide applies the query's filters to d (kws lower case).
func decide(d *protocol.DPEDocumentSummary, kws []string, all bool, fileType string) verdict {
	open := false
	if fileType != "" && d.FileType != fileType {
		if !d.Pending || d.FileType != "" {
			return dropped
		}
		open = true
	}
	if len(kws) > 0 && !matches(d, kws, all) {
		if !d.Pending {
			return dropped
		}
		open = true
	}
	if !dpe.Valid(d.URI) {
		return dropped
	}
	if open {
		return undecided
	}
	return matched
}

// smallest returns the n smallest keys in order. When n is small next to
// len(keys) it keeps a bounded max-heap (about one comparison per key)
// instead of sorting everything. keys is reordered.
func smallest(keys []sortKey, n int, cmp func(a, b sortKey) int) []sortKey {
	if n*4 >= len(keys) {
		slices.SortFunc(keys, cmp)
		return keys[:n]
	}
	h := keys[:n] // the heap lives in the front of keys
	for i := n/2 - 1; i >= 0; i-- {
		siftDown(h, i, cmp)
	}
	for _, k := range keys[n:] {
		if cmp(k, h[0]) < 0 {
			h[0] = k
			siftDown(h, 0, cmp)
		}
	}
	slices.SortFunc(h, cmp)
	return h
}

// siftDown restores the max-heap property of h below position i.
func siftDown(h []sortKey, i int, cmp func(a, b sortKey) int) {
	for {
		big := i
		if l := 2*i + 1; l < len(h) && cmp(h[l], h[big]) > 0 {
			big = l
		}
		if r := 2*i + 2; r < len(h) && cmp(h[r], h[big]) > 0 {
			big = r
		}
		if big == i {
			return
		}
		h[i], h[big] = h[big], h[i]
		i = big
	}
}

func normalizeKeywords(keywords []string) []string {
	var out []string
	for _, k := range keywords {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, strings.ToLower(k))
		}
	}
	return out
}

// matches reports whether any keyword (every keyword, with all) occurs in
// the title, a keyword entry, the summary or the path. kws are lower case.
func matches(d *protocol.DPEDocumentSummary, kws []string, all bool) bool {
	for _, kw := range kws {
		if matchesOne(d, kw) != all {
			return !all
		}
	}
	return all
}

func matchesOne(d *protocol.DPEDocumentSummary, kw string) bool {
	if containsFold(d.Title, kw) || containsFold(d.Summary, kw) || containsFold(d.Path, kw) {
		return true
	}
	for _, k := range d.Keywords {
		if containsFold(k, kw) {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains the lower-case needle, comparing
// case-insensitively without allocating for ASCII text.
func containsFold(s, lowerNeedle string) bool {
	if isASCII(s) {
		return containsFoldASCII(s, lowerNeedle)
	}
	return strings.Contains(strings.ToLower(s), lowerNeedle)
}

// containsFoldASCII finds candidate positions of the needle's first byte (in
// either case) with strings.IndexByte and compares the rest there.
func containsFoldASCII(s, lowerNeedle string) bool {
	n := len(lowerNeedle)
	if n == 0 {
		return true
	}
	if n > len(s) {
		return false
	}
	lo, up := lowerNeedle[0], lowerNeedle[0]
	if 'a' <= lo && lo <= 'z' {
		up = lo - ('a' - 'A')
	}
	last := len(s) - n // last position a match can start at
	nextLo, nextUp := -1, -1
	for i := 0; i <= last; {
		if nextLo < i {
			nextLo = nextIndex(s, i, last, lo)
		}
		if nextUp < i {
			nextUp = nextIndex(s, i, last, up)
		}
		j := min(nextLo, nextUp)
		if j > last {
			return false
		}
		if asciiEqualFoldLower(s[j+1:j+n], lowerNeedle[1:]) {
			return true
		}
		i = j + 1
	}
	return false
}

// nextIndex returns the position of the first c in s[from:last+1], or
// last+1 when there is none.
func nextIndex(s string, from, last int, c byte) int {
	if j := strings.IndexByte(s[from:last+1], c); j >= 0 {
		return from + j
	}
	return last + 1
}

// isASCII reports whether s is all ASCII, eight bytes at a time.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func asciiEqualFoldLower(s, lower string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// serverRanks returns the server rank of each kept document: servers in
// history reversed and de-duplicated first, then the others alphabetically.
// It looks each document's server up once.
func serverRanks(docs []protocol.DPEDocumentSummary, kept []int, history []string) []int32 {
	rank := make(map[string]int32, len(history)+8)
	for i := len(history) - 1; i >= 0; i-- {
		if _, seen := rank[history[i]]; !seen {
			rank[history[i]] = int32(len(rank))
		}
	}
	fromHistory := int32(len(rank))
	// Servers outside the history get provisional ranks in order of first
	// appearance (fromHistory + j for rest[j]), renumbered once sorted.
	var rest []string
	ranks := make([]int32, len(kept))
	for k, i := range kept {
		s := docs[i].Server
		r, seen := rank[s]
		if !seen {
			r = fromHistory + int32(len(rest))
			rank[s] = r
			rest = append(rest, s)
		}
		ranks[k] = r
	}
	if len(rest) > 1 {
		sorted := slices.Clone(rest)
		slices.Sort(sorted)
		final := make([]int32, len(rest)) // provisional j -> final rank
		for j, s := range sorted {
			final[rank[s]-fromHistory] = fromHistory + int32(j)
		}
		for k, r := range ranks {
			if r >= fromHistory {
				ranks[k] = final[r-fromHistory]
			}
		}
	}
	return ranks
}

// sortKey is a kept document's position with its precomputed sort keys.
type sortKey struct {
	sec   int64 // last_modified in Unix seconds, when class is timeParsed
	idx   int32 // position in the input
	rank  int32 // server rank
	nsec  int32 // and its nanoseconds
	class timeClass
}

// timeClass orders last_modified values: parsed instants first, then
// values that do not parse, then missing ones.
type timeClass uint8

const (
	timeParsed timeClass = iota
	timeUnparsed
	timeMissing
)

// compareKeys orders by server rank, then last_modified descending, then
// input position (so the result does not depend on the sort's stability).
func compareKeys(docs []protocol.DPEDocumentSummary, a, b sortKey) int {
	if a.rank != b.rank {
		return int(a.rank) - int(b.rank)
	}
	if a.class != b.class {
		return int(a.class) - int(b.class)
	}
	switch a.class {
	case timeParsed:
		if c := cmp.Compare(b.sec, a.sec); c != 0 {
			return c
		}
		if c := cmp.Compare(b.nsec, a.nsec); c != 0 {
			return c
		}
	case timeUnparsed:
		if c := strings.Compare(docs[b.idx].LastModified, docs[a.idx].LastModified); c != 0 {
			return c
		}
	}
	return int(a.idx) - int(b.idx)
}

// parseTime classifies a last_modified value and returns its instant when
// it parses as one of the ISO 8601 forms below (no zone means UTC).
func parseTime(s string) (class timeClass, sec int64, nsec int32) {
	s = strings.TrimSpace(s)
	if s == "" {
		return timeMissing, 0, 0
	}
	layouts := [...]string{
		time.RFC3339Nano,
		"2006-01-02T15:04:05.999999999",
		"2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02 15:04:05.999999999",
		"2006-01-02T15:04Z07:00",
		"2006-01-02T15:04",
		"2006-01-02",
	}
	for _, layout := range layouts {
		if t, err := time.Parse(layout, s); err == nil {
			return timeParsed, t.Unix(), int32(t.Nanosecond())
		}
	}
	return timeUnparsed, 0, 0
}
