package mcpfacade

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/agent/finderclient"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// listSettle is how long finder_list waits for entries still being read
// (their page counts unknown) before it answers with them marked pending.
const listSettle = 5 * time.Second

// listCursor says where a catalog listing across computers goes on: the
// computer, and the offset in its catalog.
type listCursor struct {
	Computer string `json:"c"`
	Offset   int    `json:"o"`
}

// encode is standard base64 (padded): mcp-go decodes a resources/list
// cursor so before the hook that answers it runs, and refuses any other.
func (c listCursor) encode() string {
	b, _ := json.Marshal(c) // deliberate: a string and an int always encode
	return base64.StdEncoding.EncodeToString(b)
}

func decodeListCursor(s string) (listCursor, bool) {
	var c listCursor
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &c) != nil || c.Offset < 0 {
		return c, false
	}
	return c, true
}

// listEntry is one document of finder_list.
type listEntry struct {
	Computer   string `json:"computer"`
	URI        string `json:"uri"`
	Title      string `json:"title"`
	Path       string `json:"path,omitempty"`
	FileType   string `json:"file_type"`
	Pages      int    `json:"pages"`
	Modified   string `json:"modified,omitempty"`
	Summary    string `json:"summary,omitempty"`
	Pending    bool   `json:"pending,omitempty"`
	Unreadable string `json:"unreadable,omitempty"`
	Truncated  string `json:"truncated,omitempty"`
}

func entryOf(computer string, d protocol.DPEDocumentSummary) listEntry {
	sum, cut := cutText(d.Summary, summaryChars)
	if cut {
		sum += "…"
	}
	return listEntry{
		Computer: computer, URI: d.URI, Title: d.Title, Path: d.Path, FileType: d.FileType,
		Pages: d.PageCount, Modified: d.LastModified, Summary: sum, Pending: d.Pending,
		Unreadable: d.Unreadable, Truncated: d.Truncated,
	}
}

// listAnswer is finder_list's answer.
type listAnswer struct {
	Documents []listEntry `json:"documents"`
	// Total counts the documents matching the filters on the computers
	// listed.
	Total int `json:"total"`
	// Truncated says more documents match than are shown; NextCursor
	// shows the next ones.
	Truncated  bool     `json:"truncated"`
	NextCursor string   `json:"next_cursor,omitempty"`
	Errors     []string `json:"errors,omitempty"`
	Note       string   `json:"note,omitempty"`
}

type listArgs struct {
	Computer   string   `json:"computer"`
	Keywords   []string `json:"keywords"`
	MatchAll   bool     `json:"match_all"`
	FileType   string   `json:"file_type"`
	Sort       string   `json:"sort"`
	MaxEntries int      `json:"max_entries"`
	Cursor     string   `json:"cursor"`
}

func (f *Facade) toolList(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a listArgs
	if err := req.BindArguments(&a); err != nil {
		return badArgument("%v", err), nil
	}
	if !protocol.ValidSort(a.Sort) {
		return badArgument("sort %q: use title, type, pages or modified, - first for descending", a.Sort), nil
	}
	limit := a.MaxEntries
	if limit <= 0 {
		limit = defaultEntries
	}
	limit = min(limit, maxEntries)
	computers, err := f.computersFor(ctx, a.Computer)
	if err != nil {
		return toolError(err), nil
	}
	start := listCursor{}
	if a.Cursor != "" {
		var ok bool
		if start, ok = decodeListCursor(a.Cursor); !ok || !slices.Contains(computers, start.Computer) {
			return badArgument("cursor %q is not a next_cursor of finder_list (or its computer left): list again without it", a.Cursor), nil
		}
	}
	office, err := f.attached(ctx)
	if err != nil {
		return toolError(err), nil
	}
	q := protocol.FinderQuery{Keywords: a.Keywords, MatchAll: a.MatchAll, FileType: a.FileType, Sort: a.Sort}
	out := listAnswer{Documents: []listEntry{}}
	began := start.Computer == ""
	for _, c := range computers {
		if !began && c != start.Computer {
			continue
		}
		offset := 0
		if !began {
			offset, began = start.Offset, true
		}
		q.Offset, q.Limit = offset, max(limit-len(out.Documents), 1)
		cctx, cancel := f.call(ctx)
		ret, unsettled, err := finderclient.Catalog(cctx, office, c, q, finderclient.SettleOptions{Timeout: min(listSettle, f.opts.Timeout)})
		cancel()
		if err != nil {
			out.Errors = append(out.Errors, c+": "+toolErrorText(err))
			continue
		}
		if unsettled != nil {
			out.Note = "Some entries are still being read (pending: page count not known yet); list again in a moment for them."
		}
		out.Total += ret.TotalCount
		if len(out.Documents) >= limit {
			if ret.TotalCount > offset {
				out.Truncated = true
				if out.NextCursor == "" {
					out.NextCursor = listCursor{Computer: c, Offset: offset}.encode()
				}
			}
			continue
		}
		for _, d := range ret.Documents {
			out.Documents = append(out.Documents, entryOf(c, d))
		}
		if next := offset + len(ret.Documents); next < ret.TotalCount {
			out.Truncated = true
			out.NextCursor = listCursor{Computer: c, Offset: next}.encode()
		}
	}
	if out.Truncated {
		out.Note = joinNote(out.Note, "More documents match: pass next_cursor to read on, or narrow with keywords or file_type.")
	}
	return jsonResult(out), nil
}

// computersFor returns the computers a tool asks: the one named (which
// must be offered), or every computer.
func (f *Facade) computersFor(ctx context.Context, name string) ([]string, error) {
	computers, err := f.listComputers(ctx)
	if err != nil {
		return nil, err
	}
	if name == "" {
		return computers, nil
	}
	if !slices.Contains(computers, name) {
		return nil, protocol.Errorf(protocol.CodeNotFound, "no computer %q in the office (there are: %v)", name, computers).
			WithDetails(map[string]any{"computer": name})
	}
	return []string{name}, nil
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}
