// Package fstools implements the bounded structure tools of the
// fs-tools v2 plan over one root directory: fs_tree (breadth-first with a
// depth limit and an entry budget; directories that do not fit are marked
// collapsed), fs_find (glob search) and fs_grep (text or regular-expression
// search that skips binary files). Every path is relative to the root; a
// path that is absolute, climbs out with "..", or resolves through a
// symbolic link to somewhere outside the root is refused. Hidden entries
// (names starting with a dot) are not shown, as the document server does
// not serve them.
package fstools

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
)

// ErrOutsideRoot is returned for a path that leaves the root.
var ErrOutsideRoot = errors.New("path is outside the served directory")

// FS runs the tools over a root.
type FS struct {
	root *os.Root
}

// New returns the tools over root (which the caller keeps open).
func New(root *os.Root) *FS { return &FS{root: root} }

// Clean validates a tool's path argument and returns it as a clean
// root-relative path ("." for the root). Absolute paths and paths that
// climb above the root are refused; symbolic links are checked when the
// path is used (os.Root refuses links that escape).
func Clean(p string) (string, error) {
	if p == "" || p == "." {
		return ".", nil
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("path %q: %w", p, ErrOutsideRoot)
	}
	if path.IsAbs(p) || strings.HasPrefix(p, `\`) || (len(p) > 1 && p[1] == ':') {
		return "", fmt.Errorf("path %q is absolute: %w", p, ErrOutsideRoot)
	}
	c := path.Clean(strings.ReplaceAll(p, `\`, "/"))
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("path %q: %w", p, ErrOutsideRoot)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return "", fmt.Errorf("path %q uses '..': %w", p, ErrOutsideRoot)
		}
	}
	return c, nil
}

// statDir resolves a directory argument inside the root.
func (f *FS) statDir(p string) (string, error) {
	rel, err := Clean(p)
	if err != nil {
		return "", err
	}
	info, err := f.root.Stat(rel)
	if err != nil {
		return "", rootErr(p, err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("path %q is not a directory", p)
	}
	return rel, nil
}

// rootErr turns os.Root errors into messages an agent can act on.
func rootErr(p string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("path %q does not exist", p)
	}
	if strings.Contains(err.Error(), "escapes") {
		return fmt.Errorf("path %q: %w", p, ErrOutsideRoot)
	}
	return fmt.Errorf("path %q: %v", p, err)
}

// hidden reports whether a name is hidden.
func hidden(name string) bool { return strings.HasPrefix(name, ".") }

// join joins a root-relative directory and a name.
func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// nodeHash is the short id of an entry: "nod_" and 12 hex digits of the
// SHA-256 of its path, size and modification time, so it changes when the
// entry changes and is stable otherwise.
func nodeHash(rel string, info fs.FileInfo) string {
	h := sha256.New()
	h.Write([]byte(rel))
	h.Write([]byte{0})
	h.Write([]byte(strconv.FormatInt(info.Size(), 10)))
	h.Write([]byte{0})
	h.Write([]byte(strconv.FormatInt(info.ModTime().UnixNano(), 10)))
	return "nod_" + hex.EncodeToString(h.Sum(nil))[:12]
}

// contentType guesses a file's MIME type from its extension.
func contentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	switch ext {
	case ".md", ".markdown":
		return "text/markdown"
	case ".go":
		return "text/x-go"
	case ".ts", ".tsx":
		return "text/typescript"
	case ".py":
		return "text/x-python"
	case ".rs":
		return "text/x-rust"
	case ".yaml", ".yml":
		return "application/yaml"
	case ".toml":
		return "application/toml"
	case ".tsv":
		return "text/tab-separated-values"
	case ".csv":
		return "text/csv"
	}
	if t := mime.TypeByExtension(ext); t != "" {
		if i := strings.IndexByte(t, ';'); i >= 0 {
			t = t[:i]
		}
		return t
	}
	return "application/octet-stream"
}

// readDir lists a directory's visible entries, sorted by name: hidden
// entries and symbolic links that leave the root (or dangle) are left out,
// so counts match what the tools show.
func (f *FS) readDir(rel string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(f.root.FS(), rel)
	if err != nil {
		return nil, err
	}
	out := entries[:0]
	for _, e := range entries {
		if hidden(e.Name()) {
			continue
		}
		if e.Type()&fs.ModeSymlink != 0 {
			if _, err := f.root.Stat(join(rel, e.Name())); err != nil {
				continue
			}
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

// entryInfo stats an entry through the root, following symbolic links that
// stay inside it. ok is false for links that escape or dangle.
func (f *FS) entryInfo(rel string, d fs.DirEntry) (info fs.FileInfo, link bool, ok bool) {
	if d.Type()&fs.ModeSymlink != 0 {
		info, err := f.root.Stat(rel)
		if err != nil {
			return nil, true, false
		}
		return info, true, true
	}
	info, err := d.Info()
	if err != nil {
		return nil, false, false
	}
	return info, false, true
}
