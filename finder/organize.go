package finder

import (
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
//     any keyword (case-insensitive, in title, keywords or summary) and, when
//     fileType is set, exactly that file_type;
//  2. order servers by tool-call history (most recent first, de-duplicated),
//     then the rest alphabetically;
//  3. inside a server, last_modified descending, missing values last; ties
//     keep input order;
//  4. page with offset and limit (limit <= 0 gives an empty page, limit is
//     capped at MaxLimit).
//
// The input slice is not modified.
func Organize(docs []protocol.DPEDocumentSummary, keywords []string, fileType string,
	history []string, offset, limit int) ([]protocol.DPEDocumentSummary, int) {
	kws := normalizeKeywords(keywords)
	kept := make([]int, 0, len(docs))
	for i := range docs {
		d := &docs[i]
		if fileType != "" && d.FileType != fileType {
			continue
		}
		if len(kws) > 0 && !matches(d, kws) {
			continue
		}
		if !dpe.Valid(d.URI) {
			continue
		}
		kept = append(kept, i)
	}
	total := len(kept)

	rank := serverRanks(docs, kept, history)
	keys := make([]sortKey, len(kept))
	for k, i := range kept {
		keys[k] = sortKey{idx: i, rank: rank[docs[i].Server], when: parseTime(docs[i].LastModified)}
	}
	slices.SortFunc(keys, compareKeys)

	if limit <= 0 {
		return []protocol.DPEDocumentSummary{}, total
	}
	limit = min(limit, MaxLimit)
	offset = max(offset, 0)
	if offset >= total {
		return []protocol.DPEDocumentSummary{}, total
	}
	end := min(offset+limit, total)
	page := make([]protocol.DPEDocumentSummary, 0, end-offset)
	for _, k := range keys[offset:end] {
		page = append(page, docs[k.idx])
	}
	return page, total
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

// matches reports whether any keyword occurs in the title, a keyword entry
// or the summary. kws are lower case.
func matches(d *protocol.DPEDocumentSummary, kws []string) bool {
	for _, kw := range kws {
		if containsFold(d.Title, kw) || containsFold(d.Summary, kw) {
			return true
		}
		for _, k := range d.Keywords {
			if containsFold(k, kw) {
				return true
			}
		}
	}
	return false
}

// containsFold reports whether s contains the lower-case needle, comparing
// case-insensitively without allocating for ASCII text.
func containsFold(s, lowerNeedle string) bool {
	if isASCII(s) {
		n := len(lowerNeedle)
		for i := 0; i+n <= len(s); i++ {
			if asciiEqualFoldLower(s[i:i+n], lowerNeedle) {
				return true
			}
		}
		return false
	}
	return strings.Contains(strings.ToLower(s), lowerNeedle)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
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

// serverRanks numbers the servers of the kept documents: history reversed
// and de-duplicated first, then the others alphabetically.
func serverRanks(docs []protocol.DPEDocumentSummary, kept []int, history []string) map[string]int {
	rank := make(map[string]int)
	for i := len(history) - 1; i >= 0; i-- {
		if _, seen := rank[history[i]]; !seen {
			rank[history[i]] = len(rank)
		}
	}
	var rest []string
	for _, i := range kept {
		s := docs[i].Server
		if _, seen := rank[s]; !seen {
			rank[s] = -1 // placeholder until sorted
			rest = append(rest, s)
		}
	}
	slices.Sort(rest)
	n := len(rank) - len(rest)
	for i, s := range rest {
		rank[s] = n + i
	}
	return rank
}

// sortKey is a kept document's position with its precomputed sort keys.
type sortKey struct {
	idx  int
	rank int
	when sortTime
}

// compareKeys orders by server rank, then last_modified descending, then
// input position (so the unstable sort gives a stable result).
func compareKeys(a, b sortKey) int {
	if a.rank != b.rank {
		return a.rank - b.rank
	}
	if c := a.when.compareDesc(b.when); c != 0 {
		return c
	}
	return a.idx - b.idx
}

// sortTime is a last_modified value prepared for comparison: Unix
// nanoseconds when it is RFC 3339, the raw string otherwise.
type sortTime struct {
	raw    string
	nanos  int64
	parsed bool
}

func parseTime(s string) sortTime {
	st := sortTime{raw: s}
	if s == "" {
		return st
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		st.nanos, st.parsed = t.UnixNano(), true
	}
	return st
}

// compareDesc orders newer first and missing values last.
func (a sortTime) compareDesc(b sortTime) int {
	switch {
	case a.raw == "" && b.raw == "":
		return 0
	case a.raw == "":
		return 1
	case b.raw == "":
		return -1
	case a.parsed && b.parsed:
		switch {
		case a.nanos > b.nanos:
			return -1
		case a.nanos < b.nanos:
			return 1
		}
		return 0
	}
	return strings.Compare(b.raw, a.raw)
}
