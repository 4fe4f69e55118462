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
//     Computer's documents (SearchFinderReq, SearchFinderRet).

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
	// Query is the text to find (a literal string, case-insensitive unless
	// CaseSensitive).
	Query         string
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
		Query: q.Query, CaseSensitive: q.CaseSensitive, FileType: q.FileType,
		Cursor: q.Cursor, MaxMatches: q.MaxMatches, MaxDocuments: q.MaxDocuments,
	}
}

// SearchQuery returns the request as a SearchQuery.
func (r SearchFinderReq) SearchQuery() SearchQuery {
	return SearchQuery{
		Query: r.Query, CaseSensitive: r.CaseSensitive, FileType: r.FileType,
		Cursor: r.Cursor, MaxMatches: r.MaxMatches, MaxDocuments: r.MaxDocuments,
	}
}

// SearchMatch is one line of a document that contains the query.
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
	// Line is the matching line of the element's text (bounded), and
	// Start and End the match's byte offsets in it.
	Line  string `json:"line"`
	Start int    `json:"start"`
	End   int    `json:"end"`
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
	Unreadable int    `json:"unreadable,omitempty"`
	ReqID      string `json:"req_id"`
}
