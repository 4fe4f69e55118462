package computer

import (
	"encoding/base64"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// mintBlobs replaces, in res, the bytes of every image, audio and
// embedded-blob item larger than the inline budget with a handle of the
// blob store (its data emptied, _meta carrying a2c_blob_handle,
// a2c_total_size and a2c_sha256), as the SDK's on_tool_call does. An item
// whose data is not base64, bigger than the item cap, or that cannot be
// kept stays inline.
func (c *Computer) mintBlobs(res *mcp.CallToolResult, tool string) {
	for i, item := range res.Content {
		switch v := item.(type) {
		case mcp.ImageContent:
			if c.mintItem(&v.Data, v.MIMEType, &v.Meta, tool) {
				res.Content[i] = v
			}
		case *mcp.ImageContent:
			c.mintItem(&v.Data, v.MIMEType, &v.Meta, tool)
		case mcp.AudioContent:
			if c.mintItem(&v.Data, v.MIMEType, &v.Meta, tool) {
				res.Content[i] = v
			}
		case *mcp.AudioContent:
			c.mintItem(&v.Data, v.MIMEType, &v.Meta, tool)
		case mcp.EmbeddedResource:
			if c.mintEmbedded(&v, tool) {
				res.Content[i] = v
			}
		case *mcp.EmbeddedResource:
			c.mintEmbedded(v, tool)
		}
	}
}

// mintEmbedded mints the blob of an embedded BlobResourceContents.
func (c *Computer) mintEmbedded(e *mcp.EmbeddedResource, tool string) bool {
	switch r := e.Resource.(type) {
	case mcp.BlobResourceContents:
		if c.mintItem(&r.Blob, r.MIMEType, &e.Meta, tool) {
			e.Resource = r
			return true
		}
	case *mcp.BlobResourceContents:
		return c.mintItem(&r.Blob, r.MIMEType, &e.Meta, tool)
	}
	return false
}

// mintItem keeps the base64 bytes *data (of type mime) under a new
// handle when they are over the inline budget, empties *data and writes
// the handle into *meta; it reports whether it did.
func (c *Computer) mintItem(data *string, mime string, meta **mcp.Meta, tool string) bool {
	size, ok := decodedLen(*data)
	if !ok || size <= int64(c.opts.Blobs.InlineBudget) {
		return false
	}
	if size > int64(c.opts.Blobs.MaxItemBytes) {
		c.log.Warn("tool result item too large to keep by handle; left inline", "tool", tool, "bytes", size, "cap", c.opts.Blobs.MaxItemBytes)
		return false
	}
	b, err := c.blobs.putBase64(c.opts.Office, strings.TrimSpace(mimeOr(mime)), *data, size)
	if err != nil {
		c.log.Warn("tool result item not kept by handle; left inline", "tool", tool, "bytes", size, "err", err)
		return false
	}
	if *meta == nil {
		*meta = &mcp.Meta{}
	}
	if (*meta).AdditionalFields == nil {
		(*meta).AdditionalFields = map[string]any{}
	}
	(*meta).AdditionalFields[protocol.MetaBlobHandle] = b.Handle
	(*meta).AdditionalFields[protocol.MetaTotalSize] = b.Size
	(*meta).AdditionalFields[protocol.MetaSHA256] = b.SHA256
	*data = ""
	c.log.Info("tool result item kept by handle", "tool", tool, "bytes", b.Size, "mime", mime)
	return true
}

func mimeOr(mime string) string {
	if mime == "" {
		return "application/octet-stream"
	}
	return mime
}

// decodedLen is the number of bytes the standard base64 s decodes to,
// and false when s is not padded base64 of the standard alphabet (checked
// without decoding: the store decodes it once, streaming).
func decodedLen(s string) (int64, bool) {
	if len(s)%4 != 0 {
		return 0, false
	}
	pad := 0
	for i := len(s) - 1; i >= 0 && i >= len(s)-2 && s[i] == '='; i-- {
		pad++
	}
	for i := 0; i < len(s)-pad; i++ {
		ch := s[i]
		if !('A' <= ch && ch <= 'Z' || 'a' <= ch && ch <= 'z' || '0' <= ch && ch <= '9' || ch == '+' || ch == '/') {
			return 0, false
		}
	}
	return int64(base64.StdEncoding.DecodedLen(len(s)) - pad), true
}
