package protocol

import "strings"

// This project's Finder extension. The seeds define client:get_finder with
// keywords matched by ANY word and one order (server priority, then
// last_modified). A terminal browser also needs words that narrow (ALL),
// other orders, and a search of the documents' content. They are optional
// fields and one event that a Computer without them ignores or refuses
// (docs/interop.md, "Finder extension"):
//
//   - GetFinderReq.match: "any" (the specification's default) or "all";
//   - GetFinderReq.sort: "title", "type", "pages" or "modified", with a
//     leading "-" for descending ("" keeps the specification's order);
//   - client:search_finder: a bounded, resumable search of the text of a
//     Computer's documents, ranked (SearchFinderReq, SearchFinderRet).

// EventSearchFinder searches the content of a Computer's documents.
const EventSearchFinder = "client:search_finder"

// Values of GetFinderReq.Match.
const (
	MatchAny = "any"
	MatchAll = "all"
)

// Keys of GetFinderReq.Sort (prefix "-" for descending).
const (
	SortTitle    = "title"
	SortType     = "type"
	SortPages    = "pages"
	SortModified = "modified"
)

// FinderQuery is one request for a Finder catalog, as callers build it:
// what the agent sends, what the Computer organizes, what the browser
// asks. GetFinderReq is its wire form.
type FinderQuery struct {
	Keywords []string
	// MatchAll keeps only documents matching every keyword (the
	// specification keeps those matching any).
	MatchAll bool
	FileType string
	// Sort is "" (the specification's order) or a Sort* key, "-" first for
	// descending.
	Sort   string
	Offset int
	Limit  int // 0: the Computer's default
}

// ValidSort reports whether s is "" or a Sort* key, optionally preceded by
// "-".
func ValidSort(s string) bool {
	if s == "" {
		return true
	}
	switch strings.TrimPrefix(s, "-") {
	case SortTitle, SortType, SortPages, SortModified:
		return true
	}
	return false
}

// Query returns the request as a FinderQuery (Tags stand for Keywords when
// only they were sent; offset and limit default to 0).
func (r GetFinderReq) Query() FinderQuery {
	q := FinderQuery{Keywords: r.SearchKeywords(), MatchAll: r.Match == MatchAll, FileType: r.FileType, Sort: r.Sort}
	if r.Offset != nil {
		q.Offset = *r.Offset
	}
	if r.Limit != nil {
		q.Limit = *r.Limit
	}
	return q
}

// NewGetFinderReq returns the wire form of q with the request header.
func NewGetFinderReq(h ComputerCall, q FinderQuery) GetFinderReq {
	req := GetFinderReq{
		Agent: h.Agent, ReqID: h.ReqID, Computer: h.Computer,
		Keywords: q.Keywords, FileType: q.FileType, Sort: q.Sort,
	}
	if q.MatchAll {
		req.Match = MatchAll
	}
	if q.Offset > 0 {
		req.Offset = &q.Offset
	}
	if q.Limit > 0 {
		req.Limit = &q.Limit
	}
	return req
}

// Bounds of client:search_finder.
const (
	// SearchDefaultMatches and SearchMaxMatches bound the matches of one
	// answer.
	SearchDefaultMatches = 50
	SearchMaxMatches     = 500
	// SearchDefaultDocuments and SearchMaxDocuments bound the documents
	// one answer scans.
	SearchDefaultDocuments = 200
	SearchMaxDocuments     = 2000
	// SearchMaxQuery bounds the query's length in bytes.
	SearchMaxQuery = 256
)

// SearchQuery is one request of a content search, as callers build it.
type SearchQuery struct {
	// Query is what to find: words (whole, any case) that must all be on
	// a page, "a phrase" in quotes, pre* for words that start with pre;
	// the pages come ranked, best first. With Literal, a literal string
	// found in every line that holds it (case-insensitive unless
	// CaseSensitive, which implies Literal), unranked.
	Query         string
	Literal       bool
	CaseSensitive bool
	// FileType limits the search to documents of that file type.
	FileType string
	// Cursor resumes a search where the previous answer stopped ("" starts).
	Cursor string
	// MaxMatches and MaxDocuments bound this answer (0: the defaults).
	MaxMatches   int
	MaxDocuments int
}

// SearchFinderReq is the payload of client:search_finder.
type SearchFinderReq struct {
	Agent         string `json:"agent"`
	ReqID         string `json:"req_id"`
	Computer      string `json:"computer"`
	Query         string `json:"query"`
	Literal       bool   `json:"literal,omitempty"`
	CaseSensitive bool   `json:"case_sensitive,omitempty"`
	FileType      string `json:"file_type,omitempty"`
	Cursor        string `json:"cursor,omitempty"`
	MaxMatches    int    `json:"max_matches,omitempty"`
	MaxDocuments  int    `json:"max_documents,omitempty"`
}

// NewSearchFinderReq returns the wire form of q with the request header.
func NewSearchFinderReq(h ComputerCall, q SearchQuery) SearchFinderReq {
	return SearchFinderReq{
		Agent: h.Agent, ReqID: h.ReqID, Computer: h.Computer,
		Query: q.Query, Literal: q.Literal, CaseSensitive: q.CaseSensitive, FileType: q.FileType,
		Cursor: q.Cursor, MaxMatches: q.MaxMatches, MaxDocuments: q.MaxDocuments,
	}
}

// SearchQuery returns the request as a SearchQuery.
func (r SearchFinderReq) SearchQuery() SearchQuery {
	return SearchQuery{
		Query: r.Query, Literal: r.Literal, CaseSensitive: r.CaseSensitive, FileType: r.FileType,
		Cursor: r.Cursor, MaxMatches: r.MaxMatches, MaxDocuments: r.MaxDocuments,
	}
}

// SearchMatch is a page that holds the query (for a literal search, one
// of its lines that does).
type SearchMatch struct {
	// URI is the Level 2 URI of the page holding the line.
	URI       string `json:"uri"`
	DocRef    string `json:"doc_ref"`
	Title     string `json:"title"`
	FileType  string `json:"file_type,omitempty"`
	Path      string `json:"path,omitempty"`
	Server    string `json:"server,omitempty"`
	PageIndex int    `json:"page_index"`
	ElementID string `json:"element_id,omitempty"`
	// Line is the page's line that best matches (bounded), Start and End
	// the byte offsets of its first match, Highlights those of every
	// match in it.
	Line       string   `json:"line"`
	Start      int      `json:"start"`
	End        int      `json:"end"`
	Highlights [][2]int `json:"highlights,omitempty"`
	// Score ranks the match (higher is better; matches come in
	// descending order). Pages the document server's index does not hold
	// yet, found by scanning, and literal matches score 0.
	Score float64 `json:"score"`
}

// SearchFinderRet answers client:search_finder. NextCursor is empty when
// the search is complete; otherwise the same request with it continues.
// The counts are cumulative over the whole search.
type SearchFinderRet struct {
	Matches          []SearchMatch `json:"matches"`
	NextCursor       string        `json:"next_cursor,omitempty"`
	ScannedDocuments int           `json:"scanned_documents"`
	TotalDocuments   int           `json:"total_documents"`
	// Unreadable counts documents that could not be searched.
	Unreadable int `json:"unreadable,omitempty"`
	// IndexedDocuments counts the documents the full-text indexes
	// answered for; the others are scanned.
	IndexedDocuments int `json:"indexed_documents"`
	// IndexHits counts the indexed pages that hold every word of the query,
	// over all document servers: about how many pages match in all,
	// beyond the ones returned so far (see DPESearchResult.IndexHits).
	IndexHits int `json:"index_hits,omitempty"`
	// Indexing is present while a document server's index is still being
	// built (the answer is then partly from the index, partly scanned).
	Indexing *SearchIndexing `json:"indexing,omitempty"`
	// IndexNote, when set, says why part of the answer was scanned with
	// no index coming (a document server's index cannot be opened, or
	// another process holds it): unranked, and not worth waiting for.
	IndexNote string `json:"index_note,omitempty"`
	ReqID     string `json:"req_id"`
}

// SearchIndexing is how far the full-text indexes of a Computer's
// document servers are built.
type SearchIndexing struct {
	Indexed int `json:"indexed"` // documents indexed
	Total   int `json:"total"`
	// RemainingMs estimates the time until every index is built (the
	// slowest server's estimate; absent while none can tell).
	RemainingMs int64 `json:"remaining_ms,omitempty"`
}
