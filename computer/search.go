package computer

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/computer/mcpclient"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// searchTool is the document servers' content search tool, which
// client:search_finder drives.
const searchTool = protocol.DPESearchTool

// searchStepBudget bounds the time of one client:search_finder answer.
const searchStepBudget = 3 * time.Second

// serverPos is where the search of one document server stands: the
// cursor to ask it with and how many matches of that answer were already
// returned, or done with its final counts.
type serverPos struct {
	Cursor string `json:"c,omitempty"`
	Skip   int    `json:"k,omitempty"`
	Done   bool   `json:"d,omitempty"`
	// Scanning: the server's ranked matches are done; the rest score 0.
	Scanning bool `json:"z,omitempty"`
	counts
}

// counts are a document server's progress figures.
type counts struct {
	Scanned    int `json:"n,omitempty"`
	Total      int `json:"t,omitempty"`
	Unreadable int `json:"u,omitempty"`
	Indexed    int `json:"i,omitempty"`
	IndexHits  int `json:"h,omitempty"` // the index's pages with every word, once known
}

// searchCursor is where a search stands on every server it covers.
type searchCursor struct {
	Servers map[string]serverPos `json:"s"`
}

func (sc searchCursor) encode() string {
	b, _ := json.Marshal(sc)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeSearchCursor(s string) (searchCursor, error) {
	var sc searchCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &sc)
	}
	bad := err != nil || len(sc.Servers) == 0
	for _, p := range sc.Servers {
		bad = bad || p.Skip < 0
	}
	if bad {
		return searchCursor{}, protocol.NewError(protocol.CodeBadRequest, "cursor is not one this computer returned")
	}
	return sc, nil
}

// stream is one document server's part of a step: the matches it
// answered that are not returned yet.
type stream struct {
	conn   *mcpclient.Conn
	pos    serverPos
	buf    []protocol.SearchMatch
	taken  int // matches of buf returned in this step
	next   string
	end    bool    // its answer was the last: nothing follows buf
	bound  float64 // no later match of it scores higher
	index  protocol.DPESearchResult
	fresh  bool // buf is from an answer of this step
	failed error
}

// handleSearchFinder serves client:search_finder (this project's Finder
// extension): one bounded step of a search of the documents' text across
// the document servers that offer dpe_search, their ranked matches merged
// best first (ties in server-name order), resumed with the cursor of the
// previous answer.
//
// Each server answers its own matches in descending score, and every
// match after an answer scores at most its last (its index's ranked
// pages, then the pages it scans, which score 0). So a match can be
// returned once no server whose answers ran out could still send a
// better one; a server that holds that up is asked again within the
// step's budget. The cursor keeps, per server, the cursor to ask it with
// and how many matches of that answer were returned.
func (c *Computer) handleSearchFinder(ctx context.Context, req protocol.SearchFinderReq) (any, error) {
	q := req.SearchQuery()
	q.Query = strings.TrimSpace(q.Query)
	if err := checkSearchQuery(q); err != nil {
		return nil, err
	}
	want := min(cmpOr(q.MaxMatches, protocol.SearchDefaultMatches), protocol.SearchMaxMatches)
	maxDocs := min(cmpOr(q.MaxDocuments, protocol.SearchDefaultDocuments), protocol.SearchMaxDocuments)
	ctx, cancel := context.WithTimeout(ctx, c.opts.HandlerTimeout)
	defer cancel()

	servers := c.searchable(ctx)
	if len(servers) == 0 {
		return nil, protocol.NewError(protocol.CodeMCPCapabilityNotSupported,
			"no document server of this computer can search its documents' content (none offers "+searchTool+")")
	}
	streams, err := openStreams(servers, q)
	if err != nil {
		return nil, err
	}
	ret := protocol.SearchFinderRet{Matches: []protocol.SearchMatch{}, ReqID: req.ReqID}
	if err := c.runRounds(ctx, streams, q, want, maxDocs, &ret.Matches); err != nil {
		return nil, err
	}
	c.sumUp(ctx, streams, q, &ret)
	return ret, nil
}

// checkSearchQuery refuses a query that is empty, too long or asks for a
// negative count.
func checkSearchQuery(q protocol.SearchQuery) error {
	switch {
	case q.Query == "":
		return protocol.NewError(protocol.CodeBadRequest, "query is required")
	case len(q.Query) > protocol.SearchMaxQuery:
		return protocol.Errorf(protocol.CodeBadRequest, "query is longer than %d bytes", protocol.SearchMaxQuery)
	case q.MaxMatches < 0 || q.MaxDocuments < 0:
		return protocol.NewError(protocol.CodeBadRequest, "max_matches and max_documents must not be negative")
	}
	return nil
}

// openStreams gives a stream to each server the search covers: every
// searchable one for a new search, those its cursor names for a resumed
// one, each where the cursor left it.
func openStreams(servers []*mcpclient.Conn, q protocol.SearchQuery) ([]*stream, error) {
	cur := searchCursor{Servers: map[string]serverPos{}}
	if q.Cursor != "" {
		var err error
		if cur, err = decodeSearchCursor(q.Cursor); err != nil {
			return nil, err
		}
	}
	var streams []*stream
	for _, conn := range servers {
		pos, ok := cur.Servers[conn.Name()]
		if q.Cursor != "" && !ok {
			continue // not there when the search began
		}
		if q.Cursor == "" {
			pos.Scanning = q.Literal // literal matches all score 0
		}
		streams = append(streams, &stream{conn: conn, pos: pos, end: pos.Done})
	}
	return streams, nil
}

// runRounds asks the servers and merges their matches into out, round
// after round, until out holds want, the step's budget of time or
// scanned documents is spent, or no server has more to give.
func (c *Computer) runRounds(ctx context.Context, streams []*stream, q protocol.SearchQuery, want, maxDocs int, out *[]protocol.SearchMatch) error {
	deadline := time.Now().Add(min(searchStepBudget, c.opts.HandlerTimeout/2))
	scanned := 0 // documents scanned (not answered by an index) in this step
	for round := 0; len(*out) < want; round++ {
		left := time.Until(deadline)
		if round > 0 && (left <= 0 || scanned >= maxDocs) {
			return nil
		}
		n, asked := c.refill(ctx, streams, q, want-len(*out), max(maxDocs-scanned, 1), max(left, 100*time.Millisecond))
		if !asked {
			return nil // nothing more to ask
		}
		scanned += n
		for _, s := range streams {
			if s.failed != nil {
				c.log.Warn("content search failed", "server", s.conn.Name(), "err", s.failed)
				return s.failed
			}
		}
		merge(streams, want, out)
	}
	return nil
}

// sumUp fills in ret's cursor (where each server's search stands after
// this step), its document counts and, for a ranked search while an
// index is being built, the index's progress.
func (c *Computer) sumUp(ctx context.Context, streams []*stream, q protocol.SearchQuery, ret *protocol.SearchFinderRet) {
	next := searchCursor{Servers: map[string]serverPos{}}
	more := false
	var listed map[string]int // catalog counts, for servers not asked yet
	var indexing protocol.SearchIndexing
	building := false
	for _, s := range streams {
		pos := s.pos
		switch {
		case pos.Done, !s.fresh: // not asked in this step: as it was
		case s.taken < len(s.buf):
			pos.Skip += s.taken
		case s.end:
			pos.Done = true
		default:
			pos.Cursor, pos.Skip = s.next, 0
		}
		more = more || !pos.Done
		next.Servers[s.conn.Name()] = pos
		ret.ScannedDocuments += pos.Scanned
		if pos.Total == 0 && !pos.Done {
			if listed == nil {
				listed = c.catalogCounts(ctx, q.FileType)
			}
			ret.TotalDocuments += listed[s.conn.Name()]
		}
		ret.TotalDocuments += pos.Total
		ret.Unreadable += pos.Unreadable
		ret.IndexedDocuments += pos.Indexed
		ret.IndexHits += pos.IndexHits
		indexing.Indexed += s.index.Index.Indexed
		indexing.Total += s.index.Index.Total
		indexing.RemainingMs = max(indexing.RemainingMs, s.index.Index.RemainingMs)
		switch st := s.index.Index; st.State {
		case protocol.IndexOpening, protocol.IndexBuilding:
			building = true
		case protocol.IndexOff, protocol.IndexHeld:
			// No index is coming: a client must not wait for one.
			if st.Note != "" && !q.Literal && !strings.Contains(ret.IndexNote, st.Note) {
				ret.IndexNote = strings.TrimPrefix(ret.IndexNote+"; "+s.conn.Name()+": "+st.Note, "; ")
			}
		}
	}
	if more {
		ret.NextCursor = next.encode()
	}
	if building && !q.Literal {
		// A literal search scans every document: the index's progress
		// is no part of its answer (a client would wait for it).
		ret.Indexing = &indexing
	}
}

// refill asks, concurrently, every server whose answered matches are all
// returned (and whose search goes on) for its next ones, except that of
// servers left with matches that score 0 only the first is asked (the
// others' come after all of its). It reports whether any server was
// asked, and how many documents the servers scanned.
func (c *Computer) refill(ctx context.Context, streams []*stream, q protocol.SearchQuery, want, maxDocs int, budget time.Duration) (int, bool) {
	var wg sync.WaitGroup
	asked, zeros := false, false
	var mu sync.Mutex
	scanned := 0
	for _, s := range streams {
		later := zeros
		zeros = zeros || !s.end && s.pos.Scanning
		if s.end || s.taken < len(s.buf) || later && s.pos.Scanning {
			continue
		}
		if s.fresh {
			// Its answer of this step is used up: go on from its cursor.
			s.pos.Cursor, s.pos.Skip = s.next, 0
		}
		asked = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := c.searchStep(ctx, s.conn, q, s.pos.Cursor, s.pos.Skip+want, maxDocs, budget)
			if err != nil {
				s.failed = err
				return
			}
			s.index = res
			mu.Lock()
			scanned += max(res.Scanned-res.Indexed-(s.pos.Scanned-s.pos.Indexed), 0)
			mu.Unlock()
			hits := res.IndexHits
			if hits == 0 {
				hits = s.pos.IndexHits // a step that only scanned: as the index said before
			}
			s.pos.counts = counts{Scanned: res.Scanned, Total: res.Total, Unreadable: res.Unreadable, Indexed: res.Indexed, IndexHits: hits}
			for i := range res.Matches {
				res.Matches[i].Server = s.conn.Name()
			}
			if n := len(res.Matches); n < s.pos.Skip && res.NextCursor != "" {
				// The answer ended (its budget, its documents) before the
				// matches already returned from this cursor did: the rest
				// of them follow its cursor.
				s.pos.Cursor, s.pos.Skip = res.NextCursor, s.pos.Skip-n
				s.buf, s.taken, s.fresh, s.next, s.end = nil, 0, false, res.NextCursor, false
				return
			}
			s.buf = res.Matches[min(s.pos.Skip, len(res.Matches)):]
			s.taken, s.fresh, s.next = 0, true, res.NextCursor
			s.end = res.NextCursor == ""
			// A full answer may be followed by more of its ranked
			// matches, no better than its last; a short one means the
			// server went on to scanning, whose matches score 0.
			s.bound = 0
			if n := len(res.Matches); n > 0 && n >= s.pos.Skip+want && !s.end {
				s.bound = res.Matches[n-1].Score
			}
			s.pos.Scanning = s.bound == 0 && !s.end
		}()
	}
	wg.Wait()
	return scanned, asked
}

// merge moves matches from the streams to out, best first, until out
// holds want, a stream that ran dry could still send a better match, or
// the streams are empty.
func merge(streams []*stream, want int, out *[]protocol.SearchMatch) {
	for len(*out) < want {
		var best *stream
		for _, s := range streams {
			if s.taken < len(s.buf) && (best == nil || s.buf[s.taken].Score > best.buf[best.taken].Score) {
				best = s // streams are in server-name order: ties go to the first
			}
		}
		if best == nil {
			return
		}
		m := best.buf[best.taken]
		for _, s := range streams {
			if s != best && s.taken >= len(s.buf) && !s.end && s.bound > m.Score {
				return // s may hold better ones: ask it first
			}
		}
		*out = append(*out, m)
		best.taken++
	}
}

// searchStep calls dpe_search on one server.
func (c *Computer) searchStep(ctx context.Context, conn *mcpclient.Conn, q protocol.SearchQuery, cursor string, maxMatches, maxDocs int, budget time.Duration) (protocol.DPESearchResult, error) {
	q.Cursor, q.MaxMatches, q.MaxDocuments = cursor, min(maxMatches, protocol.SearchMaxMatches), maxDocs
	args := protocol.DPESearchArgs{SearchQuery: q, BudgetMs: max(int(budget/time.Millisecond), 1)}.Arguments()
	res, err := conn.CallTool(ctx, searchTool, args)
	if err != nil {
		if ctx.Err() != nil {
			return protocol.DPESearchResult{}, protocol.Errorf(protocol.CodeTimeout, "document server %s did not answer the search in time", conn.Name())
		}
		return protocol.DPESearchResult{}, protocol.Errorf(protocol.CodeInternalError, "document server %s: search: %v", conn.Name(), err)
	}
	text := toolText(res)
	if res.IsError {
		return protocol.DPESearchResult{}, protocol.Errorf(protocol.CodeBadRequest, "document server %s refused the search: %s", conn.Name(), text)
	}
	var out protocol.DPESearchResult
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		return protocol.DPESearchResult{}, protocol.Errorf(protocol.CodeInternalError, "document server %s answered the search with something else: %v", conn.Name(), err)
	}
	return out, nil
}

// toolText joins the text contents of a tool result.
func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// searchable returns the running Finder servers that offer dpe_search, by
// name. It asks the tool table, which lists each server's tools on its own:
// a server hung in tools/list delays no search of the others.
func (c *Computer) searchable(ctx context.Context) []*mcpclient.Conn {
	offers := c.tools.offering(ctx, toolListWait, searchTool)
	var out []*mcpclient.Conn
	for _, conn := range c.mgr.Conns() {
		if conn.FinderCapable() && offers[conn.Name()] {
			out = append(out, conn)
		}
	}
	slices.SortFunc(out, func(a, b *mcpclient.Conn) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// catalogCounts counts the catalog's documents per server (of one file
// type when asked).
func (c *Computer) catalogCounts(ctx context.Context, fileType string) map[string]int {
	n := map[string]int{}
	for _, d := range c.index.Documents(ctx) {
		if fileType == "" || strings.EqualFold(d.FileType, fileType) {
			n[d.Server]++
		}
	}
	return n
}

func cmpOr(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
