package finder

import (
	"cmp"
	"strings"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// sortBy returns the comparison of the extension's sort key s ("title",
// "-pages", ...; see protocol.FinderQuery), or nil for "" and unknown keys
// (the specification's order). Titles compare case-insensitively; times as
// instants, those that do not parse after those that do.
func sortBy(docs []protocol.DPEDocumentSummary, keys []sortKey, s string) func(a, b sortKey) int {
	desc := strings.HasPrefix(s, "-")
	var by func(a, b sortKey) int
	switch strings.TrimPrefix(s, "-") {
	case protocol.SortTitle:
		lower := make(map[int32]string, len(keys))
		for _, k := range keys {
			lower[k.idx] = strings.ToLower(docs[k.idx].Title)
		}
		by = func(a, b sortKey) int { return strings.Compare(lower[a.idx], lower[b.idx]) }
	case protocol.SortType:
		by = func(a, b sortKey) int {
			return strings.Compare(strings.ToLower(docs[a.idx].FileType), strings.ToLower(docs[b.idx].FileType))
		}
	case protocol.SortPages:
		by = func(a, b sortKey) int { return cmp.Compare(docs[a.idx].PageCount, docs[b.idx].PageCount) }
	case protocol.SortModified:
		by = func(a, b sortKey) int {
			if a.class != b.class {
				return int(a.class) - int(b.class) // missing and odd values last either way
			}
			c := cmp.Compare(a.sec, b.sec)
			if c == 0 {
				c = cmp.Compare(a.nsec, b.nsec)
			}
			if desc {
				return -c
			}
			return c
		}
		return by
	default:
		return nil
	}
	if desc {
		return func(a, b sortKey) int { return by(b, a) }
	}
	return by
}

// FileTypes counts, by file type, the documents of a catalog that q's
// keywords keep, whatever q's file type (the extension's file_types).
// Provisional entries whose match is undecided are not counted.
func FileTypes(docs []protocol.DPEDocumentSummary, q protocol.FinderQuery) map[string]int {
	kws := normalizeKeywords(q.Keywords)
	out := map[string]int{}
	for i := range docs {
		if decide(&docs[i], kws, q.MatchAll, "") == matched {
			out[docs[i].FileType]++
		}
	}
	return out
}
