package computer

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/protocol"
)

func ptr[T any](v T) *T { return &v }

// upFixture is an upload store over a fresh landing root.
func upFixture(t *testing.T, opts UploadOptions) (*uploadStore, string, *fakeClock) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "landing")
	opts.LandingRoot = root
	s, err := newUploadStore(opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	clock := newClock()
	s.now = clock.now
	t.Cleanup(s.close)
	return s, root, clock
}

// firstChunk is a first chunk of data declaring its size and sha256.
func firstChunk(data, chunk []byte, eof bool, hint string) protocol.PutBlobReq {
	r := protocol.PutBlobReq{Agent: "bot", ReqID: "r", Computer: "pc", ChunkOffset: ptr(int64(0)), EOF: eof,
		TotalSize: ptr(int64(len(data))), SHA256: ptr(sum(data)), Blob: ptr(b64(chunk))}
	if hint != "" {
		r.NameHint = &hint
	}
	return r
}

func nextChunk(id string, off int, chunk []byte, eof bool) protocol.PutBlobReq {
	return protocol.PutBlobReq{Agent: "bot", ReqID: "r", Computer: "pc", UploadID: &id, ChunkOffset: ptr(int64(off)), EOF: eof, Blob: ptr(b64(chunk))}
}

// sendFile sends data in chunks of n and returns the last answer.
func sendFile(t *testing.T, s *uploadStore, data []byte, n int, hint string) protocol.PutBlobRet {
	t.Helper()
	end := min(n, len(data))
	ret, err := s.put(firstChunk(data, data[:end], end == len(data), hint))
	for err == nil && end < len(data) {
		off := end
		end = min(off+n, len(data))
		ret, err = s.put(nextChunk(ret.UploadID, off, data[off:end], end == len(data)))
	}
	if err != nil {
		t.Fatal(err)
	}
	return ret
}

// within reports whether path is under root.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

func TestUploadLands(t *testing.T) {
	s, root, _ := upFixture(t, UploadOptions{})
	data := randBytes(t, 100_000)
	ret := sendFile(t, s, data, 30_000, "report.pdf")
	got, err := os.ReadFile(ret.LandingPath)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("landed file: %v", err)
	}
	if ret.SHA256 != sum(data) || ret.TotalSize == nil || *ret.TotalSize != int64(len(data)) || !within(root, ret.LandingPath) ||
		!strings.HasSuffix(ret.LandingPath, "_report.pdf") {
		t.Errorf("answer %+v", ret)
	}
	parts, _ := os.ReadDir(filepath.Join(root, uploadPartDir))
	if len(parts) != 0 || len(s.sessions) != 0 {
		t.Errorf("%d part files, %d sessions left", len(parts), len(s.sessions))
	}
}

func TestUploadTraversalNames(t *testing.T) {
	s, root, _ := upFixture(t, UploadOptions{})
	for _, hint := range []string{"../../etc/passwd", "/etc/passwd", "..", ".", "a/../../b", `..\..\win.ini`, "x\x00y",
		strings.Repeat("../", 100) + "z", "名前.txt", "-rf", ".bashrc"} {
		ret := sendFile(t, s, []byte("payload"), 4, hint)
		if !within(root, ret.LandingPath) || filepath.Dir(ret.LandingPath) != root {
			t.Errorf("name_hint %q landed at %s, outside %s", hint, ret.LandingPath, root)
		}
		if base := filepath.Base(ret.LandingPath); strings.ContainsAny(base, `/\`) || strings.HasPrefix(base, ".") {
			t.Errorf("name_hint %q: name %q", hint, base)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(root))
	if len(entries) != 1 {
		t.Errorf("files written beside the landing root: %v", entries)
	}
}

func TestUploadRefusals(t *testing.T) {
	data := []byte("0123456789")
	code := func(t *testing.T, err error, want string) {
		t.Helper()
		if c, r := reasonOf(t, err); c != 4019 || r != want {
			t.Errorf("%d %s, want 4019 %s (%v)", c, r, want, err)
		}
	}
	t.Run("forbidden without a landing root", func(t *testing.T) {
		s, _ := newUploadStore(UploadOptions{}, nil)
		code(t, second(s.put(firstChunk(data, data, true, ""))), "forbidden")
		if _, err := newUploadStore(UploadOptions{LandingRoot: "relative/dir"}, nil); err == nil {
			t.Error("a relative landing root was accepted")
		}
	})
	t.Run("forbidden when the root is not writable", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		os.WriteFile(file, nil, 0o600)
		s, _ := newUploadStore(UploadOptions{LandingRoot: file}, nil)
		code(t, second(s.put(firstChunk(data, data, true, ""))), "forbidden")
	})
	t.Run("invalid_declaration", func(t *testing.T) {
		s, _, _ := upFixture(t, UploadOptions{})
		r := firstChunk(data, data, true, "")
		r.TotalSize = nil
		code(t, second(s.put(r)), "invalid_declaration")
		r = firstChunk(data, data, true, "")
		r.TotalSize = ptr(int64(0))
		code(t, second(s.put(r)), "invalid_declaration")
		r = firstChunk(data, data, true, "")
		r.SHA256 = ptr("abc")
		code(t, second(s.put(r)), "invalid_declaration")
		r = firstChunk(data, data[:4], false, "")
		r.Blob = ptr("%%%not base64")
		code(t, second(s.put(r)), "invalid_declaration")
		ret, err := s.put(firstChunk(data, data[:4], false, ""))
		if err != nil {
			t.Fatal(err)
		}
		again := nextChunk(ret.UploadID, 4, data[4:], true)
		again.SHA256 = ptr(sum(data))
		code(t, second(s.put(again)), "invalid_declaration")
	})
	t.Run("too_large writes nothing", func(t *testing.T) {
		s, root, _ := upFixture(t, UploadOptions{MaxBytes: 5})
		code(t, second(s.put(firstChunk(data, data[:1], false, ""))), "too_large")
		if _, err := os.Stat(root); !os.IsNotExist(err) {
			t.Errorf("landing root touched by a refused upload: %v", err)
		}
	})
	t.Run("invalid_upload", func(t *testing.T) {
		s, _, _ := upFixture(t, UploadOptions{})
		code(t, second(s.put(nextChunk("nosuchupload", 0, data, true))), "invalid_upload")
		ret, _ := s.put(firstChunk(data, data[:4], false, ""))
		other := nextChunk(ret.UploadID, 4, data[4:], true)
		other.Agent = "intruder"
		code(t, second(s.put(other)), "invalid_upload")
	})
	t.Run("range", func(t *testing.T) {
		s, root, _ := upFixture(t, UploadOptions{})
		ret, _ := s.put(firstChunk(data, data[:4], false, ""))
		code(t, second(s.put(nextChunk(ret.UploadID, 6, data[6:], true))), "range")  // a gap
		code(t, second(s.put(nextChunk(ret.UploadID, 0, data[:4], false))), "range") // again from 0
		code(t, second(s.put(nextChunk(ret.UploadID, 4, data[4:8], true))), "range") // eof short of total_size
		// The session survives those; the right chunk still lands it.
		if _, err := s.put(nextChunk(ret.UploadID, 4, data[4:], true)); err != nil {
			t.Fatal(err)
		}
		// A chunk past the declared size drops the session.
		ret, _ = s.put(firstChunk(data, data[:4], false, ""))
		code(t, second(s.put(nextChunk(ret.UploadID, 4, bytes.Repeat([]byte("x"), 20), false))), "range")
		code(t, second(s.put(nextChunk(ret.UploadID, 4, data[4:], true))), "invalid_upload")
		if parts, _ := os.ReadDir(filepath.Join(root, uploadPartDir)); len(parts) != 0 {
			t.Errorf("part of a dropped upload left: %v", parts)
		}
	})
	t.Run("integrity removes the file", func(t *testing.T) {
		s, root, _ := upFixture(t, UploadOptions{})
		r := firstChunk(data, data[:4], false, "x.bin")
		r.SHA256 = ptr(sum([]byte("other bytes")))
		ret, err := s.put(r)
		if err != nil {
			t.Fatal(err)
		}
		code(t, second(s.put(nextChunk(ret.UploadID, 4, data[4:], true))), "integrity")
		for _, dir := range []string{root, filepath.Join(root, uploadPartDir)} {
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if !e.IsDir() {
					t.Errorf("file %s left after an integrity failure", e.Name())
				}
			}
		}
	})
	t.Run("io_error", func(t *testing.T) {
		s, _, _ := upFixture(t, UploadOptions{})
		ret, _ := s.put(firstChunk(data, data[:4], false, ""))
		s.sessions[ret.UploadID].f.Close() // the disk goes away under the session
		code(t, second(s.put(nextChunk(ret.UploadID, 4, data[4:], true))), "io_error")
	})
}

func TestUploadSessionsBounded(t *testing.T) {
	data := []byte("0123456789")
	s, root, clock := upFixture(t, UploadOptions{MaxSessions: 2, Idle: time.Minute})
	a, _ := s.put(firstChunk(data, data[:2], false, ""))
	b, _ := s.put(firstChunk(data, data[:2], false, ""))
	if c, r := reasonOf(t, second(s.put(firstChunk(data, data[:2], false, "")))); c != 4019 || r != "busy" {
		t.Errorf("third session: %d %s, want busy", c, r)
	}
	clock.add(40 * time.Second)
	if _, err := s.put(nextChunk(a.UploadID, 2, data[2:4], false)); err != nil { // a chunk keeps a session
		t.Fatal(err)
	}
	clock.add(40 * time.Second)
	if c, r := reasonOf(t, second(s.put(nextChunk(b.UploadID, 2, data[2:], true)))); c != 4019 || r != "invalid_upload" {
		t.Errorf("idle session: %d %s, want invalid_upload", c, r)
	}
	if _, err := s.put(nextChunk(a.UploadID, 4, data[4:], true)); err != nil {
		t.Errorf("active session: %v", err)
	}
	// The expired session's part is gone, and a slot is free again.
	if parts, _ := os.ReadDir(filepath.Join(root, uploadPartDir)); len(parts) != 0 {
		t.Errorf("parts left: %v", parts)
	}
	if _, err := s.put(firstChunk(data, data, true, "")); err != nil {
		t.Errorf("new session after expiry: %v", err)
	}
}

func TestUploadOrphanParts(t *testing.T) {
	data := []byte("0123456789")
	s, root, clock := upFixture(t, UploadOptions{Idle: time.Minute})
	sendFile(t, s, data, 5, "") // makes the directories
	orphan := filepath.Join(root, uploadPartDir, "left-by-a-crash.part")
	os.WriteFile(orphan, []byte("x"), 0o600)
	old := clock.now().Add(-2 * time.Minute)
	os.Chtimes(orphan, old, old)
	sendFile(t, s, data, 5, "")
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("orphan part kept: %v", err)
	}
}

func TestSanitizeNameHint(t *testing.T) {
	for in, want := range map[string]string{
		"report.pdf": "report.pdf", "../../etc/passwd": "etc_passwd", "..": "", "a b/c": "a_b_c",
		strings.Repeat("x", 100): strings.Repeat("x", 64), " .hidden ": "hidden",
	} {
		if got := sanitizeNameHint(in); got != want {
			t.Errorf("sanitizeNameHint(%q) = %q, want %q", in, got, want)
		}
	}
}
