package skill

// The "archive" mode (skill.md §3 B). The SDK (a2c-smcp 0.4.2,
// computer/skills/staging.py) reads _meta.archive_uri, archive_format
// ("tar.gz" or "zip", nothing else) and an optional archive_sha256, GETs
// the URI over HTTP whatever server named it, checks the digest, and
// unpacks into the staging folder refusing members that resolve outside
// it and tar links (zip links become plain files), with a member-count
// and a cumulative-size cap. This Computer follows it, and differs:
//
//   - an http(s) archive_uri from a remote (SSE / Streamable HTTP) server
//     must have that server's own origin, so that a server cannot make the
//     Computer request other hosts (its LAN, its loopback) for it; a stdio
//     server, a local process, may name any (it could fetch it itself).
//     Redirects are followed within the same rule, five at most;
//   - any other archive_uri (a skill:// one, say) is read with
//     resources/read from the same server, as "resources" mode reads files:
//     a server can ship its archive over MCP itself, without an HTTP side;
//   - links of either format, and entries that are neither files nor
//     folders, refuse the archive, and so do a .skillenv (as in "resources"
//     mode), a duplicate entry and a name with a backslash or ':' segment;
//   - the bounds are the "resources" mode's (500 files, 32 MiB a SKILL)
//     plus one on a single file and on the entries of any kind, counted in
//     bytes really decompressed, not as the headers declare them.

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// Bounds of an archive.
const (
	maxArchiveBytes   = maxSkillBytes + 1<<20 // the archive as fetched
	maxArchiveFile    = 16 << 20              // one file unpacked
	maxArchiveEntries = 2 * maxSkillFiles     // entries of any kind
	maxTarStream      = maxSkillBytes + 8<<20 // a tar.gz's decompressed stream (headers too)
	maxRedirects      = 5
)

// errArchiveTooBig is a decompressed stream over maxTarStream.
var errArchiveTooBig = fmt.Errorf("decompressed archive over %d bytes", maxTarStream)

// stageArchive fetches the archive of the "archive" SKILL root, checks it
// and unpacks it into dest (an empty folder).
func stageArchive(ctx context.Context, l Lister, o Origin, root mcp.Resource, dest string) error {
	meta := root.Meta.AdditionalFields
	uri, _ := meta["archive_uri"].(string)
	if uri == "" {
		return errors.New("archive: _meta.archive_uri is missing or not a string")
	}
	format, _ := meta["archive_format"].(string)
	if format != "tar.gz" && format != "zip" {
		return fmt.Errorf("archive: _meta.archive_format %q is not \"tar.gz\" or \"zip\"", clip(fmt.Sprint(meta["archive_format"])))
	}
	want, hasSum := meta["archive_sha256"]
	data, err := fetchArchive(ctx, l, o, uri)
	if err != nil {
		return fmt.Errorf("archive %s: %w", clip(uri), err)
	}
	if hasSum && want != nil && want != "" {
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); !strings.EqualFold(fmt.Sprint(want), got) {
			return fmt.Errorf("archive %s: sha256 is %s, _meta.archive_sha256 says %s", clip(uri), got, clip(fmt.Sprint(want)))
		}
	}
	if format == "zip" {
		err = unzip(data, dest)
	} else {
		err = untgz(data, dest)
	}
	if err != nil {
		return fmt.Errorf("archive %s: %w", clip(uri), err)
	}
	return nil
}

// fetchArchive reads the archive at uri: over HTTP for an http(s) URI
// (from a remote server only on its own origin), else by resources/read
// from the server itself.
func fetchArchive(ctx context.Context, l Lister, o Origin, uri string) ([]byte, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return nil, fmt.Errorf("not a URI: %w", err)
	}
	if scheme := strings.ToLower(u.Scheme); scheme != "http" && scheme != "https" {
		data, err := readAll(ctx, l, uri)
		if err == nil && len(data) > maxArchiveBytes {
			err = fmt.Errorf("more than %d bytes", maxArchiveBytes)
		}
		return data, err
	}
	if !o.Local && !sameOrigin(u, o.URL) {
		return nil, fmt.Errorf("refused: a remote server's archive must be on its own origin (%s)", clip(originOf(o.URL)))
	}
	return httpGet(ctx, o, u)
}

// httpGet GETs u, bounded in bytes and redirects (which keep to the
// server's origin for a remote server).
func httpGet(ctx context.Context, o Origin, u *url.URL) ([]byte, error) {
	c := http.Client{Transport: http.DefaultTransport}
	if o.HTTP != nil {
		c = *o.HTTP
	}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return fmt.Errorf("more than %d redirects", maxRedirects)
		}
		if !o.Local && !sameOrigin(req.URL, o.URL) {
			return fmt.Errorf("refused: redirected off the server's origin, to %s", clip(req.URL.Redacted()))
		}
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET answered %s", resp.Status)
	}
	if resp.ContentLength > maxArchiveBytes {
		return nil, fmt.Errorf("%d bytes, more than %d", resp.ContentLength, maxArchiveBytes)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxArchiveBytes+1))
	if err != nil {
		return nil, fmt.Errorf("GET: %w", err)
	}
	if len(data) > maxArchiveBytes {
		return nil, fmt.Errorf("more than %d bytes", maxArchiveBytes)
	}
	return data, nil
}

// sameOrigin reports whether u has the scheme, host and port of server.
func sameOrigin(u *url.URL, server string) bool {
	s, err := url.Parse(server)
	return err == nil && s.Host != "" && originOf(server) == originOf(u.String())
}

// originOf is scheme://host:port of raw, lower case, the port explicit.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// unpacker writes the entries of an archive under one folder, through an
// os.Root (no name can leave it), within the bounds.
type unpacker struct {
	root           *os.Root
	entries, files int
	total          int64
}

func newUnpacker(dest string) (*unpacker, error) {
	r, err := os.OpenRoot(dest)
	if err != nil {
		return nil, fmt.Errorf("staging folder: %w", err)
	}
	return &unpacker{root: r}, nil
}

// entry counts one entry of any kind.
func (u *unpacker) entry() error {
	if u.entries++; u.entries > maxArchiveEntries {
		return fmt.Errorf("more than %d entries", maxArchiveEntries)
	}
	return nil
}

// memberPath checks an entry's name and returns it cleaned ("." for the
// archive's top folder).
func memberPath(name string) (string, error) {
	trimmed := strings.TrimSuffix(name, "/")
	if trimmed == "" || trimmed == "." {
		return ".", nil
	}
	clean, err := lexical(trimmed)
	if err != nil {
		return "", fmt.Errorf("entry %q: %w", clip(name), err)
	}
	if forbidden(path.Base(clean)) {
		return "", fmt.Errorf("entry %q: a name this computer never serves", clip(name))
	}
	return clean, nil
}

// dir makes the folder entry name.
func (u *unpacker) dir(name string) error {
	clean, err := memberPath(name)
	if err != nil || clean == "." {
		return err
	}
	if err := u.root.MkdirAll(clean, 0o755); err != nil {
		return fmt.Errorf("entry %q: %w", clip(name), err)
	}
	return nil
}

// file writes the file entry name from r, whose header says declared
// bytes; the bytes read are what count.
func (u *unpacker) file(name string, declared int64, r io.Reader) error {
	clean, err := memberPath(name)
	if err != nil {
		return err
	}
	if clean == "." {
		return fmt.Errorf("entry %q: a file with no name", clip(name))
	}
	if u.files++; u.files > maxSkillFiles {
		return fmt.Errorf("more than %d files", maxSkillFiles)
	}
	limit := min(int64(maxArchiveFile), maxSkillBytes-u.total)
	if declared > limit {
		return u.tooBig(name, declared)
	}
	if d := path.Dir(clean); d != "." {
		if err := u.root.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("entry %q: %w", clip(name), err)
		}
	}
	f, err := u.root.OpenFile(clean, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("entry %q: a second entry of that name", clip(name))
	} else if err != nil {
		return fmt.Errorf("entry %q: %w", clip(name), err)
	}
	n, err := io.Copy(f, io.LimitReader(r, limit+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("entry %q: %w", clip(name), err)
	}
	if n > limit {
		return u.tooBig(name, n)
	}
	u.total += n
	return nil
}

func (u *unpacker) tooBig(name string, n int64) error {
	if n > maxArchiveFile {
		return fmt.Errorf("entry %q: over %d bytes, the most for one file", clip(name), maxArchiveFile)
	}
	return fmt.Errorf("more than %d bytes unpacked", maxSkillBytes)
}

// unzip unpacks the zip archive data into dest.
func unzip(data []byte, dest string) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return fmt.Errorf("not a zip archive: %w", err)
	}
	if len(zr.File) > maxArchiveEntries {
		return fmt.Errorf("%d entries, more than %d", len(zr.File), maxArchiveEntries)
	}
	u, err := newUnpacker(dest)
	if err != nil {
		return err
	}
	defer u.root.Close()
	for _, f := range zr.File {
		if err := u.entry(); err != nil {
			return err
		}
		mode := f.Mode()
		switch {
		case mode&fs.ModeSymlink != 0:
			return fmt.Errorf("entry %q: a link", clip(f.Name))
		case mode.IsDir() || strings.HasSuffix(f.Name, "/"):
			err = u.dir(f.Name)
		case !mode.IsRegular():
			return fmt.Errorf("entry %q: neither a file nor a folder (%s)", clip(f.Name), mode.Type())
		default:
			err = unzipOne(u, f)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func unzipOne(u *unpacker, f *zip.File) error {
	declared := int64(min(f.UncompressedSize64, 1<<62))
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("entry %q: %w", clip(f.Name), err)
	}
	defer rc.Close()
	return u.file(f.Name, declared, rc)
}

// untgz unpacks the tar.gz archive data into dest.
func untgz(data []byte, dest string) error {
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not a gzip stream: %w", err)
	}
	defer gz.Close()
	u, err := newUnpacker(dest)
	if err != nil {
		return err
	}
	defer u.root.Close()
	tr := tar.NewReader(&capReader{r: gz, left: maxTarStream})
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if errors.Is(err, errArchiveTooBig) {
				return err
			}
			return fmt.Errorf("not a tar archive: %w", err)
		}
		if err := u.entry(); err != nil {
			return err
		}
		switch hdr.Typeflag {
		case tar.TypeReg: // the reader turns the old '\x00' into TypeReg
			err = u.file(hdr.Name, hdr.Size, tr)
		case tar.TypeDir:
			err = u.dir(hdr.Name)
		case tar.TypeXGlobalHeader: // metadata, no file
		case tar.TypeSymlink, tar.TypeLink:
			return fmt.Errorf("entry %q: a link (to %q)", clip(hdr.Name), clip(hdr.Linkname))
		default:
			return fmt.Errorf("entry %q: neither a file nor a folder (type %q)", clip(hdr.Name), hdr.Typeflag)
		}
		if err != nil {
			return err
		}
	}
}

// capReader fails with errArchiveTooBig past left bytes.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 { // at the cap: fine if the stream ends here
		var one [1]byte
		n, err := c.r.Read(one[:])
		if n > 0 {
			return 0, errArchiveTooBig
		}
		return 0, err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
