package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// BlobChunkBytes is the chunk size this Agent asks for and uploads in:
// the official SDK's 256 KiB, the most its Computer sends in one chunk.
const BlobChunkBytes = 256 << 10

// ErrBlobCorrupt reports a blob whose chunks do not add up: sizes or
// sha256 that change between chunks, a chunk past the total, or bytes
// whose sha256 is not the one the Computer declared.
var ErrBlobCorrupt = errors.New("blob corrupt")

// GetBlobChunk asks computer for one chunk of the blob handle at offset,
// at most max bytes (0: the Computer's chunk size).
func (c *Client) GetBlobChunk(ctx context.Context, computer, handle string, offset, max int64) (*protocol.GetBlobRet, error) {
	h := c.header(computer)
	req := protocol.GetBlobReq{Agent: h.Agent, ReqID: h.ReqID, Computer: computer, BlobHandle: handle, ChunkOffset: &offset}
	if max > 0 {
		req.MaxChunkBytes = &max
	}
	var ret protocol.GetBlobRet
	if err := c.call(ctx, protocol.EventGetBlob, req, &ret); err != nil {
		return nil, err
	}
	return &ret, nil
}

// BlobInfo describes a blob read whole.
type BlobInfo struct {
	MIMEType  string
	TotalSize int64
	SHA256    string
}

// CopyBlob reads the blob handle of computer chunk by chunk to eof into w
// and checks its size and sha256 (ErrBlobCorrupt otherwise); every chunk
// is one request bounded by the client's timeout.
func (c *Client) CopyBlob(ctx context.Context, computer, handle string, w io.Writer) (BlobInfo, error) {
	h := sha256.New()
	var info BlobInfo
	var off int64
	for first := true; ; first = false {
		ret, err := c.GetBlobChunk(ctx, computer, handle, off, BlobChunkBytes)
		if err != nil {
			return info, fmt.Errorf("get_blob at offset %d: %w", off, err)
		}
		if first {
			info = BlobInfo{MIMEType: ret.MIMEType, TotalSize: ret.TotalSize, SHA256: ret.SHA256}
		}
		chunk, err := base64.StdEncoding.DecodeString(ret.Blob)
		switch {
		case err != nil:
			return info, fmt.Errorf("%w: chunk at %d is not base64: %v", ErrBlobCorrupt, off, err)
		case ret.TotalSize != info.TotalSize || ret.SHA256 != info.SHA256 || ret.ChunkOffset != off:
			return info, fmt.Errorf("%w: chunk at %d says size %d, sha256 %s, offset %d", ErrBlobCorrupt, off, ret.TotalSize, ret.SHA256, ret.ChunkOffset)
		case off+int64(len(chunk)) > info.TotalSize, !ret.EOF && len(chunk) == 0:
			return info, fmt.Errorf("%w: chunk at %d of %d bytes does not fit the %d declared", ErrBlobCorrupt, off, len(chunk), info.TotalSize)
		}
		if _, err := w.Write(chunk); err != nil {
			return info, fmt.Errorf("write blob: %w", err)
		}
		h.Write(chunk)
		off += int64(len(chunk))
		if ret.EOF {
			break
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); off != info.TotalSize || got != info.SHA256 {
		return info, fmt.Errorf("%w: %d bytes with sha256 %s, declared %d with %s", ErrBlobCorrupt, off, got, info.TotalSize, info.SHA256)
	}
	return info, nil
}

// GetBlob reads the blob handle of computer whole (see CopyBlob); at
// most max bytes (0: no bound) are taken.
func (c *Client) GetBlob(ctx context.Context, computer, handle string, max int64) ([]byte, BlobInfo, error) {
	var buf bytes.Buffer
	var w io.Writer = &buf
	if max > 0 {
		w = &boundedWriter{w: &buf, left: max}
	}
	info, err := c.CopyBlob(ctx, computer, handle, w)
	if err != nil {
		return nil, info, err
	}
	return buf.Bytes(), info, nil
}

type boundedWriter struct {
	w    io.Writer
	left int64
}

func (b *boundedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > b.left {
		return 0, errors.New("blob is larger than the bound asked for")
	}
	b.left -= int64(len(p))
	return b.w.Write(p)
}

// BlobHandles returns the handles of the items of res whose bytes were
// sent by handle, by item index.
func BlobHandles(res *protocol.CallToolResult) map[int]string {
	out := map[int]string{}
	for i, it := range res.Content {
		if h, ok := it.Meta[protocol.MetaBlobHandle].(string); ok && h != "" {
			out[i] = h
		}
	}
	return out
}

// ResolveBlobs fetches the blob of every item of res that came by handle
// and puts its bytes back (base64 in data, or in resource.blob), as the
// SDK's Agent does; max bounds one blob (0: no bound). The handle stays
// in _meta.
func (c *Client) ResolveBlobs(ctx context.Context, computer string, res *protocol.CallToolResult, max int64) error {
	for i, handle := range BlobHandles(res) {
		b, _, err := c.GetBlob(ctx, computer, handle, max)
		if err != nil {
			return fmt.Errorf("content item %d: %w", i, err)
		}
		it := &res.Content[i]
		if it.Type != "resource" {
			it.Data = base64.StdEncoding.EncodeToString(b)
			continue
		}
		var r map[string]any
		if err := json.Unmarshal(it.Resource, &r); err != nil || r == nil {
			return fmt.Errorf("content item %d: resource is not an object", i)
		}
		r["blob"] = base64.StdEncoding.EncodeToString(b)
		if it.Resource, err = json.Marshal(r); err != nil {
			return fmt.Errorf("content item %d: %w", i, err)
		}
	}
	return nil
}

// PutBlob uploads size bytes from r to computer with client:put_blob in
// chunks of BlobChunkBytes, declaring sha256Hex (the hex sha256 of those
// bytes) and nameHint; it returns the last chunk's answer, whose
// LandingPath names the file on the computer.
func (c *Client) PutBlob(ctx context.Context, computer string, r io.Reader, size int64, sha256Hex, nameHint string) (*protocol.PutBlobRet, error) {
	buf := make([]byte, BlobChunkBytes)
	var off int64
	var uploadID *string
	for {
		n, err := io.ReadFull(r, buf[:min(int64(len(buf)), size-off)])
		if err != nil && !(errors.Is(err, io.EOF) && size == 0) {
			return nil, fmt.Errorf("read at %d: %w", off, err)
		}
		h := c.header(computer)
		blob := base64.StdEncoding.EncodeToString(buf[:n])
		eof := off+int64(n) == size
		req := protocol.PutBlobReq{Agent: h.Agent, ReqID: h.ReqID, Computer: computer, UploadID: uploadID,
			ChunkOffset: &off, EOF: eof, Blob: &blob}
		if uploadID == nil {
			req.TotalSize, req.SHA256 = &size, &sha256Hex
			if nameHint != "" {
				req.NameHint = &nameHint
			}
		}
		var ret protocol.PutBlobRet
		if err := c.call(ctx, protocol.EventPutBlob, req, &ret); err != nil {
			return nil, fmt.Errorf("put_blob at offset %d: %w", off, err)
		}
		if eof {
			return &ret, nil
		}
		uploadID = &ret.UploadID
		off += int64(n)
	}
}
