package mcpfacade

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/agent/finderclient"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// searchWait bounds finder_search's wait for an index being built.
const searchWait = 5 * time.Second

// searchResume says where one computer's search goes on: the cursor of
// the answer last shown from ("" for the first), and how many of that
// answer's matches were shown already.
type searchResume struct {
	Cursor string `json:"c,omitempty"`
	Skip   int    `json:"s,omitempty"`
}

// searchCursor is finder_search's next_cursor: the computers whose search
// goes on.
type searchCursor map[string]searchResume

func (c searchCursor) encode() string {
	b, _ := json.Marshal(c) // deliberate: strings and ints always encode
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeSearchCursor(s string) (searchCursor, bool) {
	var c searchCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &c) != nil || len(c) == 0 {
		return nil, false
	}
	return c, true
}

type searchArgs struct {
	Query         string `json:"query"`
	Computer      string `json:"computer"`
	FileType      string `json:"file_type"`
	Literal       bool   `json:"literal"`
	CaseSensitive bool   `json:"case_sensitive"`
	MaxResults    int    `json:"max_results"`
	Cursor        string `json:"cursor"`
}

// searchHit is one match of finder_search.
type searchHit struct {
	Computer  string  `json:"computer"`
	URI       string  `json:"uri"`
	Title     string  `json:"title"`
	Path      string  `json:"path,omitempty"`
	Page      int     `json:"page"`
	ElementID string  `json:"element_id,omitempty"`
	Line      string  `json:"line"`
	Score     float64 `json:"score,omitempty"`
}

// searchAnswer is finder_search's answer.
type searchAnswer struct {
	Matches []searchHit `json:"matches"`
	// AboutTotal is the computers' estimate of the matching pages in all
	// (absent when they cannot tell).
	AboutTotal int      `json:"about_total,omitempty"`
	Truncated  bool     `json:"truncated"`
	NextCursor string   `json:"next_cursor,omitempty"`
	Errors     []string `json:"errors,omitempty"`
	Note       string   `json:"note,omitempty"`
}

// computerSearch is what one computer answered.
type computerSearch struct {
	computer string
	from     searchResume
	ret      *protocol.SearchFinderRet
	err      error
}

func (f *Facade) toolSearch(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a searchArgs
	if err := req.BindArguments(&a); err != nil {
		return badArgument("%v", err), nil
	}
	if a.Query == "" || len(a.Query) > protocol.SearchMaxQuery {
		return badArgument("query must be 1 to %d bytes", protocol.SearchMaxQuery), nil
	}
	limit := a.MaxResults
	if limit <= 0 {
		limit = defaultResults
	}
	limit = min(limit, maxResults)
	computers, err := f.computersFor(ctx, a.Computer)
	if err != nil {
		return toolError(err), nil
	}
	from := searchCursor{}
	for _, c := range computers {
		from[c] = searchResume{}
	}
	if a.Cursor != "" {
		var ok bool
		if from, ok = decodeSearchCursor(a.Cursor); !ok {
			return badArgument("cursor %q is not a next_cursor of finder_search: search again without it", a.Cursor), nil
		}
	}
	office, err := f.attached(ctx)
	if err != nil {
		return toolError(err), nil
	}
	q := protocol.SearchQuery{Query: a.Query, Literal: a.Literal || a.CaseSensitive, CaseSensitive: a.CaseSensitive, FileType: a.FileType}
	answers := f.searchEach(ctx, office, q, from, limit)
	return jsonResult(merge(answers, limit, !q.Literal)), nil
}

// searchEach asks every computer of from for its next matches, at once.
func (f *Facade) searchEach(ctx context.Context, office Office, q protocol.SearchQuery, from searchCursor, limit int) []computerSearch {
	out := make([]computerSearch, 0, len(from))
	for c, r := range from {
		out = append(out, computerSearch{computer: c, from: r})
	}
	slices.SortFunc(out, func(a, b computerSearch) int { return cmp.Compare(a.computer, b.computer) })
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() {
			cs := &out[i]
			cq := q
			cq.Cursor, cq.MaxMatches = cs.from.Cursor, min(limit+cs.from.Skip, protocol.SearchMaxMatches)
			// A computer still building its index gets a few seconds for
			// a ranked answer; after them the answer says it is partial.
			_, cs.ret, _, cs.err = finderclient.Search(ctx, office, cs.computer, cq, finderclient.SearchOptions{Timeout: min(searchWait, f.opts.Timeout), Wait: true})
		})
	}
	wg.Wait()
	return out
}

// merge puts the computers' matches together, best first when ranked (in
// computer order when not), keeps limit of them and says where each
// computer goes on.
func merge(answers []computerSearch, limit int, ranked bool) searchAnswer {
	type tagged struct {
		hit searchHit
		cs  int // index in answers
	}
	var all []tagged
	out := searchAnswer{Matches: []searchHit{}}
	indexing := 0
	for i, cs := range answers {
		if cs.err != nil {
			out.Errors = append(out.Errors, cs.computer+": "+toolErrorText(cs.err))
			continue
		}
		out.AboutTotal += cs.ret.IndexHits
		if cs.ret.Indexing != nil {
			indexing++
		}
		if cs.ret.IndexNote != "" {
			out.Note = joinNote(out.Note, cs.computer+" searched without an index ("+cs.ret.IndexNote+").")
		}
		for _, m := range cs.ret.Matches[min(cs.from.Skip, len(cs.ret.Matches)):] {
			all = append(all, tagged{cs: i, hit: searchHit{
				Computer: cs.computer, URI: m.URI, Title: m.Title, Path: m.Path, Page: m.PageIndex,
				ElementID: m.ElementID, Line: m.Line, Score: m.Score,
			}})
		}
	}
	if ranked {
		slices.SortStableFunc(all, func(a, b tagged) int { return cmp.Compare(b.hit.Score, a.hit.Score) })
	}
	shown := make([]int, len(answers))
	for _, t := range all[:min(limit, len(all))] {
		out.Matches = append(out.Matches, t.hit)
		shown[t.cs]++
	}
	next := searchCursor{}
	for i, cs := range answers {
		if cs.err != nil {
			continue
		}
		got := len(cs.ret.Matches) - min(cs.from.Skip, len(cs.ret.Matches))
		switch {
		case shown[i] < got:
			next[cs.computer] = searchResume{Cursor: cs.from.Cursor, Skip: cs.from.Skip + shown[i]}
		case cs.ret.NextCursor != "":
			next[cs.computer] = searchResume{Cursor: cs.ret.NextCursor}
		}
	}
	if len(next) > 0 {
		out.Truncated, out.NextCursor = true, next.encode()
		out.Note = "More matches follow: pass next_cursor to read on, or narrow with file_type, computer or more words."
	}
	if indexing > 0 {
		out.Note = joinNote(out.Note, fmt.Sprintf("%d of %d computers are still building their search index: part of this answer is from scanning, unranked; search again in a while for a ranked answer.", indexing, len(answers)))
	}
	return out
}
