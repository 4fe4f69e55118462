package docserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// SearchTool is the name of the tool that searches the documents' text.
const SearchTool = "dpe_search"

// Bounds of dpe_search.
const (
	searchDefaultBudget = 2 * time.Second
	searchMaxBudget     = 10 * time.Second
	// searchPerDocument bounds the matches of one document in a step.
	searchPerDocument = 50
	// searchLineBytes bounds the text of one match.
	searchLineBytes = 300
)

// SearchMatch is one line of a document's text that holds the query.
type SearchMatch struct {
	DocRef    string `json:"doc_ref"`
	URI       string `json:"uri"` // the page's Level 2 URI
	Title     string `json:"title"`
	FileType  string `json:"file_type"`
	Path      string `json:"path"`
	PageIndex int    `json:"page_index"`
	ElementID string `json:"element_id"`
	Line      string `json:"line"`
	Start     int    `json:"start"` // byte offsets of the match in Line
	End       int    `json:"end"`
}

// SearchResult is one step of a search.
type SearchResult struct {
	Matches []SearchMatch `json:"matches"`
	// NextCursor continues the search ("" when it is complete).
	NextCursor string `json:"next_cursor,omitempty"`
	// Scanned counts the documents searched so far (this step and the
	// ones before), Total the documents of the search.
	Scanned    int `json:"scanned"`
	Total      int `json:"total"`
	Unreadable int `json:"unreadable"`
}

// SearchParams are the arguments of dpe_search.
type SearchParams struct {
	Query         string
	CaseSensitive bool
	FileType      string
	Cursor        string
	MaxMatches    int
	MaxDocuments  int
	Budget        time.Duration
}

// addSearchTool registers dpe_search: the documents' text as the browser
// and cat show it (every element's text rendering), searched in path order
// a bounded step at a time. Unlike fs_grep, which reads the files' bytes,
// it sees the text of PDFs and office files.
func (s *Server) addSearchTool(m *server.MCPServer) {
	m.AddTool(mcp.NewTool(SearchTool,
		mcp.WithDescription("Search the text of the folder's documents (as extracted: PDF, DOCX, XLSX, PPTX, Markdown, text, code) for a literal string. "+
			"Returns matching lines {doc_ref, uri (the page), title, path, page_index, element_id, line, start, end}. "+
			"One call is a bounded step (maxDocuments documents, about maxMatches matches, budgetMs milliseconds); "+
			"call again with next_cursor to continue until it is absent. scanned/total tell the progress."),
		mcp.WithString("query", mcp.Required(), mcp.Description("Text to find (literal, case-insensitive unless caseSensitive)")),
		mcp.WithBoolean("caseSensitive", mcp.Description("Match case (default false)")),
		mcp.WithString("fileType", mcp.Description("Only documents of this file type, e.g. 'md' or 'pdf'")),
		mcp.WithString("cursor", mcp.Description("next_cursor of the previous step")),
		mcp.WithNumber("maxMatches", mcp.Description("Stop the step after the document that reaches this many matches (default 50, at most 500)")),
		mcp.WithNumber("maxDocuments", mcp.Description("Documents searched in this step (default 200, at most 2000)")),
		mcp.WithNumber("budgetMs", mcp.Description("Time the step may take, in milliseconds (default 2000, at most 10000)")),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(false),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		q, err := req.RequireString("query")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		res, err := s.Search(ctx, SearchParams{
			Query:         q,
			CaseSensitive: req.GetBool("caseSensitive", false),
			FileType:      req.GetString("fileType", ""),
			Cursor:        req.GetString("cursor", ""),
			MaxMatches:    req.GetInt("maxMatches", 0),
			MaxDocuments:  req.GetInt("maxDocuments", 0),
			Budget:        time.Duration(req.GetInt("budgetMs", 0)) * time.Millisecond,
		})
		return toolResult(res, err)
	})
}

// errBadCursor is the error of a cursor this server did not make.
var errBadCursor = errors.New("cursor is not one this server returned")

// Search runs one step of a search of the documents' text: from the
// cursor, in path order, until MaxDocuments documents were searched, the
// matches reached MaxMatches (the step ends after that document), the
// budget ran out, or the documents did. A document that cannot be parsed
// is counted as unreadable and skipped.
func (s *Server) Search(ctx context.Context, p SearchParams) (SearchResult, error) {
	p.Query = strings.TrimSpace(p.Query)
	switch {
	case p.Query == "":
		return SearchResult{}, errors.New("query is empty")
	case len(p.Query) > protocol.SearchMaxQuery:
		return SearchResult{}, errors.New("query is longer than 256 bytes")
	}
	expr := regexp.QuoteMeta(p.Query)
	if !p.CaseSensitive {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return SearchResult{}, err
	}
	from := ""
	if p.Cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(p.Cursor)
		if err != nil || !utf8.Valid(b) {
			return SearchResult{}, errBadCursor
		}
		from = string(b)
	}
	p.MaxMatches = bound(p.MaxMatches, protocol.SearchDefaultMatches, protocol.SearchMaxMatches)
	p.MaxDocuments = bound(p.MaxDocuments, protocol.SearchDefaultDocuments, protocol.SearchMaxDocuments)
	budget := searchDefaultBudget
	if p.Budget > 0 {
		budget = min(p.Budget, searchMaxBudget)
	}
	deadline := time.Now().Add(budget)

	var docs []*entry
	for _, e := range s.index.snapshot() {
		if p.FileType == "" || strings.EqualFold(e.fileType, p.FileType) {
			docs = append(docs, e)
		}
	}
	res := SearchResult{Matches: []SearchMatch{}, Total: len(docs)}
	i := sort.Search(len(docs), func(i int) bool { return docs[i].rel >= from })
	done := 0
	for ; i < len(docs); i++ {
		if done >= p.MaxDocuments || len(res.Matches) >= p.MaxMatches || (done > 0 && time.Now().After(deadline)) {
			break
		}
		if err := ctx.Err(); err != nil {
			return SearchResult{}, err
		}
		found, err := s.searchDocument(ctx, docs[i], re)
		done++
		if err != nil {
			if ctx.Err() != nil {
				return SearchResult{}, ctx.Err()
			}
			res.Unreadable++
			continue
		}
		res.Matches = append(res.Matches, found...)
	}
	res.Scanned = i
	if i < len(docs) {
		res.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(docs[i].rel))
	}
	return res, nil
}

func bound(v, def, most int) int {
	if v <= 0 {
		return def
	}
	return min(v, most)
}

// searchDocument returns the matching lines of one document (at most
// searchPerDocument). Plain text and source files whose bytes do not hold
// the query are not parsed at all.
func (s *Server) searchDocument(ctx context.Context, e *entry, re *regexp.Regexp) ([]SearchMatch, error) {
	if e.kind == extract.KindText || e.kind == extract.KindCode {
		hit, err := s.fileHolds(e.rel, re)
		if err != nil {
			return nil, err
		}
		if !hit {
			return nil, nil
		}
	}
	cur, err := s.current(e.docRef)
	if err != nil {
		return nil, err
	}
	doc, err := s.WholeDocument(ctx, e.docRef)
	if err != nil {
		return nil, err
	}
	var out []SearchMatch
	for pi, pg := range doc.Pages {
		for _, el := range pg.Elements {
			text := dpe.RenderElementText(protocol.DPEElementDetail{ElementID: el.ID, Category: string(el.Category), Summary: el.Summary, Content: el.Content})
			for _, line := range strings.Split(text, "\n") {
				loc := re.FindStringIndex(line)
				if loc == nil {
					continue
				}
				l, a, b := clipAround(line, loc[0], loc[1], searchLineBytes)
				out = append(out, SearchMatch{
					DocRef: cur.docRef, URI: dpe.Page(s.host, cur.docRef, pi).String(),
					Title: doc.Title, FileType: cur.fileType, Path: cur.rel,
					PageIndex: pi, ElementID: el.ID, Line: l, Start: a, End: b,
				})
				if len(out) >= searchPerDocument {
					return out, nil
				}
			}
		}
	}
	return out, nil
}

// fileHolds reports whether the bytes of a file (within the size bound)
// match re.
func (s *Server) fileHolds(rel string, re *regexp.Regexp) (bool, error) {
	f, err := s.root.Open(rel)
	if err != nil {
		return false, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, s.opts.MaxFileSize))
	if err != nil {
		return false, err
	}
	if !utf8.Valid(data) {
		return true, nil // let the extractor decide what the text is
	}
	return re.Match(bytes.ReplaceAll(data, []byte("\t"), []byte(" "))) || re.Match(data), nil
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
