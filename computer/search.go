package computer

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/computer/mcpclient"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// searchTool is the document servers' content search tool
// (docserver.SearchTool), which client:search_finder drives.
const searchTool = "dpe_search"

// searchStepBudget bounds the time of one client:search_finder answer.
const searchStepBudget = 3 * time.Second

// searchCursor is where a search stands: the document server being
// searched, its own cursor, and the documents of the servers already done.
type searchCursor struct {
	Server string `json:"s"`
	Cursor string `json:"c,omitempty"`
	At     int    `json:"a,omitempty"` // documents of this server searched so far
	Done   int    `json:"d,omitempty"`
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
	if err != nil || sc.Server == "" || sc.Done < 0 || sc.At < 0 {
		return searchCursor{}, protocol.NewError(protocol.CodeBadRequest, "cursor is not one this computer returned")
	}
	return sc, nil
}

// searchResult is what dpe_search answers.
type searchResult struct {
	Matches    []protocol.SearchMatch `json:"matches"`
	NextCursor string                 `json:"next_cursor"`
	Scanned    int                    `json:"scanned"`
	Total      int                    `json:"total"`
	Unreadable int                    `json:"unreadable"`
}

// handleSearchFinder serves client:search_finder (this project's Finder
// extension): one bounded step of a search of the documents' text, server
// after server (in name order) among those that offer dpe_search, resumed
// with the cursor of the previous answer.
func (c *Computer) handleSearchFinder(ctx context.Context, req protocol.SearchFinderReq) (any, error) {
	q := req.SearchQuery()
	q.Query = strings.TrimSpace(q.Query)
	switch {
	case q.Query == "":
		return nil, protocol.NewError(protocol.CodeBadRequest, "query is required")
	case len(q.Query) > protocol.SearchMaxQuery:
		return nil, protocol.Errorf(protocol.CodeBadRequest, "query is longer than %d bytes", protocol.SearchMaxQuery)
	case q.MaxMatches < 0 || q.MaxDocuments < 0:
		return nil, protocol.NewError(protocol.CodeBadRequest, "max_matches and max_documents must not be negative")
	}
	maxMatches := min(cmpOr(q.MaxMatches, protocol.SearchDefaultMatches), protocol.SearchMaxMatches)
	maxDocs := min(cmpOr(q.MaxDocuments, protocol.SearchDefaultDocuments), protocol.SearchMaxDocuments)
	ctx, cancel := context.WithTimeout(ctx, c.opts.HandlerTimeout)
	defer cancel()

	servers := c.searchable(ctx)
	if len(servers) == 0 {
		return nil, protocol.NewError(protocol.CodeMCPCapabilityNotSupported,
			"no document server of this computer can search its documents' content (none offers "+searchTool+")")
	}
	total := c.searchTotal(ctx, servers, q.FileType)
	at := searchCursor{Server: servers[0].Name()}
	if q.Cursor != "" {
		var err error
		if at, err = decodeSearchCursor(q.Cursor); err != nil {
			return nil, err
		}
	}
	i := slices.IndexFunc(servers, func(s *mcpclient.Conn) bool { return s.Name() >= at.Server })
	if i >= 0 && servers[i].Name() != at.Server {
		at = searchCursor{Server: servers[i].Name(), Done: at.Done} // that server went away
	}
	ret := protocol.SearchFinderRet{Matches: []protocol.SearchMatch{}, ReqID: req.ReqID, ScannedDocuments: at.Done + at.At}
	deadline := time.Now().Add(min(searchStepBudget, c.opts.HandlerTimeout/2))
	docs := 0 // documents searched in this answer
	for i >= 0 && i < len(servers) {
		left := time.Until(deadline)
		if (docs > 0 || len(ret.Matches) > 0) && (left <= 0 || len(ret.Matches) >= maxMatches || docs >= maxDocs) {
			break
		}
		conn := servers[i]
		res, err := c.searchStep(ctx, conn, q, at.Cursor, max(maxMatches-len(ret.Matches), 1), max(maxDocs-docs, 1), max(left, 100*time.Millisecond))
		if err != nil {
			c.log.Warn("content search failed", "server", conn.Name(), "err", err)
			return nil, err
		}
		for _, m := range res.Matches {
			m.Server = conn.Name()
			ret.Matches = append(ret.Matches, m)
		}
		ret.Unreadable += res.Unreadable
		docs += max(res.Scanned-at.At, 0)
		if res.NextCursor != "" {
			at = searchCursor{Server: conn.Name(), Cursor: res.NextCursor, At: res.Scanned, Done: at.Done}
		} else if i++; i < len(servers) {
			at = searchCursor{Server: servers[i].Name(), Done: at.Done + res.Total}
		} else {
			at = searchCursor{Done: at.Done + res.Total}
		}
		ret.ScannedDocuments = at.Done + at.At
		ret.NextCursor = ""
		if at.Server != "" {
			ret.NextCursor = at.encode()
		}
	}
	ret.TotalDocuments = max(total, ret.ScannedDocuments)
	return ret, nil
}

// searchStep calls dpe_search on one server.
func (c *Computer) searchStep(ctx context.Context, conn *mcpclient.Conn, q protocol.SearchQuery, cursor string, maxMatches, maxDocs int, budget time.Duration) (searchResult, error) {
	args := map[string]any{
		"query": q.Query, "caseSensitive": q.CaseSensitive, "maxMatches": maxMatches,
		"maxDocuments": maxDocs, "budgetMs": max(int(budget/time.Millisecond), 1),
	}
	if q.FileType != "" {
		args["fileType"] = q.FileType
	}
	if cursor != "" {
		args["cursor"] = cursor
	}
	res, err := conn.CallTool(ctx, searchTool, args)
	if err != nil {
		if ctx.Err() != nil {
			return searchResult{}, protocol.Errorf(protocol.CodeTimeout, "document server %s did not answer the search in time", conn.Name())
		}
		return searchResult{}, protocol.Errorf(protocol.CodeInternalError, "document server %s: search: %v", conn.Name(), err)
	}
	text := toolText(res)
	if res.IsError {
		return searchResult{}, protocol.Errorf(protocol.CodeBadRequest, "document server %s refused the search: %s", conn.Name(), text)
	}
	var out searchResult
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		return searchResult{}, protocol.Errorf(protocol.CodeInternalError, "document server %s answered the search with something else: %v", conn.Name(), err)
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
// name.
func (c *Computer) searchable(ctx context.Context) []*mcpclient.Conn {
	var out []*mcpclient.Conn
	for _, conn := range c.mgr.Conns() {
		if !conn.FinderCapable() || conn.Config().Forbidden(searchTool) {
			continue
		}
		tools, err := conn.ListTools(ctx)
		if err != nil {
			continue
		}
		if slices.ContainsFunc(tools, func(t mcp.Tool) bool { return t.Name == searchTool }) {
			out = append(out, conn)
		}
	}
	slices.SortFunc(out, func(a, b *mcpclient.Conn) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// searchTotal counts the catalog's documents of the searchable servers
// (of one file type when asked).
func (c *Computer) searchTotal(ctx context.Context, servers []*mcpclient.Conn, fileType string) int {
	names := map[string]bool{}
	for _, s := range servers {
		names[s.Name()] = true
	}
	n := 0
	for _, d := range c.index.Documents(ctx) {
		if names[d.Server] && (fileType == "" || strings.EqualFold(d.FileType, fileType)) {
			n++
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
