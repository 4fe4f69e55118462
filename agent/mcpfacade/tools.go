package mcpfacade

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Bounds of the tools' answers.
const (
	defaultEntries = 50
	maxEntries     = 500
	defaultResults = 20
	maxResults     = 200
	defaultChars   = 20000
	maxChars       = 200000
	defaultPages   = 100 // the most a Level 1 read gives (dpe rule 7)
	maxPages       = 100
	summaryChars   = 200
)

// addTools registers the façade's tools on m.
func (f *Facade) addTools(m *server.MCPServer) {
	readOnly := []mcp.ToolOption{mcp.WithReadOnlyHintAnnotation(true), mcp.WithDestructiveHintAnnotation(false), mcp.WithIdempotentHintAnnotation(true), mcp.WithOpenWorldHintAnnotation(false)}
	m.AddTool(mcp.NewTool("finder_computers", append(readOnly,
		mcp.WithTitleAnnotation("Office computers"),
		mcp.WithDescription("List the computers of the office whose documents this server offers, with how many documents each has and of which file types. Start here to see what there is; then finder_list a computer's catalog or finder_search every computer's text."),
	)...), f.toolComputers)
	m.AddTool(mcp.NewTool("finder_list", append(readOnly, f.listParams()...)...), f.toolList)
	m.AddTool(mcp.NewTool("finder_document", append(readOnly,
		mcp.WithTitleAnnotation("Document and its pages"),
		mcp.WithDescription("A document's metadata (title, type, page count, keywords, summary) and its page index: each page's number, title and element count, and the URI to read it with finder_page. Pages are numbered from 0. A long index is cut at max_pages and says so; page_offset reads on."),
		mcp.WithString("uri", mcp.Required(), mcp.Description("The document's dpe:// URI (dpe://HOST/DOC_REF), from finder_list or finder_search.")),
		mcp.WithInteger("page_offset", mcp.Min(0), mcp.Description("First page of the index to show (default 0).")),
		mcp.WithInteger("max_pages", mcp.Min(1), mcp.Max(maxPages), mcp.Description(fmt.Sprintf("At most this many pages of the index (default %d).", defaultPages))),
	)...), f.toolDocument)
	m.AddTool(mcp.NewTool("finder_page", append(readOnly, pageParams()...)...), f.toolPage)
	m.AddTool(mcp.NewTool("finder_element", append(readOnly,
		mcp.WithTitleAnnotation("One element"),
		mcp.WithDescription("One element of a document (a table, a code block, a paragraph, an image's description ...) by its URI dpe://HOST/DOC_REF/elements/ID, or a document URI and element_id. Element ids come from finder_page with format json and from finder_search."),
		mcp.WithString("uri", mcp.Required(), mcp.Description("The element's dpe:// URI, or the document's URI with element_id.")),
		mcp.WithString("element_id", mcp.Description("The element's id, when uri is the document's.")),
		mcp.WithString("format", mcp.Enum("markdown", "json", "text"), mcp.Description("markdown (default), json (the element with its content fields) or text.")),
	)...), f.toolElement)
	m.AddTool(mcp.NewTool("finder_search", append(readOnly, searchParams()...)...), f.toolSearch)
}

func (f *Facade) listParams() []mcp.ToolOption {
	return []mcp.ToolOption{
		mcp.WithTitleAnnotation("List documents"),
		mcp.WithDescription("List the documents of the office's computers (or of one): title, path, file type, page count, last change and the dpe:// URI to read. Filter by keywords (matched against titles, paths, keywords and summaries) and file type, sort, and read on with next_cursor when the answer says truncated. To find text inside documents use finder_search instead."),
		mcp.WithString("computer", mcp.Description("Only this computer's documents (default: every computer's, one after the other).")),
		mcp.WithArray("keywords", mcp.WithStringItems(), mcp.Description("Keep documents matching any of these words (all of them with match_all).")),
		mcp.WithBoolean("match_all", mcp.Description("Keep only documents matching every keyword.")),
		mcp.WithString("file_type", mcp.Description("Only documents of this type: md, txt, pdf, docx, pptx, xlsx, csv, tsv, html, go, py ...; finder_computers counts the types there are.")),
		mcp.WithString("sort", mcp.Enum("title", "-title", "type", "-type", "pages", "-pages", "modified", "-modified"), mcp.Description("Order of the documents (default: the computer's). A leading - sorts descending; -modified is the latest first.")),
		mcp.WithInteger("max_entries", mcp.Min(1), mcp.Max(maxEntries), mcp.Description(fmt.Sprintf("At most this many documents (default %d).", defaultEntries))),
		mcp.WithString("cursor", mcp.Description("next_cursor of the previous answer, to read on (with the same filters).")),
	}
}

func pageParams() []mcp.ToolOption {
	return []mcp.ToolOption{
		mcp.WithTitleAnnotation("Read a page"),
		mcp.WithDescription("Read one page of a document, rendered as Markdown (tables, lists, code and headings kept) or as plain text, or as JSON elements with their ids. Give the page URI from finder_document or finder_search (dpe://HOST/DOC_REF/pages/N), or the document URI and page. categories keeps only some kinds of element (e.g. table). A page longer than max_chars is cut at a line and says so."),
		mcp.WithString("uri", mcp.Required(), mcp.Description("The page's dpe:// URI, or the document's URI with page.")),
		mcp.WithInteger("page", mcp.Min(0), mcp.Description("The page number (from 0), when uri is the document's.")),
		mcp.WithString("format", mcp.Enum("markdown", "text", "json"), mcp.Description("markdown (default), text, or json (the elements, with ids for finder_element).")),
		mcp.WithArray("categories", mcp.WithStringEnumItems(categoryNames()), mcp.Description("Only elements of these categories.")),
		mcp.WithInteger("max_chars", mcp.Min(100), mcp.Max(maxChars), mcp.Description(fmt.Sprintf("At most this many characters (default %d).", defaultChars))),
	}
}

func searchParams() []mcp.ToolOption {
	return []mcp.ToolOption{
		mcp.WithTitleAnnotation("Search document text"),
		mcp.WithDescription("Search the text of every computer's documents (or one computer's): best matching pages first, each with its computer, document title and path, page number, the matching line and the page URI to read with finder_page. Words must all be on a page (any case, whole words); \"a phrase\" in quotes; pre* for words starting with pre. literal finds an exact string in every line that holds it, like grep. Read on with next_cursor when the answer says truncated."),
		mcp.WithString("query", mcp.Required(), mcp.MaxLength(protocol.SearchMaxQuery), mcp.Description("What to find.")),
		mcp.WithString("computer", mcp.Description("Only this computer's documents (default: every computer's).")),
		mcp.WithString("file_type", mcp.Description("Only documents of this type (md, pdf, go ...).")),
		mcp.WithBoolean("literal", mcp.Description("Find query as an exact string (case-insensitive), every line that holds it, unranked.")),
		mcp.WithBoolean("case_sensitive", mcp.Description("With literal: match case.")),
		mcp.WithInteger("max_results", mcp.Min(1), mcp.Max(maxResults), mcp.Description(fmt.Sprintf("At most this many matches (default %d).", defaultResults))),
		mcp.WithString("cursor", mcp.Description("next_cursor of the previous answer, to read on (with the same query).")),
	}
}

// categoryNames are the element categories, for the schema.
func categoryNames() []string {
	var out []string
	for _, c := range dpe.Categories() {
		out = append(out, string(c))
	}
	return out
}

// jsonResult is a tool result whose text is v as JSON, also given as the
// structured content.
func jsonResult(v any) *mcp.CallToolResult {
	b, err := json.Marshal(v)
	if err != nil {
		return toolError(fmt.Errorf("encode the answer: %w", err))
	}
	return mcp.NewToolResultStructured(v, string(b))
}

// computerInfo is one entry of finder_computers.
type computerInfo struct {
	Name      string         `json:"name"`
	Documents int            `json:"documents"`
	FileTypes map[string]int `json:"file_types,omitempty"`
	// Listing is true while the computer is still listing its documents
	// (the count grows).
	Listing bool   `json:"still_listing,omitempty"`
	Error   string `json:"error,omitempty"`
}

func (f *Facade) toolComputers(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	computers, err := f.listComputers(ctx)
	if err != nil {
		return toolError(err), nil
	}
	office, err := f.attached(ctx)
	if err != nil {
		return toolError(err), nil
	}
	out := struct {
		Computers []computerInfo `json:"computers"`
		Hint      string         `json:"hint,omitempty"`
	}{Computers: []computerInfo{}}
	for _, c := range computers {
		cctx, cancel := f.call(ctx)
		ret, err := office.GetFinder(cctx, c, protocol.FinderQuery{Limit: 1})
		cancel()
		info := computerInfo{Name: c}
		if err != nil {
			info.Error = toolErrorText(err)
		} else {
			info.Documents, info.FileTypes, info.Listing = ret.TotalCount, ret.FileTypes, ret.Listing
		}
		out.Computers = append(out.Computers, info)
	}
	if len(out.Computers) == 0 {
		out.Hint = "No computer is in the office right now; computers join when they start (smcp-browse computer)."
	}
	return jsonResult(out), nil
}

// toolErrorText is the message of err with its code and advice.
func toolErrorText(err error) string {
	pe := explain(err)
	return fmt.Sprintf("error %d: %s", pe.Code, pe.Message)
}

// cutText cuts s to at most n bytes, at the last line break before n when
// there is one in its second half, and never inside a UTF-8 sequence.
func cutText(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	if i := strings.LastIndexByte(s[:cut], '\n'); i > n/2 {
		cut = i + 1
	}
	return s[:cut], true
}
