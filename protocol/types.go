package protocol

import "encoding/json"

// AgentCallData is the header every Agent request carries.
type AgentCallData struct {
	Agent string `json:"agent"`
	ReqID string `json:"req_id"`
}

// ComputerCall is the header of every client:* request: the Agent header
// plus the name of the Computer the Server routes it to.
type ComputerCall struct {
	Agent    string `json:"agent"`
	ReqID    string `json:"req_id"`
	Computer string `json:"computer"`
}

// --- offices -----------------------------------------------------------------

// EnterOfficeReq is the payload of server:join_office.
type EnterOfficeReq struct {
	Role     Role   `json:"role"`
	Name     string `json:"name"`
	OfficeID string `json:"office_id"`
}

// LeaveOfficeReq is the payload of server:leave_office.
type LeaveOfficeReq struct {
	OfficeID string `json:"office_id"`
}

// EnterOfficeNotification is broadcast as notify:enter_office; exactly one of
// Computer and Agent is set.
type EnterOfficeNotification struct {
	OfficeID string `json:"office_id"`
	Computer string `json:"computer,omitempty"`
	Agent    string `json:"agent,omitempty"`
}

// LeaveOfficeNotification is broadcast as notify:leave_office.
type LeaveOfficeNotification struct {
	OfficeID string `json:"office_id"`
	Computer string `json:"computer,omitempty"`
	Agent    string `json:"agent,omitempty"`
}

// ListRoomReq is the payload of server:list_room.
type ListRoomReq struct {
	Agent    string `json:"agent"`
	ReqID    string `json:"req_id"`
	OfficeID string `json:"office_id"`
}

// SessionInfo describes one member of an office.
type SessionInfo struct {
	SID        string `json:"sid,omitempty"`
	Name       string `json:"name,omitempty"`
	Role       Role   `json:"role,omitempty"`
	OfficeID   string `json:"office_id,omitempty"`
	A2CVersion string `json:"a2c_version,omitempty"`
}

// ListRoomRet answers server:list_room.
type ListRoomRet struct {
	Sessions []SessionInfo `json:"sessions"`
	ReqID    string        `json:"req_id"`
}

// --- tools and config ---------------------------------------------------------

// ToolCallReq is the payload of client:tool_call. Timeout is in seconds.
type ToolCallReq struct {
	Agent    string         `json:"agent"`
	ReqID    string         `json:"req_id"`
	Computer string         `json:"computer"`
	ToolName string         `json:"tool_name"`
	Params   map[string]any `json:"params"`
	Timeout  float64        `json:"timeout"`
}

// GetToolsReq is the payload of client:get_tools.
type GetToolsReq = ComputerCall

// SMCPTool is one tool in a GetToolsRet.
type SMCPTool struct {
	Name         string          `json:"name"`
	BundleID     string          `json:"bundle_id,omitempty"`
	Description  string          `json:"description"`
	ParamsSchema json.RawMessage `json:"params_schema"`
	ReturnSchema json.RawMessage `json:"return_schema"`
	Meta         map[string]any  `json:"meta,omitempty"`
}

// MetaToolMeta is the SMCPTool meta key of the tool's A2C metadata
// (ToolMeta): a JSON string, as this project's Computer and the SDK's
// write it, or an object.
const MetaToolMeta = "a2c_tool_meta"

// ToolMeta returns the tool's a2c_tool_meta, and false when it has none
// or it is not a ToolMeta.
func (t SMCPTool) ToolMeta() (ToolMeta, bool) {
	var raw []byte
	switch v := t.Meta[MetaToolMeta].(type) {
	case string:
		raw = []byte(v)
	case map[string]any:
		raw, _ = json.Marshal(v)
	default:
		return ToolMeta{}, false
	}
	var m ToolMeta
	if json.Unmarshal(raw, &m) != nil {
		return ToolMeta{}, false
	}
	return m, true
}

// GetToolsRet answers client:get_tools.
type GetToolsRet struct {
	Tools []SMCPTool `json:"tools"`
	ReqID string     `json:"req_id"`
}

// ToolMeta is per-tool metadata in a Computer's server configuration.
type ToolMeta struct {
	AutoApply       *bool          `json:"auto_apply,omitempty"`
	RetObjectMapper map[string]any `json:"ret_object_mapper,omitempty"`
	Alias           string         `json:"alias,omitempty"`
	Tags            []string       `json:"tags,omitempty"`
}

// GetComputerConfigReq is the payload of client:get_config.
type GetComputerConfigReq = ComputerCall

// GetComputerConfigRet answers client:get_config; Servers is keyed by the
// server's identity and holds each server's configuration as JSON.
type GetComputerConfigRet struct {
	Inputs  []json.RawMessage          `json:"inputs,omitempty"`
	Servers map[string]json.RawMessage `json:"servers"`
}

// UpdateComputerConfigReq is the payload of every server:update_* event and
// of notify:update_desktop / notify:update_finder.
type UpdateComputerConfigReq struct {
	Computer string `json:"computer"`
}

// --- desktop -------------------------------------------------------------------

// GetDeskTopReq is the payload of client:get_desktop.
type GetDeskTopReq struct {
	Agent       string `json:"agent"`
	ReqID       string `json:"req_id"`
	Computer    string `json:"computer"`
	DesktopSize *int   `json:"desktop_size,omitempty"`
	Window      string `json:"window,omitempty"`
}

// GetDeskTopRet answers client:get_desktop; each entry is a rendered window.
type GetDeskTopRet struct {
	Desktops []string `json:"desktops"`
	ReqID    string   `json:"req_id"`
}

// --- finder --------------------------------------------------------------------

// GetFinderReq is the payload of client:get_finder (and client:list_finder,
// which may send Tags instead of Keywords).
type GetFinderReq struct {
	Agent    string   `json:"agent"`
	ReqID    string   `json:"req_id"`
	Computer string   `json:"computer"`
	Keywords []string `json:"keywords,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	FileType string   `json:"file_type,omitempty"`
	Offset   *int     `json:"offset,omitempty"`
	Limit    *int     `json:"limit,omitempty"`
	// Match and Sort are this project's Finder extension (see
	// finder_ext.go); a Computer that does not know them ignores them.
	Match string `json:"match,omitempty"`
	Sort  string `json:"sort,omitempty"`
}

// SearchKeywords returns Keywords, or Tags when only the alias was sent.
func (r GetFinderReq) SearchKeywords() []string {
	if len(r.Keywords) > 0 {
		return r.Keywords
	}
	return r.Tags
}

// GetFinderRet answers client:get_finder. TotalCount counts the filtered
// set, not the returned page.
type GetFinderRet struct {
	Documents  []DPEDocumentSummary `json:"documents"`
	TotalCount int                  `json:"total_count"`
	ReqID      string               `json:"req_id"`
	// FileTypes counts the documents matching the keywords by file type,
	// whatever the file_type filter (this project's Finder extension; a
	// Computer without it leaves it out).
	FileTypes map[string]int `json:"file_types,omitempty"`
	// Pending and Listing say the answer is not settled yet (this
	// project's Finder extension; absent when it is). Pending counts the
	// entries the answer depends on whose Level 1 read has not arrived:
	// its rows marked pending and, for keywords, documents left out
	// because their keywords are not known yet. Listing is true while the
	// Computer is still listing its servers' documents, so total_count
	// counts those listed so far. A notify:update_finder follows when the
	// reads or the listing are done.
	Pending int  `json:"pending,omitempty"`
	Listing bool `json:"listing,omitempty"`
	// Refused names the MCP servers whose listings had dpe:// documents
	// under a host another server of the Computer owns (this project's
	// extension): those entries are left out of the catalog and no read
	// is ever routed to them.
	Refused []RefusedHost `json:"refused,omitempty"`
}

// RefusedHost says that MCP server MCPServer listed Documents dpe://
// documents under Host, which server Owner owns; they were refused.
type RefusedHost struct {
	MCPServer string `json:"mcp_server"`
	Host      string `json:"host"`
	Owner     string `json:"owner"`
	Documents int    `json:"documents"`
}

// DPEDocumentSummary is one document in a Finder catalog.
type DPEDocumentSummary struct {
	DocRef       string   `json:"doc_ref"`
	URI          string   `json:"uri"`
	FileURI      string   `json:"file_uri"`
	FileType     string   `json:"file_type"`
	Title        string   `json:"title"`
	PageCount    int      `json:"page_count"`
	Keywords     []string `json:"keywords,omitempty"`
	Summary      string   `json:"summary,omitempty"`
	Server       string   `json:"server"`
	LastModified string   `json:"last_modified,omitempty"`
	// Unreadable, when set, says the document cannot be read and why
	// (encrypted, corrupt, too slow to open); its page_count is 0.
	Unreadable string `json:"unreadable,omitempty"`
	// Truncated, when set, says that a bound cut the document short and
	// how much of it is served (this project's extension).
	Truncated string `json:"truncated,omitempty"`
	// Path is the document's path relative to its document server's
	// root, '/'-separated, so that documents with the same title can be
	// told apart.
	Path string `json:"path,omitempty"`
	// Pending is true while the entry holds only what the document's
	// listing said (title, summary, path, file_uri, file_type,
	// last_modified): its page_count and keywords are not known yet, and
	// a notify:update_finder follows when they are.
	Pending bool `json:"pending,omitempty"`
}

// DPEPageSummary is one entry of a Level 1 page index.
type DPEPageSummary struct {
	PageIndex int    `json:"page_index"`
	Title     string `json:"title"`
	// ElementCount is the page's number of elements, or ElementsNotCounted
	// for a page the server has not read yet (an extension: a PDF's pages
	// are read as readers ask for them).
	ElementCount int    `json:"element_count"`
	URI          string `json:"uri"`
	DocRef       string `json:"doc_ref,omitempty"`
	// Bookmarks are the document's own outline entries that point to the
	// page, in outline order (an extension: a PDF's bookmarks).
	Bookmarks []DPEBookmark `json:"bookmarks,omitempty"`
}

// ElementsNotCounted is the element_count of a page not read yet.
const ElementsNotCounted = -1

// DPEBookmark is an entry of a document's own outline (a PDF's bookmarks):
// its title and level (1 for the top level).
type DPEBookmark struct {
	Title string `json:"title"`
	Level int    `json:"level"`
}

// DPEElementDetail is an element as returned inside a Level 2 page or as a
// Level 3 detail.
type DPEElementDetail struct {
	ElementID string         `json:"element_id"`
	Category  string         `json:"category"`
	Summary   string         `json:"summary,omitempty"`
	Content   map[string]any `json:"content"`
	DocRef    string         `json:"doc_ref,omitempty"`
	PageIndex *int           `json:"page_index,omitempty"`
	URI       string         `json:"uri,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// DPEDocument is the Level 1 read of a document. The page index fields are
// set only when it was read with depth=pages.
type DPEDocument struct {
	DocRef       string           `json:"doc_ref"`
	URI          string           `json:"uri"`
	FileURI      string           `json:"file_uri"`
	FileType     string           `json:"file_type"`
	Title        string           `json:"title"`
	PageCount    int              `json:"page_count"`
	Keywords     []string         `json:"keywords,omitempty"`
	Summary      string           `json:"summary,omitempty"`
	LastModified string           `json:"last_modified,omitempty"`
	Pages        []DPEPageSummary `json:"pages,omitempty"`
	PageOffset   *int             `json:"page_offset,omitempty"`
	PageLimit    *int             `json:"page_limit,omitempty"`
	PageTotal    *int             `json:"page_total,omitempty"`
	// Unreadable, when set, says the document cannot be read and why.
	Unreadable string `json:"unreadable,omitempty"`
	// Truncated, when set, says that a bound cut the document short and
	// how much of it is served: "kept the first 100,000 of 200,000 rows"
	// (this project's extension).
	Truncated string `json:"truncated,omitempty"`
	// BookmarkCount, in a depth=pages read, is the number of the
	// document's own outline entries that point to a page (an extension:
	// its pages' Bookmarks list them).
	BookmarkCount int `json:"bookmark_count,omitempty"`
}

// MarshalJSON writes the document; a depth=pages read (PageOffset set)
// always carries a "pages" array, empty when the offset is past the end,
// so readers can tell "no pages in this window" from "not asked for".
func (d DPEDocument) MarshalJSON() ([]byte, error) {
	var pages *[]DPEPageSummary // a non-nil pointer survives omitempty
	switch {
	case len(d.Pages) > 0:
		pages = &d.Pages
	case d.PageOffset != nil:
		pages = &[]DPEPageSummary{}
	}
	type wire DPEDocument // the same fields without this method
	return json.Marshal(struct {
		wire
		Pages *[]DPEPageSummary `json:"pages,omitempty"` // shadows wire.Pages
	}{wire(d), pages})
}

// CatalogEntry turns a Level 1 document into a catalog entry owned by server.
func (d DPEDocument) CatalogEntry(server string) DPEDocumentSummary {
	return DPEDocumentSummary{
		DocRef: d.DocRef, URI: d.URI, FileURI: d.FileURI, FileType: d.FileType,
		Title: d.Title, PageCount: d.PageCount, Keywords: d.Keywords,
		Summary: d.Summary, Server: server, LastModified: d.LastModified,
		Unreadable: d.Unreadable, Truncated: d.Truncated,
	}
}

// DPECatalog is the Level 0 read of a document server.
type DPECatalog struct {
	Documents  []DPEDocumentSummary `json:"documents"`
	TotalCount int                  `json:"total_count"`
	// Skipped says what files the server left out of its catalog and why
	// (this project's extension; absent when none were).
	Skipped *SkippedFiles `json:"skipped,omitempty"`
}

// SkippedFiles counts the files a document server does not serve: Count
// in all, Reasons by reason ("binary", "unreadable", ...), and the first
// few paths in Examples.
type SkippedFiles struct {
	Count    int            `json:"count"`
	Reasons  map[string]int `json:"reasons"`
	Examples []string       `json:"examples,omitempty"`
}

// DPEPage is the Level 2 read of a page.
type DPEPage struct {
	PageIndex    int                `json:"page_index"`
	Title        string             `json:"title"`
	DocRef       string             `json:"doc_ref"`
	URI          string             `json:"uri"`
	Elements     []DPEElementDetail `json:"elements"`
	ElementCount int                `json:"element_count"`
}

// --- resource read bridge -------------------------------------------------------

// ReadResourceReq is the payload of client:read_resource.
type ReadResourceReq struct {
	Agent    string `json:"agent"`
	ReqID    string `json:"req_id"`
	Computer string `json:"computer"`
	URI      string `json:"uri"`
}

// ResourceContents is one entry of an MCP ReadResourceResult: either Text or
// Blob (base64) is set.
type ResourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
}

// ReadResourceRet answers client:read_resource with the MCP
// ReadResourceResult the owning server returned.
type ReadResourceRet struct {
	Contents []ResourceContents `json:"contents"`
}
