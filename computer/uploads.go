package computer

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/opt"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Uploads (client:put_blob, a2c-smcp 0.4.0, blob-transfer.md §3 and §7):
// an Agent sends a file in order, chunk by chunk; the first chunk (no
// upload_id) declares total_size and sha256 and opens a session, the last
// (eof) closes it, and the file lands under the configured landing root
// with a name the Computer makes. The rules the spec leaves open are the
// official Python SDK's (a2c_smcp 0.4.2, computer/blob/upload.py and
// thresholds.py): at most 4 sessions at once (the next first chunk is
// busy), a session idle for 120 s is dropped (its upload_id is then
// invalid_upload), at most 100 MiB declared (too_large before a byte is
// written), chunks written to <root>/.a2c-upload/<upload_id>.part and
// renamed to <root>/<upload_id>[_<name_hint sanitized>] when the sha256
// matches (a mismatch is integrity and the part file is removed), a
// received byte past the declared size drops the session (range). Every
// path is opened through an os.Root, so no name reaches outside the root.
// Unlike the SDK, a session answers only the agent that opened it.

// Defaults of UploadOptions.
const (
	DefaultUploadMaxBytes    = 100 << 20
	DefaultUploadMaxSessions = 4
	DefaultUploadIdle        = 120 * time.Second
	// uploadPartDir holds the parts of the uploads under way.
	uploadPartDir  = ".a2c-upload"
	maxNameHintLen = 64
)

// UploadOptions configure client:put_blob.
type UploadOptions struct {
	// LandingRoot is the absolute directory uploads land in (the spec's
	// landingRoot); "" refuses every upload with 4019 forbidden.
	LandingRoot string
	MaxBytes    int64         // declared total_size cap (DefaultUploadMaxBytes)
	MaxSessions int           // sessions under way at once (DefaultUploadMaxSessions)
	Idle        time.Duration // a session idle this long is dropped (DefaultUploadIdle)
}

// uploadStore holds the upload sessions of one Computer.
type uploadStore struct {
	opts UploadOptions
	log  *slog.Logger
	now  func() time.Time

	mu       sync.Mutex
	root     *os.Root // opened on the first upload
	sessions map[string]*upload
}

// upload is one session under way.
type upload struct {
	id, agent   string
	part, final string // names relative to the root
	f           *os.File
	received    int64
	total       int64
	declared    string
	h           hash.Hash
	used        time.Time
}

func newUploadStore(opts UploadOptions, log *slog.Logger) (*uploadStore, error) {
	if opts.LandingRoot != "" && !filepath.IsAbs(opts.LandingRoot) {
		return nil, fmt.Errorf("landing root %q must be an absolute path", opts.LandingRoot)
	}
	opt.Default(&opts.MaxBytes, DefaultUploadMaxBytes)
	opt.Default(&opts.MaxSessions, DefaultUploadMaxSessions)
	opt.Default(&opts.Idle, DefaultUploadIdle)
	return &uploadStore{opts: opts, log: opt.Logger(log), now: time.Now,
		sessions: map[string]*upload{}}, nil
}

// uploadError is the 4019 with details.reason (and upload_id when known).
func uploadError(reason, uploadID, format string, args ...any) *protocol.Error {
	d := map[string]any{"reason": reason}
	if uploadID != "" {
		d["upload_id"] = uploadID
	}
	return protocol.Errorf(protocol.CodeBlobWriteFailed, format, args...).WithDetails(d)
}

var sha256Hex = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)

// put takes one chunk of req.
func (s *uploadStore) put(req protocol.PutBlobReq) (protocol.PutBlobRet, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire()
	if req.UploadID == nil {
		return s.first(req)
	}
	u, ok := s.sessions[*req.UploadID]
	if !ok || u.agent != req.Agent {
		return protocol.PutBlobRet{}, uploadError("invalid_upload", clip(*req.UploadID), "unknown or expired upload session; start again without upload_id")
	}
	if req.TotalSize != nil || req.SHA256 != nil || req.NameHint != nil {
		return protocol.PutBlobRet{}, uploadError("invalid_declaration", u.id, "total_size, sha256 and name_hint belong to the first chunk only")
	}
	return s.append(u, req)
}

// first opens a session for a first chunk and takes the chunk.
func (s *uploadStore) first(req protocol.PutBlobReq) (protocol.PutBlobRet, error) {
	if s.opts.LandingRoot == "" {
		return protocol.PutBlobRet{}, uploadError("forbidden", "", "this computer accepts no uploads (no landing root is configured)")
	}
	switch {
	case req.TotalSize == nil || *req.TotalSize < 1:
		return protocol.PutBlobRet{}, uploadError("invalid_declaration", "", "the first chunk must declare total_size >= 1")
	case req.SHA256 == nil || !sha256Hex.MatchString(*req.SHA256):
		return protocol.PutBlobRet{}, uploadError("invalid_declaration", "", "the first chunk must declare sha256 as 64 hex digits")
	case *req.TotalSize > s.opts.MaxBytes:
		return protocol.PutBlobRet{}, uploadError("too_large", "", "declared total_size %d is over this computer's upload cap of %d bytes", *req.TotalSize, s.opts.MaxBytes).
			WithDetails(map[string]any{"reason": "too_large", "total_size": *req.TotalSize, "limit": s.opts.MaxBytes})
	case len(s.sessions) >= s.opts.MaxSessions:
		return protocol.PutBlobRet{}, uploadError("busy", "", "%d uploads are under way, the most this computer takes; retry later", len(s.sessions))
	}
	root, err := s.openRoot()
	if err != nil {
		s.log.Warn("put_blob: landing root not usable", "root", s.opts.LandingRoot, "err", err)
		return protocol.PutBlobRet{}, uploadError("forbidden", "", "the landing root is not writable")
	}
	id := strings.ToLower(rand.Text())
	u := &upload{id: id, agent: req.Agent, part: filepath.Join(uploadPartDir, id+".part"), final: id,
		total: *req.TotalSize, declared: strings.ToLower(*req.SHA256), h: sha256.New(), used: s.now()}
	if hint := sanitizeNameHint(deref(req.NameHint)); hint != "" {
		u.final = id + "_" + hint
	}
	if u.f, err = root.OpenFile(u.part, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err != nil {
		s.log.Warn("put_blob: cannot create the part file", "err", err)
		return protocol.PutBlobRet{}, uploadError("forbidden", "", "the landing root is not writable")
	}
	s.sessions[id] = u
	s.collectOrphans()
	return s.append(u, req)
}

// openRoot makes and opens the landing root and its part directory; s.mu
// is held.
func (s *uploadStore) openRoot() (*os.Root, error) {
	if s.root != nil {
		return s.root, nil
	}
	if err := os.MkdirAll(s.opts.LandingRoot, 0o700); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(s.opts.LandingRoot)
	if err != nil {
		return nil, err
	}
	if err := root.MkdirAll(uploadPartDir, 0o700); err != nil {
		root.Close()
		return nil, err
	}
	s.root = root
	return root, nil
}

// append writes req's chunk to u, in order, and finishes u at eof.
func (s *uploadStore) append(u *upload, req protocol.PutBlobReq) (protocol.PutBlobRet, error) {
	if req.ChunkOffset == nil || *req.ChunkOffset != u.received {
		return protocol.PutBlobRet{}, uploadError("range", u.id, "chunk_offset must be %d, the bytes received so far", u.received).
			WithDetails(map[string]any{"reason": "range", "upload_id": u.id, "expected_offset": u.received})
	}
	if req.Blob == nil {
		return protocol.PutBlobRet{}, uploadError("invalid_declaration", u.id, "blob (base64) is required")
	}
	chunk, err := base64.StdEncoding.DecodeString(*req.Blob)
	if err != nil {
		return protocol.PutBlobRet{}, uploadError("invalid_declaration", u.id, "blob is not valid base64")
	}
	end := u.received + int64(len(chunk))
	if end > u.total {
		s.drop(u)
		return protocol.PutBlobRet{}, uploadError("range", u.id, "the chunk takes the upload past its declared %d bytes; the upload is dropped", u.total)
	}
	if req.EOF && end != u.total {
		return protocol.PutBlobRet{}, uploadError("range", u.id, "the last chunk ends at %d, not at the declared total_size %d", end, u.total)
	}
	if _, err := u.f.Write(chunk); err != nil {
		s.log.Warn("put_blob: write failed", "upload_id", u.id, "err", err)
		s.drop(u)
		return protocol.PutBlobRet{}, uploadError("io_error", u.id, "writing the upload failed")
	}
	u.h.Write(chunk)
	u.received, u.used = end, s.now()
	ret := protocol.PutBlobRet{UploadID: u.id, ChunkOffset: *req.ChunkOffset, ReqID: req.ReqID}
	if !req.EOF {
		return ret, nil
	}
	return s.finish(u, ret)
}

// finish checks u's sha256 and renames its part to the landing name.
func (s *uploadStore) finish(u *upload, ret protocol.PutBlobRet) (protocol.PutBlobRet, error) {
	err := u.f.Sync()
	if cerr := u.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		s.drop(u)
		return protocol.PutBlobRet{}, uploadError("io_error", u.id, "flushing the upload failed")
	}
	sum := hex.EncodeToString(u.h.Sum(nil))
	if sum != u.declared {
		s.drop(u)
		return protocol.PutBlobRet{}, uploadError("integrity", u.id, "the bytes received have sha256 %s, not the declared %s; the upload is discarded", sum, u.declared)
	}
	if err := s.root.Rename(u.part, u.final); err != nil {
		s.log.Warn("put_blob: rename failed", "upload_id", u.id, "err", err)
		s.drop(u)
		return protocol.PutBlobRet{}, uploadError("io_error", u.id, "finishing the upload failed")
	}
	delete(s.sessions, u.id)
	ret.LandingPath = filepath.Join(s.opts.LandingRoot, u.final)
	ret.TotalSize, ret.SHA256 = &u.received, sum
	s.log.Info("upload landed", "upload_id", u.id, "agent", u.agent, "bytes", u.received, "path", ret.LandingPath)
	return ret, nil
}

// drop ends u and removes its part file; s.mu is held.
func (s *uploadStore) drop(u *upload) {
	delete(s.sessions, u.id)
	u.f.Close()
	if err := s.root.Remove(u.part); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.log.Warn("put_blob: part file not removed", "upload_id", u.id, "err", err)
	}
}

// expire drops the sessions idle for longer than the limit; s.mu is held.
func (s *uploadStore) expire() {
	now := s.now()
	for _, u := range s.sessions {
		if now.Sub(u.used) > s.opts.Idle {
			s.log.Info("upload session expired", "upload_id", u.id, "agent", u.agent)
			s.drop(u)
		}
	}
}

// collectOrphans removes the part files no session owns that are older
// than the idle limit (left by an earlier run); s.mu is held.
func (s *uploadStore) collectOrphans() {
	entries, err := fs.ReadDir(s.root.FS(), uploadPartDir)
	if err != nil {
		return
	}
	live := map[string]bool{}
	for _, u := range s.sessions {
		live[filepath.Base(u.part)] = true
	}
	for _, e := range entries {
		info, err := e.Info()
		if live[e.Name()] || e.IsDir() || err != nil || s.now().Sub(info.ModTime()) <= s.opts.Idle {
			continue
		}
		if err := s.root.Remove(filepath.Join(uploadPartDir, e.Name())); err == nil {
			s.log.Info("orphan upload part removed", "name", e.Name())
		}
	}
}

// close drops every session and closes the root.
func (s *uploadStore) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.sessions {
		s.drop(u)
	}
	if s.root != nil {
		s.root.Close()
		s.root = nil
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// sanitizeNameHint makes a file-name fragment of an agent's name_hint as
// the SDK does: characters other than [A-Za-z0-9._-] fold to '_', at most
// 64 bytes, no leading or trailing '.', '_' or '-'; "" when nothing is
// left. A path separator cannot survive, nor can "." or "..".
func sanitizeNameHint(hint string) string {
	s := unsafeName.ReplaceAllString(strings.TrimSpace(hint), "_")
	if len(s) > maxNameHintLen {
		s = s[:maxNameHintLen]
	}
	return strings.Trim(s, "._-")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// handlePutBlob serves client:put_blob.
func (c *Computer) handlePutBlob(ctx context.Context, req protocol.PutBlobReq) (any, error) {
	ret, err := c.uploads.put(req)
	if err != nil {
		c.log.Info("put_blob refused", "req_id", req.ReqID, "agent", req.Agent, "err", err)
		return nil, err
	}
	return ret, nil
}
