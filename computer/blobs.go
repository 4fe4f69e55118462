package computer

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/opt"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Binary tool results by handle (blob-transfer.md, a2c-smcp 0.2.1+): an
// image, audio or embedded-blob item of a client:tool_call result whose
// decoded bytes exceed the inline budget is kept by the Computer and sent
// with its data emptied and _meta {a2c_blob_handle, a2c_total_size,
// a2c_sha256}; the Agent reads it with client:get_blob, chunk by chunk.
//
// The numbers the spec leaves to implementations are the official Python
// SDK's (a2c_smcp 0.4.2, computer/blob/thresholds.py): inline budget
// 32 KiB, chunks of at most 256 KiB (a smaller max_chunk_bytes is
// honoured), no handle for an item over 100 MiB (it stays inline, so the
// answer is refused with 413 as before). The SDK keeps blobs in a
// content-addressed spool that never expires and whose handle is the
// sha256 itself; this store instead mints unguessable handles (128 random
// bits) bound to the office the Computer was in, bounds its blobs in bytes
// and count (the oldest go first) and forgets a blob idle for
// DefaultBlobIdle. A handle it minted and forgot answers 4018 gone; one it
// never minted, invalid_handle; one minted in another office, forbidden.

// Defaults of the blob options.
const (
	DefaultBlobInlineBudget = 32 << 10
	DefaultBlobChunkBytes   = 256 << 10
	DefaultBlobMaxItemBytes = 100 << 20
	DefaultBlobMaxBytes     = 1 << 30
	DefaultBlobMaxCount     = 256
	DefaultBlobIdle         = 10 * time.Minute
	// blobSpillBytes: a blob bigger than this is kept in a temporary file,
	// not in memory.
	blobSpillBytes = 1 << 20
	// blobHandlePrefix starts every handle this Computer mints.
	blobHandlePrefix = "a2cblob-"
	// maxTombstones bounds the handles remembered as gone.
	maxTombstones = 4096
)

// blobLimits are the bounds of a blobStore.
type blobLimits struct {
	MaxBytes int64         // total size of the blobs kept
	MaxCount int           // number of blobs kept
	Idle     time.Duration // a blob not read for this long is forgotten
	Chunk    int           // the largest chunk get_blob sends
}

// blobStore keeps the blobs of tool results by handle.
type blobStore struct {
	lim blobLimits
	now func() time.Time
	log *slog.Logger

	mu       sync.Mutex
	dir      string // temporary directory of the spilled blobs, made on first use
	entries  map[string]*blobEntry
	order    []string // handles, oldest first
	bytes    int64
	gone     map[string]bool
	goneFIFO []string
}

// blobEntry is one kept blob: in memory (data) or in a file (path).
type blobEntry struct {
	office, mime, sha256 string
	size                 int64
	data                 []byte
	path                 string
	used                 time.Time
}

// blobMeta is what a minted blob's handle comes with.
type blobMeta struct {
	Handle string
	Size   int64
	SHA256 string
}

func newBlobStore(lim blobLimits, log *slog.Logger) *blobStore {
	opt.Default(&lim.MaxBytes, DefaultBlobMaxBytes)
	opt.Default(&lim.MaxCount, DefaultBlobMaxCount)
	opt.Default(&lim.Idle, DefaultBlobIdle)
	opt.Default(&lim.Chunk, DefaultBlobChunkBytes)
	return &blobStore{lim: lim, now: time.Now, log: opt.Logger(log),
		entries: map[string]*blobEntry{}, gone: map[string]bool{}}
}

// putBase64 decodes b64 (size decoded bytes) into a new blob of office
// and returns its handle. A blob bigger than blobSpillBytes is decoded
// straight into a temporary file.
func (s *blobStore) putBase64(office, mime, b64 string, size int64) (blobMeta, error) {
	if size > s.lim.MaxBytes {
		return blobMeta{}, fmt.Errorf("blob of %d bytes is larger than the store (%d bytes)", size, s.lim.MaxBytes)
	}
	e := &blobEntry{office: office, mime: mime, size: size}
	h := sha256.New()
	src := base64.NewDecoder(base64.StdEncoding, strings.NewReader(b64))
	var err error
	if size > blobSpillBytes {
		e.path, err = s.spill(src, h)
	} else {
		e.data, err = io.ReadAll(io.TeeReader(src, h))
	}
	if err != nil {
		return blobMeta{}, fmt.Errorf("keep blob: %w", err)
	}
	e.sha256 = hex.EncodeToString(h.Sum(nil))
	return s.add(e), nil
}

// putBytes keeps data as a new blob of office and returns its handle (in a
// temporary file when it is bigger than blobSpillBytes).
func (s *blobStore) putBytes(office, mime string, data []byte) (blobMeta, error) {
	size := int64(len(data))
	if size > s.lim.MaxBytes {
		return blobMeta{}, fmt.Errorf("blob of %d bytes is larger than the store (%d bytes)", size, s.lim.MaxBytes)
	}
	e := &blobEntry{office: office, mime: mime, size: size}
	sum := sha256.Sum256(data)
	e.sha256 = hex.EncodeToString(sum[:])
	if size > blobSpillBytes {
		path, err := s.spill(bytes.NewReader(data), sha256.New())
		if err != nil {
			return blobMeta{}, fmt.Errorf("keep blob: %w", err)
		}
		e.path = path
	} else {
		e.data = data
	}
	return s.add(e), nil
}

// spill writes src into a new file of the store's directory, hashing it.
func (s *blobStore) spill(src io.Reader, h hash.Hash) (string, error) {
	s.mu.Lock()
	if s.dir == "" {
		dir, err := os.MkdirTemp("", "smcp-blobs-")
		if err != nil {
			s.mu.Unlock()
			return "", fmt.Errorf("blob directory: %w", err)
		}
		s.dir = dir
	}
	dir := s.dir
	s.mu.Unlock()
	f, err := os.CreateTemp(dir, "blob-")
	if err != nil {
		return "", fmt.Errorf("blob file: %w", err)
	}
	_, err = io.Copy(io.MultiWriter(f, h), src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("write blob file: %w", err)
	}
	return f.Name(), nil
}

// add keeps e under a new handle, forgetting the oldest blobs while the
// store is over its bounds.
func (s *blobStore) add(e *blobEntry) blobMeta {
	handle := blobHandlePrefix + rand.Text()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire()
	e.used = s.now()
	for len(s.order) > 0 && (len(s.order)+1 > s.lim.MaxCount || s.bytes+e.size > s.lim.MaxBytes) {
		s.forget(s.order[0], "evicted")
	}
	s.entries[handle] = e
	s.order = append(s.order, handle)
	s.bytes += e.size
	return blobMeta{Handle: handle, Size: e.size, SHA256: e.sha256}
}

// expire forgets the blobs idle for longer than the limit; s.mu is held.
func (s *blobStore) expire() {
	now := s.now()
	for _, h := range append([]string(nil), s.order...) {
		if now.Sub(s.entries[h].used) > s.lim.Idle {
			s.forget(h, "expired")
		}
	}
}

// forget drops the blob of handle and remembers the handle as gone; s.mu
// is held.
func (s *blobStore) forget(handle, why string) {
	e, ok := s.entries[handle]
	if !ok {
		return
	}
	delete(s.entries, handle)
	for i, h := range s.order {
		if h == handle {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
	s.bytes -= e.size
	if e.path != "" {
		if err := os.Remove(e.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.log.Warn("blob file not removed", "path", e.path, "err", err)
		}
	}
	s.gone[handle] = true
	s.goneFIFO = append(s.goneFIFO, handle)
	if len(s.goneFIFO) > maxTombstones {
		delete(s.gone, s.goneFIFO[0])
		s.goneFIFO = s.goneFIFO[1:]
	}
	s.log.Debug("blob forgotten", "why", why, "bytes", e.size)
}

// blobError is the 4018 with details.reason.
func blobError(reason, format string, args ...any) *protocol.Error {
	return protocol.Errorf(protocol.CodeBlobNotAccessible, format, args...).WithDetails(map[string]any{"reason": reason})
}

// lookup returns the blob of handle for an agent of office: 4018
// invalid_handle, gone or forbidden when there is none it may read.
func (s *blobStore) lookup(handle, office string) (blobEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire()
	e, ok := s.entries[handle]
	switch {
	case ok && e.office != office:
		return blobEntry{}, blobError("forbidden", "blob handle was issued in another office")
	case ok:
		e.used = s.now()
		return *e, nil
	case s.gone[handle]:
		return blobEntry{}, blobError("gone", "blob is no longer kept (expired or evicted); call the tool again")
	}
	return blobEntry{}, blobError("invalid_handle", "blob handle %q was not issued by this computer", clip(handle))
}

// chunk reads the chunk of handle at offset (at most max bytes, clamped
// to the store's chunk size; 0 means the chunk size) for an agent of
// office.
func (s *blobStore) chunk(handle, office string, offset, max int64) (protocol.GetBlobRet, error) {
	e, err := s.lookup(handle, office)
	if err != nil {
		return protocol.GetBlobRet{}, err
	}
	if offset < 0 || offset > e.size {
		return protocol.GetBlobRet{}, blobError("range", "chunk_offset %d is outside the blob's %d bytes", offset, e.size)
	}
	n := int64(s.lim.Chunk)
	if max > 0 {
		n = min(n, max)
	}
	n = min(n, e.size-offset)
	buf, err := e.read(offset, n)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return protocol.GetBlobRet{}, blobError("gone", "blob is no longer kept")
		}
		return protocol.GetBlobRet{}, protocol.Errorf(protocol.CodeInternalError, "read blob: %v", err)
	}
	return protocol.GetBlobRet{BlobHandle: handle, MIMEType: e.mime, TotalSize: e.size, SHA256: e.sha256,
		ChunkOffset: offset, EOF: offset+n == e.size, Blob: base64.StdEncoding.EncodeToString(buf)}, nil
}

// read returns n bytes of the blob at offset.
func (e blobEntry) read(offset, n int64) ([]byte, error) {
	if e.path == "" {
		return e.data[offset : offset+n], nil
	}
	f, err := os.Open(e.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, offset); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(e.path), err)
	}
	return buf, nil
}

// close forgets every blob and removes the temporary directory.
func (s *blobStore) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range append([]string(nil), s.order...) {
		s.forget(h, "closed")
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
		s.dir = ""
	}
}

// stats returns the number and total size of the blobs kept.
func (s *blobStore) stats() (count int, bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries), s.bytes
}

// handleGetBlob serves client:get_blob: one chunk of a blob this Computer
// minted for a tool result in its office.
func (c *Computer) handleGetBlob(ctx context.Context, req protocol.GetBlobReq) (any, error) {
	if req.BlobHandle == "" {
		return nil, blobError("invalid_handle", "blob_handle is required")
	}
	var offset, max int64
	if req.ChunkOffset != nil {
		offset = *req.ChunkOffset
	}
	if req.MaxChunkBytes != nil {
		max = *req.MaxChunkBytes
	}
	ret, err := c.blobs.chunk(req.BlobHandle, c.opts.Office, offset, max)
	if err != nil {
		c.log.Info("get_blob refused", "req_id", req.ReqID, "agent", req.Agent, "err", err)
		return nil, err
	}
	ret.ReqID = req.ReqID
	return ret, nil
}
