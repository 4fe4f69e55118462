package computer

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// fakeClock is a settable clock for the stores' expiry.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time        { return c.t }
func (c *fakeClock) add(d time.Duration)   { c.t = c.t.Add(d) }
func newClock() *fakeClock                 { return &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }
func b64(b []byte) string                  { return base64.StdEncoding.EncodeToString(b) }
func sum(b []byte) string                  { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }
func randBytes(t *testing.T, n int) []byte { b := make([]byte, n); rand.Read(b); return b }
func mustPut(t *testing.T, s *blobStore, office string, b []byte) blobMeta {
	t.Helper()
	m, err := s.putBase64(office, "image/png", b64(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// reasonOf returns the code and details.reason of a protocol error.
func reasonOf(t *testing.T, err error) (int, string) {
	t.Helper()
	pe := errorOf(t, err)
	r, _ := pe.Details["reason"].(string)
	return pe.Code, r
}

// fetchAll reads handle chunk by chunk, at most max bytes a chunk.
func fetchAll(t *testing.T, s *blobStore, handle, office string, max int64) ([]byte, protocol.GetBlobRet) {
	t.Helper()
	var out []byte
	var last protocol.GetBlobRet
	for i := 0; ; i++ {
		ret, err := s.chunk(handle, office, int64(len(out)), max)
		if err != nil {
			t.Fatalf("chunk at %d: %v", len(out), err)
		}
		b, err := base64.StdEncoding.DecodeString(ret.Blob)
		if err != nil {
			t.Fatal(err)
		}
		if max > 0 && int64(len(b)) > max {
			t.Fatalf("chunk of %d bytes, asked at most %d", len(b), max)
		}
		out, last = append(out, b...), ret
		if ret.EOF {
			return out, last
		}
		if i > 10000 || len(b) == 0 {
			t.Fatal("no progress before eof")
		}
	}
}

func TestBlobStoreRoundTrip(t *testing.T) {
	s := newBlobStore(blobLimits{}, nil)
	defer s.close()
	for _, n := range []int{1, 1000, blobSpillBytes + 12345} { // memory and file
		data := randBytes(t, n)
		m := mustPut(t, s, "o1", data)
		if m.SHA256 != sum(data) || m.Size != int64(n) {
			t.Fatalf("meta %+v for %d bytes", m, n)
		}
		got, last := fetchAll(t, s, m.Handle, "o1", 100_000)
		if !bytes.Equal(got, data) || last.SHA256 != sum(data) || last.TotalSize != int64(n) || last.MIMEType != "image/png" {
			t.Errorf("%d bytes: got %d bytes, last %+v", n, len(got), last)
		}
		// Default chunk: the SDK's 256 KiB; a larger max is clamped.
		ret, err := s.chunk(m.Handle, "o1", 0, 1<<30)
		if err != nil || len(ret.Blob) > base64.StdEncoding.EncodedLen(DefaultBlobChunkBytes) {
			t.Errorf("clamp: %d base64 bytes, %v", len(ret.Blob), err)
		}
		// offset == size is an empty eof chunk (the SDK's probe), not a range error.
		if ret, err := s.chunk(m.Handle, "o1", int64(n), 0); err != nil || !ret.EOF || ret.Blob != "" {
			t.Errorf("probe at end: %+v %v", ret, err)
		}
	}
}

func TestBlobStoreBounds(t *testing.T) {
	t.Run("count", func(t *testing.T) {
		s := newBlobStore(blobLimits{MaxCount: 2}, nil)
		defer s.close()
		a, b, c := mustPut(t, s, "o", []byte("aaaa")), mustPut(t, s, "o", []byte("bbbb")), mustPut(t, s, "o", []byte("cccc"))
		if n, _ := s.stats(); n != 2 {
			t.Errorf("%d blobs kept, want 2", n)
		}
		if _, r := reasonOf(t, second(s.chunk(a.Handle, "o", 0, 0))); r != "gone" {
			t.Errorf("oldest: %s, want gone", r)
		}
		for _, m := range []blobMeta{b, c} {
			if _, err := s.chunk(m.Handle, "o", 0, 0); err != nil {
				t.Errorf("newer blob lost: %v", err)
			}
		}
	})
	t.Run("bytes", func(t *testing.T) {
		s := newBlobStore(blobLimits{MaxBytes: blobSpillBytes * 3}, nil)
		defer s.close()
		a := mustPut(t, s, "o", randBytes(t, blobSpillBytes*2))
		pathA := s.entries[a.Handle].path
		b := mustPut(t, s, "o", randBytes(t, blobSpillBytes*2))
		if _, n := s.stats(); n > blobSpillBytes*3 {
			t.Errorf("%d bytes kept, over the bound", n)
		}
		if _, r := reasonOf(t, second(s.chunk(a.Handle, "o", 0, 0))); r != "gone" {
			t.Errorf("evicted: %s, want gone", r)
		}
		if _, err := os.Stat(pathA); !os.IsNotExist(err) {
			t.Errorf("evicted blob's file still there: %v", err)
		}
		if _, err := s.chunk(b.Handle, "o", 0, 0); err != nil {
			t.Error(err)
		}
		if _, err := s.putBase64("o", "x", b64(randBytes(t, 10)), blobSpillBytes*4); err == nil {
			t.Error("a blob bigger than the store was kept")
		}
	})
}

func second[T any](_ T, err error) error { return err }

func TestBlobStoreExpiry(t *testing.T) {
	clock := newClock()
	s := newBlobStore(blobLimits{Idle: time.Minute}, nil)
	s.now = clock.now
	defer s.close()
	a, b := mustPut(t, s, "o", []byte("read")), mustPut(t, s, "o", []byte("idle"))
	clock.add(40 * time.Second)
	if _, err := s.chunk(a.Handle, "o", 0, 0); err != nil { // a read keeps a blob
		t.Fatal(err)
	}
	clock.add(40 * time.Second)
	if _, err := s.chunk(a.Handle, "o", 0, 0); err != nil {
		t.Errorf("blob read 40 s ago expired: %v", err)
	}
	if _, r := reasonOf(t, second(s.chunk(b.Handle, "o", 0, 0))); r != "gone" {
		t.Errorf("idle blob: %s, want gone", r)
	}
	if n, _ := s.stats(); n != 1 {
		t.Errorf("%d blobs kept", n)
	}
}

func TestBlobHandlesUnguessable(t *testing.T) {
	s := newBlobStore(blobLimits{MaxCount: 2000}, nil)
	defer s.close()
	seen := map[string]bool{}
	var last blobMeta
	for range 1000 {
		last = mustPut(t, s, "o", []byte("same bytes")) // same content, new handle
		if seen[last.Handle] {
			t.Fatalf("handle %s minted twice", last.Handle)
		}
		seen[last.Handle] = true
		if strings.Contains(last.Handle, last.SHA256) || len(last.Handle) < len(blobHandlePrefix)+26 {
			t.Fatalf("handle %q is derived from the content or short", last.Handle)
		}
	}
	// A neighbour of a real handle, the content hash and junk name nothing.
	h := []byte(last.Handle)
	h[len(h)-1] ^= 1
	for _, forged := range []string{string(h), last.SHA256, blobHandlePrefix, "", "../../etc/passwd"} {
		if code, r := reasonOf(t, second(s.chunk(forged, "o", 0, 0))); code != 4018 || r != "invalid_handle" {
			t.Errorf("forged %q: %d %s", forged, code, r)
		}
	}
}

func TestBlobOfficeBinding(t *testing.T) {
	s := newBlobStore(blobLimits{}, nil)
	defer s.close()
	m := mustPut(t, s, "o1", []byte("secret screenshot"))
	if code, r := reasonOf(t, second(s.chunk(m.Handle, "o2", 0, 0))); code != 4018 || r != "forbidden" {
		t.Errorf("other office: %d %s, want 4018 forbidden", code, r)
	}
	if _, err := s.chunk(m.Handle, "o1", 0, 0); err != nil {
		t.Errorf("own office: %v", err)
	}
}

func TestBlobRange(t *testing.T) {
	s := newBlobStore(blobLimits{}, nil)
	defer s.close()
	m := mustPut(t, s, "o", []byte("0123456789"))
	for _, off := range []int64{-1, 11, 1 << 40} {
		if code, r := reasonOf(t, second(s.chunk(m.Handle, "o", off, 0))); code != 4018 || r != "range" {
			t.Errorf("offset %d: %d %s", off, code, r)
		}
	}
	ret, err := s.chunk(m.Handle, "o", 4, 3)
	if b, _ := base64.StdEncoding.DecodeString(ret.Blob); err != nil || string(b) != "456" || ret.EOF || ret.ChunkOffset != 4 {
		t.Errorf("chunk 4+3: %q %+v %v", b, ret, err)
	}
}

// mintFixture is a Computer with only what mintBlobs needs.
func mintFixture(t *testing.T, budget int) *Computer {
	c, err := New(config.Config{}, Options{Name: "pc", Office: "o1", Blobs: BlobOptions{InlineBudget: budget}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.blobs.close)
	return c
}

func TestMintBlobs(t *testing.T) {
	c := mintFixture(t, 100)
	big, small := randBytes(t, 5000), randBytes(t, 100)
	res := &mcp.CallToolResult{Content: []mcp.Content{
		mcp.TextContent{Type: "text", Text: "a screenshot"},
		mcp.ImageContent{Type: "image", Data: b64(big), MIMEType: "image/png"},
		mcp.ImageContent{Type: "image", Data: b64(small), MIMEType: "image/png"},
		mcp.AudioContent{Type: "audio", Data: b64(big), MIMEType: "audio/wav"},
		mcp.EmbeddedResource{Type: "resource", Resource: mcp.BlobResourceContents{URI: "file:///x.bin", Blob: b64(big), MIMEType: "application/pdf"}},
		mcp.ImageContent{Type: "image", Data: "not base64!" + strings.Repeat("x", 500), MIMEType: "image/png"},
	}}
	c.mintBlobs(res, "shot")
	check := func(i int, data string, meta *mcp.Meta, mime string) {
		t.Helper()
		if data != "" || meta == nil {
			t.Fatalf("item %d kept inline", i)
		}
		h, _ := meta.AdditionalFields[protocol.MetaBlobHandle].(string)
		if meta.AdditionalFields[protocol.MetaTotalSize] != int64(len(big)) || meta.AdditionalFields[protocol.MetaSHA256] != sum(big) {
			t.Errorf("item %d meta %v", i, meta.AdditionalFields)
		}
		got, last := fetchAll(t, c.blobs, h, "o1", 0)
		if !bytes.Equal(got, big) || last.MIMEType != mime {
			t.Errorf("item %d: %d bytes of %s", i, len(got), last.MIMEType)
		}
	}
	img := res.Content[1].(mcp.ImageContent)
	check(1, img.Data, img.Meta, "image/png")
	aud := res.Content[3].(mcp.AudioContent)
	check(3, aud.Data, aud.Meta, "audio/wav")
	emb := res.Content[4].(mcp.EmbeddedResource)
	check(4, emb.Resource.(mcp.BlobResourceContents).Blob, emb.Meta, "application/pdf")
	if s := res.Content[2].(mcp.ImageContent); s.Data != b64(small) || s.Meta != nil {
		t.Error("an item within the budget was not left inline")
	}
	if s := res.Content[5].(mcp.ImageContent); s.Meta != nil {
		t.Error("an item that is not base64 got a handle")
	}
	if n, _ := c.blobs.stats(); n != 3 {
		t.Errorf("%d blobs kept, want 3", n)
	}
}

func TestDecodedLen(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 4, 100, 1001} {
		b := randBytes(t, n)
		if got, ok := decodedLen(b64(b)); !ok || got != int64(n) {
			t.Errorf("%d bytes: %d %v", n, got, ok)
		}
	}
	for _, bad := range []string{"abc", "ab=c", "a===", "ab-_", "ab\ncd=="} {
		if _, ok := decodedLen(bad); ok {
			t.Errorf("%q taken as base64", bad)
		}
	}
}

// A 50 MB blob is kept in a file, not in memory, and moving it by handle
// through the get_blob handler (chunk by chunk, JSON-encoded as the
// connection sends it) holds a few chunks at a time: the live heap after
// minting and the heap's peak during the transfer stay far below the
// blob's size.
func TestBlobLargeTransferMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 50 MB")
	}
	const size = 50 << 20
	c := mintFixture(t, 0)
	heap := func(gc bool) uint64 {
		if gc {
			runtime.GC()
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	data := randBytes(t, size)
	want := sum(data)
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.ImageContent{Type: "image", Data: b64(data), MIMEType: "image/png"}}}
	data = nil
	base := heap(true) // the MCP result (67 MB of base64) is still live
	c.mintBlobs(res, "big")
	img := res.Content[0].(mcp.ImageContent)
	handle := img.Meta.AdditionalFields[protocol.MetaBlobHandle].(string)
	res = nil
	afterMint := heap(true)
	t.Logf("heap before minting (with the 67 MB base64 result): %d MiB; after minting, result dropped: %d MiB", base>>20, afterMint>>20)
	if afterMint > base-size { // the base64 went away and the blob did not take its place
		t.Errorf("live heap after minting is %d MiB: the blob is kept in memory", afterMint>>20)
	}
	rssBefore := vmRSS()
	h := sha256.New()
	var peak uint64
	var off int64
	for {
		payload := fmt.Sprintf(`{"req_id":"r","computer":"pc","blob_handle":%q,"chunk_offset":%d}`, handle, off)
		v, err := serveRaw(c.handleGetBlob)(context.Background(), json.RawMessage(payload))
		if err != nil {
			t.Fatal(err)
		}
		var ret protocol.GetBlobRet
		if err := json.Unmarshal(v.(json.RawMessage), &ret); err != nil {
			t.Fatal(err)
		}
		b, _ := base64.StdEncoding.DecodeString(ret.Blob)
		h.Write(b)
		off += int64(len(b))
		peak = max(peak, heap(false))
		if ret.EOF {
			break
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want || off != size {
		t.Fatalf("moved %d bytes with sha256 %s", off, got)
	}
	t.Logf("RSS %d MiB before the transfer, %d MiB after it (Linux VmRSS; the figure before still counts the pages of the test's freed 50 MB input and 67 MB base64)", rssBefore>>10, vmRSS()>>10)
	growth := int64(peak) - int64(afterMint)
	t.Logf("50 MiB moved in %d chunks of %d KiB; heap peak during the transfer %d MiB, %+.1f MiB over the heap after minting",
		size/DefaultBlobChunkBytes, DefaultBlobChunkBytes>>10, peak>>20, float64(growth)/(1<<20))
	if growth > 16*DefaultBlobChunkBytes+8<<20 {
		t.Errorf("heap grew by %d MiB while moving the blob", growth>>20)
	}
}

// A Computer whose answers are bounded lower than a default chunk sends
// smaller chunks, each of which fits an answer.
func TestBlobChunkFitsAnswer(t *testing.T) {
	c, err := New(config.Config{}, Options{Name: "pc", Office: "o1", MaxAnswerBytes: 64 << 10, Blobs: BlobOptions{InlineBudget: 10}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.blobs.close()
	data := randBytes(t, 300_000)
	m := mustPut(t, c.blobs, "o1", data)
	payload := fmt.Sprintf(`{"computer":"pc","blob_handle":%q,"chunk_offset":0}`, m.Handle)
	v, err := route("client:get_blob", c.opts.MaxAnswerBytes, c.handleGetBlob)(context.Background(), json.RawMessage(payload))
	if err != nil {
		t.Fatalf("first chunk refused: %v", err)
	}
	if n := len(v.(json.RawMessage)); n > 64<<10 {
		t.Errorf("answer of %d bytes", n)
	}
}

// vmRSS is the process's resident set in KiB (0 where /proc is missing).
func vmRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), &kb)
			return kb
		}
	}
	return 0
}
