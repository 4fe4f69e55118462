package docserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/sync/errgroup"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
	"github.com/smcp-browse/smcp-browse/docserver/fulltext"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// SearchTool is the name of the tool that searches the documents' text.
const SearchTool = protocol.DPESearchTool

// Bounds of dpe_search.
const (
	searchDefaultBudget = 2 * time.Second
	searchMaxBudget     = 10 * time.Second
	// searchLineBytes bounds the text of one match.
	searchLineBytes = 300
)

// SearchMatch is one page (a line of it, for a literal search) that holds
// the query: what the Computer relays in client:search_finder (Server is
// left for it to fill in). Score is BM25; a page the index does not hold
// yet, found by scanning, and every literal match score 0 and come after
// the ranked ones.
type SearchMatch = protocol.SearchMatch

// SearchResult is one step of a search: dpe_search's result.
type SearchResult = protocol.DPESearchResult

// SearchParams are the arguments of dpe_search. A literal search
// (case-insensitive unless CaseSensitive, which implies Literal) scans
// every document: text formats first, then the others, each in path order.
type SearchParams = protocol.DPESearchArgs

// addSearchTool registers dpe_search.
func (s *Server) addSearchTool(m *server.MCPServer) {
	m.AddTool(mcp.NewTool(SearchTool,
		mcp.WithDescription("Search the text of the folder's documents (as extracted: PDF, DOCX, XLSX, PPTX, Markdown, HTML, text, code). "+
			"By default the words are looked up in a full-text index and the pages holding all of them come ranked best first (BM25; title and heading words weigh more): "+
			"whole words, any case; \"a phrase\" in quotes; pre* for words starting with pre. literal: true finds a literal string in every line instead, unranked, in path order (text files first, then PDF and office files). "+
			"Returns {matches: [{doc_ref, uri (the page), title, path, page_index, element_id, line, start, end, highlights, score}], next_cursor, scanned, total, indexed, index}; "+
			"call again with next_cursor to continue until it is absent. Pages the index does not hold yet are scanned and come after the ranked ones with score 0; index tells how far the index is built."),
		mcp.WithString(protocol.DPESearchArgQuery, mcp.Required(), mcp.Description("Words to find (see above), or the literal text with literal: true")),
		mcp.WithBoolean(protocol.DPESearchArgLiteral, mcp.Description("Find the query as a literal string, scanning every document (default false)")),
		mcp.WithBoolean(protocol.DPESearchArgCaseSensitive, mcp.Description("Literal search that matches case (default false)")),
		mcp.WithString(protocol.DPESearchArgFileType, mcp.Description("Only documents of this file type, e.g. 'md' or 'pdf'")),
		mcp.WithString(protocol.DPESearchArgCursor, mcp.Description("next_cursor of the previous step")),
		mcp.WithNumber(protocol.DPESearchArgMaxMatches, mcp.Description("Matches of this step (default 50, at most 500)")),
		mcp.WithNumber(protocol.DPESearchArgMaxDocuments, mcp.Description("Documents scanned in this step (default 200, at most 2000)")),
		mcp.WithNumber(protocol.DPESearchArgBudgetMs, mcp.Description("Time the step may take, in milliseconds (default 2000, at most 10000)")),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(false),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := searchArgs(req)
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		res, err := s.Search(ctx, args)
		return toolResult(res, err)
	})
}

// searchArgs reads dpe_search's arguments (a missing query is an error;
// the others default to their zero values).
func searchArgs(req mcp.CallToolRequest) (protocol.DPESearchArgs, error) {
	q, err := req.RequireString(protocol.DPESearchArgQuery)
	if err != nil {
		return protocol.DPESearchArgs{}, err
	}
	return protocol.DPESearchArgs{
		SearchQuery: protocol.SearchQuery{
			Query:         q,
			Literal:       req.GetBool(protocol.DPESearchArgLiteral, false),
			CaseSensitive: req.GetBool(protocol.DPESearchArgCaseSensitive, false),
			FileType:      req.GetString(protocol.DPESearchArgFileType, ""),
			Cursor:        req.GetString(protocol.DPESearchArgCursor, ""),
			MaxMatches:    req.GetInt(protocol.DPESearchArgMaxMatches, 0),
			MaxDocuments:  req.GetInt(protocol.DPESearchArgMaxDocuments, 0),
		},
		BudgetMs: req.GetInt(protocol.DPESearchArgBudgetMs, 0),
	}, nil
}

// errBadCursor is the error of a cursor this server did not make.
var errBadCursor = errors.New("cursor is not one this server returned")

// searchCursor is where a search stands.
type searchCursor struct {
	Literal bool   `json:"l,omitempty"`
	Scan    bool   `json:"s,omitempty"` // the ranked pages are done: scanning the rest
	Offset  int    `json:"o,omitempty"` // ranked pages returned so far
	Seq     uint64 `json:"g,omitempty"` // the index as it was at the first step
	From    string `json:"p,omitempty"` // scanKey of the next document to scan
	Skip    int    `json:"k,omitempty"` // matches of From returned already
	Done    int    `json:"n,omitempty"` // documents scanned so far
	Bad     int    `json:"u,omitempty"` // unreadable documents met by the scan
}

func (c searchCursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (searchCursor, error) {
	var c searchCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &c) != nil || c.Offset < 0 || c.Done < 0 || c.Bad < 0 || c.Skip < 0 {
		return searchCursor{}, errBadCursor
	}
	return c, nil
}

// toScan is a document a search scans: all of it, or its pages from
// fromPage on (those past the index's bound).
type toScan struct {
	e        *entry
	fromPage int
}

// scanKey orders the documents of a scan: those of a text format first
// (their bytes are searched before anything is parsed: milliseconds
// each), then the others (PDF and office files, which are parsed), each
// in path order. A slow PDF then holds up no text file's match.
func (d toScan) scanKey() string {
	if prefilterKind(d.e.kind) {
		return "0" + d.e.rel
	}
	return "1" + d.e.rel
}

// Search runs one step of a search. A word search first returns the pages
// the index holds, ranked, a window at a time; then it scans the
// documents the index does not hold (yet) in scanKey order, as a literal
// search scans every document: until MaxDocuments documents were scanned,
// the matches reached MaxMatches (the cursor then resumes inside the
// document), the budget ran out, or the documents did. A document that cannot be parsed
// is counted as unreadable and skipped.
func (s *Server) Search(ctx context.Context, p SearchParams) (SearchResult, error) {
	st, err := s.newSearchStep(p)
	if err != nil {
		return SearchResult{}, err
	}
	s.text.markListed() // a search wants the index: build it now
	if err := st.searchIndex(ctx); err != nil {
		return SearchResult{}, err
	}
	st.res.Index = s.text.status()
	st.res.Unreadable = st.unreadable + st.cur.Bad
	if !st.cur.Scan {
		st.res.Scanned = st.res.Indexed
		st.res.NextCursor = st.cur.encode()
		return st.res, nil
	}
	if err := st.scanRest(ctx); err != nil {
		return SearchResult{}, err
	}
	return st.res, nil
}

// searchStep is one step of a search as it runs: its checked parameters,
// where the search stands, and what the step has found.
type searchStep struct {
	s        *Server
	p        SearchParams
	m        matcher
	cur      searchCursor
	budget   time.Duration
	deadline time.Time
	docs     []*entry // the documents of the search (of its file type)

	res        SearchResult
	scan       []toScan // documents the index does not answer for, in scanKey order
	unreadable int      // documents the index knows are unreadable
}

// newSearchStep checks a step's parameters and cursor and starts its
// budget.
func (s *Server) newSearchStep(p SearchParams) (*searchStep, error) {
	p.Query = strings.TrimSpace(p.Query)
	switch {
	case p.Query == "":
		return nil, errors.New("query is empty")
	case len(p.Query) > protocol.SearchMaxQuery:
		return nil, errors.New("query is longer than 256 bytes")
	}
	p.Literal = p.Literal || p.CaseSensitive
	m, err := newMatcher(p.Query, p.Literal, p.CaseSensitive)
	if err != nil {
		return nil, err
	}
	cur := searchCursor{Literal: p.Literal, Scan: p.Literal}
	if p.Cursor != "" {
		if cur, err = decodeCursor(p.Cursor); err != nil || cur.Literal != p.Literal {
			return nil, errBadCursor
		}
	}
	p.MaxMatches = bound(p.MaxMatches, protocol.SearchDefaultMatches, protocol.SearchMaxMatches)
	p.MaxDocuments = bound(p.MaxDocuments, protocol.SearchDefaultDocuments, protocol.SearchMaxDocuments)
	budget := searchDefaultBudget
	if p.BudgetMs > 0 {
		budget = min(time.Duration(p.BudgetMs)*time.Millisecond, searchMaxBudget)
	}
	st := &searchStep{s: s, p: p, m: m, cur: cur, budget: budget, deadline: time.Now().Add(budget)}
	for _, e := range s.index.snapshot() {
		if p.FileType == "" || strings.EqualFold(e.fileType, p.FileType) {
			st.docs = append(st.docs, e)
		}
	}
	st.res = SearchResult{Matches: []SearchMatch{}, Total: len(st.docs)}
	st.scan = make([]toScan, 0, len(st.docs))
	return st, nil
}

// newMatcher is the matcher of a literal or a word query.
func newMatcher(query string, literal, caseSensitive bool) (matcher, error) {
	if literal {
		return newLiteralMatcher(query, caseSensitive)
	}
	q, err := fulltext.ParseQuery(extract.SearchForm(query))
	if err != nil {
		return nil, err
	}
	return wordMatcher{q}, nil
}

// searchIndex sorts the documents into those the index answers for and
// those to scan, and for a word search returns the index's next window of
// ranked pages. A literal search, or one without an index, scans them all.
func (st *searchStep) searchIndex(ctx context.Context) error {
	var src indexSource
	if !st.p.Literal {
		src = st.s.text.opened(ctx)
	}
	if src == nil {
		st.partition(nil)
		st.cur.Scan = true
		return nil
	}
	read := false
	err := src.Read(ctx, func(v fulltext.Reader) error {
		read = true
		if st.p.Cursor == "" {
			st.cur.Seq = v.Seq()
		}
		st.partition(v)
		if st.cur.Scan || st.cur.Seq == 0 {
			st.cur.Scan = true // nothing was indexed when the search started
			return nil
		}
		return st.ranked(ctx, v)
	})
	if r, ok := src.(*fulltext.Remote); ok && err != nil && !read && ctx.Err() == nil {
		st.s.text.lost(r, err) // its holder is gone: scan
		st.partition(nil)
		st.cur.Scan = true
		return nil
	}
	return err
}

// partition sorts the step's documents by what the index v (nil: none)
// holds of them as the search's first step saw it: indexed (counted; the
// pages past the index's bound are scanned), unreadable, or to scan (in
// scanKey order).
func (st *searchStep) partition(v fulltext.Reader) {
	var parsed []toScan // documents of the other formats, after the text ones
	defer func() { st.scan = append(st.scan, parsed...) }()
	add := func(d toScan) {
		if prefilterKind(d.e.kind) {
			st.scan = append(st.scan, d)
		} else {
			parsed = append(parsed, d)
		}
	}
	for _, e := range st.docs {
		var r fulltext.Record
		ok := false
		if v != nil {
			r, ok = v.Record(e.rel)
		}
		switch {
		case !ok || r.Seq > st.cur.Seq || r.Version != e.version():
			add(toScan{e: e})
		case r.Unreadable != "":
			st.unreadable++
		default:
			st.res.Indexed++
			if r.Indexed < r.Pages {
				add(toScan{e: e, fromPage: r.Indexed})
			}
		}
	}
}

// ranked adds the index's next window of ranked pages to the step's
// matches, within the step's budget (a prefix of one letter expands to
// thousands of words), and moves the cursor on to the scan after the last.
func (st *searchStep) ranked(ctx context.Context, v fulltext.Reader) error {
	qctx, cancel := context.WithDeadline(ctx, st.deadline)
	defer cancel()
	f := fulltext.Filter{FileType: st.p.FileType}
	if v.Seq() > st.cur.Seq {
		f.MaxSeq = st.cur.Seq // hide what was written since the first step
	}
	// A window's pages hold every word of the query, but a phrase's words
	// may be out of order on some of them (the index holds no positions):
	// further windows fill the step, a bounded number of them.
	first := len(st.res.Matches)
	for range maxRankedWindows {
		want := st.p.MaxMatches - (len(st.res.Matches) - first)
		if want <= 0 || st.cur.Scan {
			return nil
		}
		if err := st.rankedWindow(ctx, qctx, v, f, want); err != nil {
			return err
		}
	}
	return nil
}

// maxRankedWindows bounds the windows of ranked pages one step reads.
const maxRankedWindows = 8

// rankedWindow adds the matches of the index's next size ranked pages
// (each page gives at most one) and moves the cursor past them.
func (st *searchStep) rankedWindow(ctx, qctx context.Context, v fulltext.Reader, f fulltext.Filter, size int) error {
	hits, err := v.Search(qctx, st.m.(wordMatcher).q, f, st.cur.Offset, size)
	if err != nil {
		if qctx.Err() != nil && ctx.Err() == nil {
			return fmt.Errorf("the index took longer than the step's budget (%v) for %q: use longer words or prefixes", st.budget, st.p.Query)
		}
		return err
	}
	pages, err := st.s.hitPages(qctx, v, hits.Hits)
	if err != nil {
		if qctx.Err() != nil && ctx.Err() == nil {
			return fmt.Errorf("reading the pages the index found took longer than the step's budget (%v) for %q", st.budget, st.p.Query)
		}
		return err
	}
	for i, h := range hits.Hits {
		hp := pages[i]
		if hp.e == nil {
			continue // changed since (scanned instead), or gone
		}
		for _, f := range st.m.match(hp.title, h.Page, hp.text) {
			st.res.Matches = append(st.res.Matches, st.s.searchMatch(hp.e, hp.title, h.Page, hp.text, f, h.Score))
		}
	}
	st.cur.Offset += len(hits.Hits)
	st.res.IndexHits = hits.Total
	if st.cur.Offset >= hits.Total || len(hits.Hits) == 0 {
		st.cur.Scan = true
	}
	return nil
}

// scanRest scans the documents to scan from the cursor's on, in path
// order, until the step's bounds are met, and sets the cursor to the next
// match: a step ends at MaxMatches exactly, inside a document if need be,
// so that a step's matches followed by those from its cursor are the
// matches of the search, each once. The documents are scanned on every
// core, a few ahead of the one whose matches are taken (see scanAhead).
func (st *searchStep) scanRest(ctx context.Context) error {
	scan := st.scan
	i := sort.Search(len(scan), func(i int) bool { return scan[i].scanKey() >= st.cur.From })
	skip := 0 // matches of scan[i] returned by the steps before
	if i < len(scan) && scan[i].scanKey() == st.cur.From {
		skip = st.cur.Skip
	}
	ahead := st.s.scanAhead(ctx, scan[i:], st.m, skip, st.p.MaxMatches)
	defer ahead.stop()
	done := 0
	for k := 0; i < len(scan); i, k, skip = i+1, k+1, 0 {
		room := st.p.MaxMatches - len(st.res.Matches)
		if done >= st.p.MaxDocuments || room <= 0 || (done > 0 && time.Now().After(st.deadline)) {
			break
		}
		r, err := ahead.result(ctx, k)
		if err != nil {
			return err
		}
		if r.err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			done++
			st.cur.Bad++
			continue
		}
		if len(r.found) > room || len(r.found) == room && r.more {
			// The step is full: go on inside this document.
			st.res.Matches = append(st.res.Matches, r.found[:room]...)
			skip += room
			break
		}
		st.res.Matches = append(st.res.Matches, r.found...)
		done++
	}
	st.cur.Done += done
	st.cur.Skip = 0
	st.res.Unreadable = st.unreadable + st.cur.Bad
	st.res.Scanned = min(st.res.Indexed+st.cur.Done, st.res.Total)
	if i < len(scan) {
		st.cur.From, st.cur.Skip = scan[i].scanKey(), skip
		st.res.NextCursor = st.cur.encode()
	} else {
		st.res.Scanned = st.res.Total
	}
	return nil
}

// scanResult is what scanDocument found in one document.
type scanResult struct {
	found []SearchMatch
	more  bool
	err   error
	ready chan struct{} // closed when the fields are set
}

// aheadScan scans a run of documents on several goroutines, at most a few
// documents ahead of the one the step waits for, so that the step's cores
// work while it takes matches in path order.
type aheadScan struct {
	results []scanResult
	tokens  chan struct{} // one per document a worker may start
	cancel  context.CancelFunc
}

// scanAhead starts scanning docs (the first after skip matches), each
// for at most limit matches. The index build gives way while it runs.
func (s *Server) scanAhead(ctx context.Context, docs []toScan, m matcher, skip, limit int) *aheadScan {
	workers := min(runtime.GOMAXPROCS(0), len(docs))
	ctx, cancel := context.WithCancel(ctx)
	sc := &aheadScan{results: make([]scanResult, len(docs)), tokens: make(chan struct{}, len(docs)), cancel: cancel}
	for i := range sc.results {
		sc.results[i].ready = make(chan struct{})
	}
	for range min(2*workers, len(docs)) {
		sc.tokens <- struct{}{}
	}
	var next atomic.Int64
	for range workers {
		s.text.reading.Add(1) // the index build gives way to the scan
		go func() {
			defer s.text.reading.Add(-1)
			for {
				select {
				case <-sc.tokens:
				case <-ctx.Done():
					return
				}
				k := int(next.Add(1) - 1)
				if k >= len(docs) {
					return
				}
				first := 0
				if k == 0 {
					first = skip
				}
				r := &sc.results[k]
				r.found, r.more, r.err = s.scanDocument(ctx, docs[k], m, first, limit)
				close(r.ready)
			}
		}()
	}
	return sc
}

// result waits for the scan of document k, letting a worker start on the
// next one.
func (sc *aheadScan) result(ctx context.Context, k int) (*scanResult, error) {
	r := &sc.results[k]
	select {
	case <-r.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case sc.tokens <- struct{}{}:
	default:
	}
	return r, nil
}

// stop ends the scan: the workers finish the document they are on and
// quit.
func (sc *aheadScan) stop() { sc.cancel() }

func bound(v, def, most int) int {
	if v <= 0 {
		return def
	}
	return min(v, most)
}

// found is one match of a page: a line of its text (or of the
// document's title) and the matches' offsets in it.
type found struct {
	line  string
	at    int // offset of the line in the page's body; -1 for the title
	spans [][2]int
}

// matcher finds the matches of one page.
type matcher interface {
	// match returns the page's matches; title is the document's title.
	match(title string, page int, pt pageText) []found
	// mayHold reports whether a file of a text format (see
	// prefilterKind), at rel, whose bytes are data, may hold a match
	// (false lets a scan skip the parse).
	mayHold(rel string, kind extract.Kind, data []byte) bool
}

// wordMatcher is a word search: one match per page, the line that holds
// the most of the query's words.
type wordMatcher struct{ q fulltext.Query }

func (w wordMatcher) match(title string, page int, pt pageText) []found {
	if page != 0 {
		title = ""
	}
	if !w.q.Matches(title, pt.headings, pt.body) {
		return nil // a phrase's words out of order, say (the index holds no positions)
	}
	for _, text := range []struct {
		s  string
		at int
	}{{pt.body, 0}, {title, -1}, {pt.headings, -1}} {
		if f, ok := bestLine(w.q, text.s, text.at); ok {
			return []found{f}
		}
	}
	return []found{{line: firstLine(pt.body)}}
}

func (w wordMatcher) mayHold(rel string, kind extract.Kind, data []byte) bool {
	return rawMayHold(rel, kind, data, w.q.Needles())
}

// bestLine returns the line of text with the most distinct clauses of q
// (the first of those), or false when none matches.
func bestLine(q fulltext.Query, text string, at int) (found, bool) {
	spans := q.Spans(text)
	if len(spans) == 0 {
		return found{}, false
	}
	best, bestN := -1, 0
	for i := 0; i < len(spans); {
		end := strings.IndexByte(text[spans[i].Start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += spans[i].Start
		}
		distinct := map[int]bool{}
		j := i
		for ; j < len(spans) && spans[j].Start < end; j++ {
			distinct[spans[j].Clause] = true
		}
		if len(distinct) > bestN {
			best, bestN = i, len(distinct)
		}
		i = j
	}
	start := strings.LastIndexByte(text[:spans[best].Start], '\n') + 1
	end := strings.IndexByte(text[start:], '\n')
	if end < 0 {
		end = len(text)
	} else {
		end += start
	}
	f := found{line: text[start:end], at: start}
	if at < 0 {
		f.at = -1
	}
	for _, sp := range spans[best:] {
		if sp.Start >= end {
			break
		}
		f.spans = append(f.spans, [2]int{sp.Start - start, min(sp.End, end) - start})
	}
	return f, true
}

// literalMatcher is a literal search: every line that holds the string.
type literalMatcher struct{ re *regexp.Regexp }

func newLiteralMatcher(query string, caseSensitive bool) (literalMatcher, error) {
	expr := regexp.QuoteMeta(extract.SearchForm(query))
	if !caseSensitive {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	return literalMatcher{re}, err
}

func (l literalMatcher) match(_ string, _ int, pt pageText) []found {
	var out []found
	at := 0
	for line := range strings.Lines(pt.body) {
		text := strings.TrimSuffix(line, "\n")
		if locs := l.re.FindAllStringIndex(text, -1); locs != nil {
			f := found{line: text, at: at}
			for _, loc := range locs {
				f.spans = append(f.spans, [2]int{loc[0], loc[1]})
			}
			out = append(out, f)
		}
		at += len(line)
	}
	return out
}

func (l literalMatcher) mayHold(_ string, kind extract.Kind, data []byte) bool {
	if kind != extract.KindText && kind != extract.KindCode {
		return true // markup: the extracted lines are not the file's
	}
	if !utf8.Valid(data) {
		return true // let the extractor decide what the text is
	}
	return l.re.Match(bytes.ReplaceAll(data, []byte("\t"), []byte(" "))) || l.re.Match(data)
}

// searchMatch is the match of a found line on a page of e.
func (s *Server) searchMatch(e *entry, title string, page int, pt pageText, f found, score float64) SearchMatch {
	m := SearchMatch{
		DocRef: e.docRef, URI: dpe.Page(s.host, e.docRef, page).String(),
		Title: title, FileType: e.fileType, Path: e.rel, PageIndex: page, Score: score,
	}
	first := [2]int{0, 0}
	if len(f.spans) > 0 {
		first = f.spans[0]
	}
	line, a, b := clipAround(f.line, first[0], first[1], searchLineBytes)
	m.Line, m.Start, m.End = line, a, b
	shift := first[0] - a
	for _, sp := range f.spans {
		x, y := sp[0]-shift, sp[1]-shift
		if x >= 0 && y <= len(line) {
			m.Highlights = append(m.Highlights, [2]int{x, y})
		}
	}
	if f.at >= 0 {
		m.ElementID = elementAt(pt.elements, f.at+first[0])
	}
	return m
}

// scanDocument returns the matches of one document's pages from
// d.fromPage, after the first skip, at most limit of them, and whether
// more follow. Files of a text format whose bytes cannot hold a match
// (see rawMayHold) are not parsed at all.
func (s *Server) scanDocument(ctx context.Context, d toScan, m matcher, skip, limit int) (out []SearchMatch, more bool, err error) {
	e := d.e
	if d.fromPage == 0 && prefilterKind(e.kind) {
		hit, err := s.fileHolds(e, m)
		if err != nil {
			return nil, false, err
		}
		if !hit {
			return nil, false, nil
		}
	}
	fresh, err := s.current(e.docRef)
	if err != nil {
		return nil, false, err
	}
	title, pages, err := s.searchText(ctx, fresh)
	if err != nil {
		return nil, false, err
	}
	for pi := d.fromPage; pi < len(pages); pi++ {
		pt := pages[pi]
		for _, f := range m.match(title, pi, pt) {
			switch {
			case skip > 0:
				skip--
			case len(out) == limit:
				return out, true, nil
			default:
				out = append(out, s.searchMatch(fresh, title, pi, pt, f, 0))
			}
		}
	}
	return out, false, nil
}

// fileHolds reports whether the bytes of a file (within the size bound)
// may hold a match of m.
func (s *Server) fileHolds(e *entry, m matcher) (bool, error) {
	f, err := s.root.Open(e.rel)
	if err != nil {
		return false, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, s.opts.MaxFileSize))
	if err != nil {
		return false, err
	}
	return m.mayHold(e.rel, e.kind, data), nil
}

// clipAround cuts line to at most n bytes around the match [a, b) on rune
// boundaries and returns the match's offsets in the cut.
func clipAround(line string, a, b, n int) (string, int, int) {
	if len(line) <= n {
		return line, a, b
	}
	from := max(0, a-n/3)
	for from > 0 && !utf8.RuneStart(line[from]) {
		from--
	}
	to := min(len(line), max(b, from+n))
	for to < len(line) && !utf8.RuneStart(line[to]) {
		to++
	}
	return line[from:to], a - from, b - from
}

// hitPage is the text of a page the index found, read from its document.
type hitPage struct {
	e     *entry // nil: the file changed since it was indexed, or is gone
	title string // the document's title (SearchForm)
	text  pageText
}

// hitPages reads the pages of hits from their documents, as a read does
// (the index holds no text), on every core. A file that changed since v
// indexed it is left out: the search scans it instead.
func (s *Server) hitPages(ctx context.Context, v fulltext.Reader, hits []fulltext.Hit) ([]hitPage, error) {
	out := make([]hitPage, len(hits))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, h := range hits {
		e, ok := s.index.lookupRel(h.Rel)
		if r, _ := v.Record(h.Rel); !ok || r.Version != e.version() {
			continue
		}
		g.Go(func() error {
			if t, ok := s.text.texts.get(e); ok {
				if h.Page < len(t.Pages) {
					out[i] = hitPage{e: e, title: t.Title, text: t.Pages[h.Page].text()}
				}
				return nil
			}
			fresh, h2, err := s.parsed(gctx, e)
			if err != nil || fresh.version() != e.version() {
				return skipGone(err)
			}
			pg, err := h2.page(gctx, h.Page)
			if err != nil {
				return skipGone(err)
			}
			out[i] = hitPage{e: fresh, title: extract.SearchForm(h2.info.Title), text: textOfPage(pg)}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("read the pages the index found: %w", err)
	}
	return out, nil
}

// skipGone is nil for an error of one hit's document (it changed, went
// away or no longer reads: the hit is dropped, as a scan of it would find
// nothing), and err when the search itself ends.
func skipGone(err error) error {
	if err != nil && isContextErr(err) {
		return err
	}
	return nil
}

// searchText returns the search text of every page of a document and its
// title: from the text cache when it holds this version, else parsed (and
// kept in the cache).
func (s *Server) searchText(ctx context.Context, e *entry) (string, []pageText, error) {
	if t, ok := s.text.texts.get(e); ok {
		pages := make([]pageText, len(t.Pages))
		for i, p := range t.Pages {
			pages[i] = p.text()
		}
		return t.Title, pages, nil
	}
	doc, err := s.wholeDocument(ctx, e, true)
	if err != nil {
		return "", nil, err
	}
	title := extract.SearchForm(doc.Title)
	pages := make([]pageText, len(doc.Pages))
	for i, pg := range doc.Pages {
		pages[i] = textOfPage(pg)
	}
	s.text.texts.put(e, title, pages)
	return title, pages, nil
}
