package skill

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// member is one entry of a crafted archive: a file (kind 0), a folder
// ('d'), a symlink ('l') or a hard link ('h') to link.
type member struct {
	name, body string
	kind       byte
	link       string
}

func file(name, body string) member { return member{name: name, body: body} }

func zipOf(t *testing.T, ms ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range ms {
		h := &zip.FileHeader{Name: m.name, Method: zip.Deflate}
		body := m.body
		switch m.kind {
		case 'd':
			h.SetMode(fs.ModeDir | 0o755)
		case 'l':
			h.SetMode(fs.ModeSymlink | 0o777)
			body = m.link
		default:
			h.SetMode(0o644)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func tgzOf(t *testing.T, ms ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, m := range ms {
		h := &tar.Header{Name: m.name, Mode: 0o644, Typeflag: tar.TypeReg, Size: int64(len(m.body))}
		switch m.kind {
		case 'd':
			h.Typeflag, h.Mode, h.Size = tar.TypeDir, 0o755, 0
		case 'l':
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, m.link, 0
		case 'h':
			h.Typeflag, h.Linkname, h.Size = tar.TypeLink, m.link, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(m.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// archiveServer is a server whose one SKILL skill://t.test/pkg is the
// archive data in format, served as skill://t.test/files/pkg by
// resources/read; extra is added to the root's _meta.
func archiveServer(data []byte, format string, extra map[string]any) *fakeMCP {
	meta := map[string]any{"source": "archive", "archive_uri": "skill://t.test/files/pkg", "archive_format": format, "version": "2.0"}
	for k, v := range extra {
		meta[k] = v
	}
	f := &fakeMCP{}
	f.add("skill://t.test/pkg", meta, nil)
	f.add("skill://t.test/files/pkg", nil, data)
	return f
}

func goodMembers() []member {
	return []member{
		{name: "./", kind: 'd'},
		file("./"+File, goodSkill),
		{name: "scripts/", kind: 'd'},
		file("scripts/fill.py", "print('hi')\n"),
		file("refs/deep/notes.txt", "notes\n"),
	}
}

func TestArchiveIsStagedAndListed(t *testing.T) {
	for _, format := range []string{"zip", "tar.gz"} {
		t.Run(format, func(t *testing.T) {
			var data []byte
			if format == "zip" {
				data = zipOf(t, goodMembers()...)
			} else {
				data = tgzOf(t, goodMembers()...)
			}
			sum := sha256.Sum256(data)
			srv := archiveServer(data, format, map[string]any{"archive_sha256": strings.ToUpper(hex.EncodeToString(sum[:]))})
			home, refs, problems := stage(t, srv, Origin{BundleID: "srv", URL: "https://remote.test/mcp"})
			if len(problems) != 0 || len(refs) != 1 {
				t.Fatalf("refs %+v problems %v", refs, problems)
			}
			r := refs[0]
			want := filepath.Join(home, "srv", "pdf-tools")
			if r.Name != "mcp:srv:pdf-tools" || r.Source != "mcp:srv" || r.URI != "skill://t.test/pkg" || r.Version != "2.0" ||
				r.Path != want || r.Description != "Fill and merge PDF forms" || r.License != "MIT" {
				t.Errorf("ref %+v", r)
			}
			if got := staged(t, home); len(got) != 1 || got[0] != "pdf-tools" {
				t.Errorf("staging folder holds %v, want only pdf-tools (no temporary folder left)", got)
			}
			for rel, body := range map[string]string{"scripts/fill.py": "print('hi')\n", "refs/deep/notes.txt": "notes\n"} {
				res, err := Open(r.Path, rel, DefaultMaxSize)
				if err != nil || string(res.Data) != body {
					t.Errorf("Open(%s) = %+v, %v", rel, res, err)
				}
			}
			if strings.Join(srv.reads, ",") != "skill://t.test/files/pkg" {
				t.Errorf("resources read: %v (the archive only, by resources/read)", srv.reads)
			}
		})
	}
}

func TestArchiveRefusals(t *testing.T) {
	skillMD := file(File, goodSkill)
	abs := filepath.Join(t.TempDir(), "evil.txt")
	zeros := func(n int) string { return string(make([]byte, n)) }
	many := []member{skillMD}
	for i := range maxSkillFiles {
		many = append(many, file("f/"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+"-"+hex.EncodeToString([]byte{byte(i >> 8), byte(i)}), "x"))
	}
	for _, tc := range []struct {
		name   string
		format string
		data   func(t *testing.T) []byte
		meta   map[string]any
		want   string
	}{
		{"zip traversal", "zip", func(t *testing.T) []byte { return zipOf(t, skillMD, file("../evil.txt", "x")) }, nil, "'..' segment"},
		{"tar traversal inside a path", "tar.gz", func(t *testing.T) []byte { return tgzOf(t, skillMD, file("a/../../evil.txt", "x")) }, nil, "'..' segment"},
		{"zip absolute path", "zip", func(t *testing.T) []byte { return zipOf(t, skillMD, file(abs, "x")) }, nil, "absolute"},
		{"tar absolute path", "tar.gz", func(t *testing.T) []byte { return tgzOf(t, skillMD, file(abs, "x")) }, nil, "absolute"},
		{"zip backslash", "zip", func(t *testing.T) []byte { return zipOf(t, skillMD, file(`..\evil.txt`, "x")) }, nil, "backslash"},
		{"tar symlink out", "tar.gz", func(t *testing.T) []byte {
			return tgzOf(t, skillMD, member{name: "out", kind: 'l', link: "/etc"}, file("out/passwd", "x"))
		}, nil, "a link"},
		{"tar hard link", "tar.gz", func(t *testing.T) []byte {
			return tgzOf(t, skillMD, member{name: "pw", kind: 'h', link: "/etc/passwd"})
		}, nil, "a link"},
		{"zip symlink", "zip", func(t *testing.T) []byte {
			return zipOf(t, skillMD, member{name: "out", kind: 'l', link: "../../.."})
		}, nil, "a link"},
		{"zip bomb: one file over the single-file bound", "zip", func(t *testing.T) []byte {
			return zipOf(t, skillMD, file("big.bin", zeros(maxArchiveFile+1)))
		}, nil, "the most for one file"},
		{"zip bomb: files over the total bound", "zip", func(t *testing.T) []byte {
			third := zeros(maxSkillBytes/3 + 1)
			return zipOf(t, skillMD, file("a.bin", third), file("b.bin", third), file("c.bin", third))
		}, nil, "bytes unpacked"},
		{"tar.gz bomb: files over the total bound", "tar.gz", func(t *testing.T) []byte {
			third := zeros(maxSkillBytes/3 + 1)
			return tgzOf(t, skillMD, file("a.bin", third), file("b.bin", third), file("c.bin", third))
		}, nil, "bytes unpacked"},
		{"zip whose header understates the size", "zip", func(t *testing.T) []byte { return lyingZip(t, 10, maxArchiveFile+1) }, nil, "not a valid zip file"},
		{"too many files", "zip", func(t *testing.T) []byte { return zipOf(t, many...) }, nil, "more than 500 files"},
		{".skillenv", "tar.gz", func(t *testing.T) []byte { return tgzOf(t, skillMD, file(".skillenv", "TOKEN=x")) }, nil, "never serves"},
		{"a name twice", "tar.gz", func(t *testing.T) []byte { return tgzOf(t, skillMD, file("a.txt", "1"), file("./a.txt", "2")) }, nil, "a second entry"},
		{"no SKILL.md", "zip", func(t *testing.T) []byte { return zipOf(t, file("pkg/"+File, goodSkill)) }, nil, "read SKILL.md"},
		{"sha256 mismatch", "zip", func(t *testing.T) []byte { return zipOf(t, skillMD) }, map[string]any{"archive_sha256": strings.Repeat("0", 64)}, "sha256 is"},
		{"not the declared format", "tar.gz", func(t *testing.T) []byte { return zipOf(t, skillMD) }, nil, "not a gzip stream"},
		{"unknown format", "rar", func(t *testing.T) []byte { return zipOf(t, skillMD) }, nil, "archive_format"},
		{"no archive_uri", "zip", func(t *testing.T) []byte { return zipOf(t, skillMD) }, map[string]any{"archive_uri": nil}, "archive_uri is missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := archiveServer(tc.data(t), tc.format, tc.meta)
			home, refs, problems := stage(t, srv, local)
			if len(refs) != 0 || len(problems) != 1 || !strings.Contains(problems[0].Error(), tc.want) {
				t.Fatalf("refs %+v problems %v, want one problem saying %q", refs, problems, tc.want)
			}
			if got := staged(t, home); len(got) != 0 {
				t.Errorf("a refused archive left %v in the staging folder", got)
			}
			for _, p := range []string{filepath.Join(home, "evil.txt"), filepath.Join(home, "srv", "evil.txt"), abs} {
				if _, err := os.Lstat(p); err == nil {
					t.Errorf("%s was written", p)
				}
			}
		})
	}
}

// lyingZip is a zip holding SKILL.md and a file whose header says it has
// claimed bytes while it inflates to actual.
func lyingZip(t *testing.T, claimed, actual int) []byte {
	t.Helper()
	var deflated bytes.Buffer
	zw0 := zip.NewWriter(&deflated)
	w, err := zw0.CreateHeader(&zip.FileHeader{Name: "x", Method: zip.Deflate})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, actual)); err != nil {
		t.Fatal(err)
	}
	if err := zw0.Close(); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(deflated.Bytes()), int64(deflated.Len()))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := zr.File[0].OpenRaw()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	md, err := zw.Create(File)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := md.Write([]byte(goodSkill)); err != nil {
		t.Fatal(err)
	}
	h := zr.File[0].FileHeader
	h.Name, h.UncompressedSize64 = "bomb.bin", uint64(claimed)
	rw, err := zw.CreateRaw(&h)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(rw, raw); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestArchiveOverHTTP(t *testing.T) {
	data := zipOf(t, file(File, goodSkill))
	serve := func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(data) }
	other := httptest.NewServer(http.HandlerFunc(serve))
	defer other.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("/pkg.zip", serve)
	mux.HandleFunc("/hop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/pkg.zip", http.StatusFound) })
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/pkg.zip", http.StatusFound)
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "999999999")
	})
	own := httptest.NewServer(mux)
	defer own.Close()
	remote := Origin{BundleID: "srv", URL: own.URL + "/mcp"}

	for _, tc := range []struct {
		name string
		o    Origin
		uri  string
		want string // "" when staged
	}{
		{"remote server, its own origin", remote, own.URL + "/pkg.zip", ""},
		{"remote server, redirected within its origin", remote, own.URL + "/hop", ""},
		{"remote server, another origin", remote, other.URL + "/pkg.zip", "must be on its own origin"},
		{"remote server, redirected off its origin", remote, own.URL + "/away", "redirected off the server's origin"},
		{"remote server, its host on another port", Origin{BundleID: "srv", URL: "http://127.0.0.1:1/mcp"}, own.URL + "/pkg.zip", "must be on its own origin"},
		{"stdio server, any origin", local, other.URL + "/pkg.zip", ""},
		{"stdio server, redirected anywhere", local, own.URL + "/away", ""},
		{"not found", remote, own.URL + "/nothing", "GET answered 404"},
		{"too large", remote, own.URL + "/huge", "more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &fakeMCP{}
			srv.add("skill://t.test/pkg", map[string]any{"source": "archive", "archive_uri": tc.uri, "archive_format": "zip"}, nil)
			home, refs, problems := stage(t, srv, tc.o)
			if tc.want == "" {
				if len(problems) != 0 || len(refs) != 1 || refs[0].Name != "mcp:srv:pdf-tools" {
					t.Fatalf("refs %+v problems %v", refs, problems)
				}
				return
			}
			if len(refs) != 0 || len(problems) != 1 || !strings.Contains(problems[0].Error(), tc.want) {
				t.Fatalf("refs %+v problems %v, want one saying %q", refs, problems, tc.want)
			}
			if got := staged(t, home); len(got) != 0 {
				t.Errorf("staging folder holds %v", got)
			}
		})
	}
}
