package protocol

// --- client:get_resources (events.md, data-structures.md) ---------------------

// GetResourcesReq is the payload of client:get_resources: one page of the
// resources/list of the MCP server whose bundle_id is MCPServer.
type GetResourcesReq struct {
	Agent     string `json:"agent"`
	ReqID     string `json:"req_id"`
	Computer  string `json:"computer"`
	MCPServer string `json:"mcp_server"`
	Cursor    string `json:"cursor,omitempty"`
}

// GetResourcesRet answers client:get_resources; NextCursor is set when
// there is another page.
type GetResourcesRet struct {
	Resources  []A2CResource `json:"resources"`
	NextCursor string        `json:"next_cursor,omitempty"`
	ReqID      string        `json:"req_id"`
}

// A2CResource is an MCP Resource with the protocol's snake_case names.
type A2CResource struct {
	URI         string               `json:"uri"`
	Name        string               `json:"name"`
	Description string               `json:"description,omitempty"`
	MIMEType    string               `json:"mime_type,omitempty"`
	Size        *int64               `json:"size,omitempty"`
	Annotations *ResourceAnnotations `json:"annotations,omitempty"`
	Meta        map[string]any       `json:"_meta,omitempty"`
}

// ResourceAnnotations are the MCP annotations of an A2CResource.
type ResourceAnnotations struct {
	Audience     []string `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	LastModified string   `json:"last_modified,omitempty"`
}

// --- SKILL channel and blob transfer (skill.md, blob-transfer.md) --------------

// GetSkillsReq is the payload of client:get_skills.
type GetSkillsReq = ComputerCall

// GetSkillsRet answers client:get_skills.
type GetSkillsRet struct {
	Skills []A2CSkillRef `json:"skills"`
	ReqID  string        `json:"req_id"`
}

// A2CSkillRef is one SKILL in a GetSkillsRet: name, source, path and
// description are always sent; the rest come from SKILL.md's front matter
// (or, for version, the source's manifest) and are omitted when absent.
type A2CSkillRef struct {
	Name          string         `json:"name"`
	Source        string         `json:"source"`
	URI           string         `json:"uri,omitempty"`
	Path          string         `json:"path"`
	Description   string         `json:"description"`
	License       string         `json:"license,omitempty"`
	Compatibility string         `json:"compatibility,omitempty"`
	AllowedTools  []string       `json:"allowed_tools,omitempty"`
	Tags          []string       `json:"tags,omitempty"`
	Version       string         `json:"version,omitempty"`
	SkillMetadata map[string]any `json:"skill_metadata,omitempty"`
}

// GetSkillReq is the payload of client:get_skill; RelPath defaults to
// SKILL.md.
type GetSkillReq struct {
	Agent    string `json:"agent"`
	ReqID    string `json:"req_id"`
	Computer string `json:"computer"`
	Name     string `json:"name"`
	RelPath  string `json:"rel_path,omitempty"`
}

// GetSkillRet answers client:get_skill: one resource of a SKILL, inline
// in Body when it is text within the inline budget, else by BlobHandle
// (exactly one of the two is set). TotalSize and SHA256 describe the bytes
// the agent consumes (SKILL.md without its front matter).
type GetSkillRet struct {
	Name       string  `json:"name"`
	RelPath    string  `json:"rel_path"`
	MIMEType   string  `json:"mime_type"`
	TotalSize  int64   `json:"total_size"`
	SHA256     string  `json:"sha256"`
	Body       *string `json:"body,omitempty"`
	BlobHandle string  `json:"blob_handle,omitempty"`
	ReqID      string  `json:"req_id"`
}

// GetBlobReq is the payload of client:get_blob.
type GetBlobReq struct {
	Agent         string `json:"agent"`
	ReqID         string `json:"req_id"`
	Computer      string `json:"computer"`
	BlobHandle    string `json:"blob_handle"`
	ChunkOffset   *int64 `json:"chunk_offset,omitempty"`
	MaxChunkBytes *int64 `json:"max_chunk_bytes,omitempty"`
}

// GetBlobRet answers client:get_blob: one chunk (Blob, base64) of the
// blob at ChunkOffset; EOF is set on the chunk that ends it.
type GetBlobRet struct {
	BlobHandle  string `json:"blob_handle"`
	MIMEType    string `json:"mime_type"`
	TotalSize   int64  `json:"total_size"`
	SHA256      string `json:"sha256"`
	ChunkOffset int64  `json:"chunk_offset"`
	EOF         bool   `json:"eof"`
	Blob        string `json:"blob"`
	ReqID       string `json:"req_id"`
}

// Meta keys of a tool-result content item whose bytes are sent by handle.
const (
	MetaBlobHandle = "a2c_blob_handle"
	MetaTotalSize  = "a2c_total_size"
	MetaSHA256     = "a2c_sha256"
)

// PutBlobReq is one chunk of client:put_blob (a2c-smcp 0.4 upload
// channel): UploadID is absent on the first chunk, which alone carries
// TotalSize, SHA256 and NameHint.
type PutBlobReq struct {
	Agent       string  `json:"agent"`
	ReqID       string  `json:"req_id"`
	Computer    string  `json:"computer"`
	UploadID    *string `json:"upload_id,omitempty"`
	ChunkOffset *int64  `json:"chunk_offset,omitempty"`
	EOF         bool    `json:"eof"`
	TotalSize   *int64  `json:"total_size,omitempty"`
	SHA256      *string `json:"sha256,omitempty"`
	NameHint    *string `json:"name_hint,omitempty"`
	Blob        *string `json:"blob,omitempty"`
}

// PutBlobRet answers one client:put_blob chunk; the last chunk's answer
// carries LandingPath, TotalSize and SHA256.
type PutBlobRet struct {
	UploadID    string `json:"upload_id"`
	ChunkOffset int64  `json:"chunk_offset"`
	LandingPath string `json:"landing_path,omitempty"`
	TotalSize   *int64 `json:"total_size,omitempty"`
	SHA256      string `json:"sha256,omitempty"`
	ReqID       string `json:"req_id"`
}
