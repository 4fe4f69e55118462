package protocol

// The contract of dpe_search, the content search tool of a document
// server (docserver registers it, the Computer's client:search_finder
// calls it): its name, its arguments and its result, defined once for
// both ends.

// DPESearchTool is the name of the document servers' content search tool.
const DPESearchTool = "dpe_search"

// Names of dpe_search's arguments (the tool's input schema).
const (
	DPESearchArgQuery         = "query"
	DPESearchArgLiteral       = "literal"
	DPESearchArgCaseSensitive = "caseSensitive"
	DPESearchArgFileType      = "fileType"
	DPESearchArgCursor        = "cursor"
	DPESearchArgMaxMatches    = "maxMatches"
	DPESearchArgMaxDocuments  = "maxDocuments"
	DPESearchArgBudgetMs      = "budgetMs"
)

// DPESearchArgs are the arguments of one dpe_search call: a content
// search's query (Cursor is the document server's own, MaxMatches and
// MaxDocuments bound the step; 0: the server's defaults) and the time the
// step may take (0: the server's default).
type DPESearchArgs struct {
	SearchQuery
	BudgetMs int
}

// Arguments returns a's tool-call arguments: query, caseSensitive and the
// bounds always, literal, fileType and cursor when set.
func (a DPESearchArgs) Arguments() map[string]any {
	args := map[string]any{
		DPESearchArgQuery:         a.Query,
		DPESearchArgCaseSensitive: a.CaseSensitive,
		DPESearchArgMaxMatches:    a.MaxMatches,
		DPESearchArgMaxDocuments:  a.MaxDocuments,
		DPESearchArgBudgetMs:      a.BudgetMs,
	}
	if a.Literal {
		args[DPESearchArgLiteral] = true
	}
	if a.FileType != "" {
		args[DPESearchArgFileType] = a.FileType
	}
	if a.Cursor != "" {
		args[DPESearchArgCursor] = a.Cursor
	}
	return args
}

// DPESearchResult is one step of a dpe_search: the tool's JSON result.
type DPESearchResult struct {
	// Matches are the step's matches, best first (Server is left for the
	// Computer to fill in).
	Matches []SearchMatch `json:"matches"`
	// NextCursor continues the search ("" when it is complete).
	NextCursor string `json:"next_cursor,omitempty"`
	// Scanned counts the documents searched so far (this step and the
	// ones before; the index searches all it holds at once), Total the
	// documents of the search.
	Scanned    int `json:"scanned"`
	Total      int `json:"total"`
	Unreadable int `json:"unreadable"`
	// Indexed counts the documents the index answered for; the others
	// are scanned (not indexed yet, or changed since).
	Indexed int `json:"indexed"`
	// IndexHits counts the pages of the index that hold every word of the
	// query (for a phrase, in any order: at most that many match); the
	// pages scanned instead come on top. 0 when the index was not asked.
	IndexHits int `json:"index_hits,omitempty"`
	// Index is the state of the document server's full-text index.
	Index DPEIndexStatus `json:"index"`
}

// States of a document server's full-text index (DPEIndexStatus.State).
const (
	IndexOpening  = "opening"
	IndexBuilding = "building"
	IndexReady    = "ready"
	IndexOff      = "off" // the index could not be opened: every search scans
	// IndexHeld: another process holds the folder's index open; every
	// search scans until it is free (Note names the process).
	IndexHeld = "held"
)

// DPEIndexStatus is how far a document server's full-text index is
// built, and its size.
type DPEIndexStatus struct {
	State       string `json:"state"`
	Indexed     int    `json:"indexed"` // documents whose current version is in the index
	Total       int    `json:"total"`
	DiskBytes   int64  `json:"disk_bytes"`
	MemoryBytes int64  `json:"memory_bytes"`
	Where       string `json:"where,omitempty"` // "disk" or "memory"
	// RemainingMs estimates the build's time left, from its pace so
	// far (0 while it cannot tell, or when it is not building).
	RemainingMs int64 `json:"remaining_ms,omitempty"`
	// Note says, for a state in which searches scan and no index is
	// coming (off, held), why, in a sentence for the user.
	Note string `json:"note,omitempty"`
}
