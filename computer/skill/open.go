package skill

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Reasons of a 4017 Skill Resource Not Accessible (details.reason).
const (
	ReasonTraversal = "traversal"
	ReasonForbidden = "forbidden"
	ReasonNotFound  = "not_found"
	ReasonTooLarge  = "too_large"
)

// DefaultMaxSize is the SDK's hard cap on a SKILL resource (100 MiB): a
// bigger one is refused before it is read.
const DefaultMaxSize = 100 << 20

// forbiddenNames are never served, whether they exist or not (the
// protocol names .skillenv, a SKILL's credentials file).
var forbiddenNames = []string{".skillenv"}

// AccessError is a resource of a SKILL that cannot be served: Reason is
// one of the Reason* values, RelPath the path asked for and TotalSize the
// resource's size for ReasonTooLarge.
type AccessError struct {
	Reason    string
	RelPath   string
	TotalSize int64
	Err       error // the cause, if any
}

func (e *AccessError) Error() string {
	msg := fmt.Sprintf("skill resource %q not accessible: %s", clip(e.RelPath), e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *AccessError) Unwrap() error { return e.Err }

// Resource is one resource of a SKILL as an agent consumes it: SKILL.md
// without its front matter, any other file as it is.
type Resource struct {
	RelPath  string
	MIMEType string
	Data     []byte
	SHA256   string
	Text     bool // the MIME type is textual and Data is UTF-8
}

// Open reads the resource relPath ("" is SKILL.md) of the SKILL whose
// folder is root. A relPath that is absolute, has a ".." or ':' segment or
// a backslash, or leads out of root through a link is ReasonTraversal; a
// forbidden name is ReasonForbidden (decided before the file is looked
// at, so its existence does not show); a missing file or a directory is
// ReasonNotFound; a file over maxSize is ReasonTooLarge, unread.
func Open(root, relPath string, maxSize int64) (*Resource, error) {
	rel := relPath
	if rel == "" {
		rel = File
	}
	fail := func(reason string, err error) (*Resource, error) {
		return nil, &AccessError{Reason: reason, RelPath: rel, Err: err}
	}
	clean, err := lexical(rel)
	if err != nil {
		return fail(ReasonTraversal, err)
	}
	if forbidden(path.Base(clean)) {
		return fail(ReasonForbidden, nil)
	}
	rootReal, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fail(ReasonNotFound, fmt.Errorf("skill folder: %w", err))
	}
	target, err := filepath.EvalSymlinks(filepath.Join(rootReal, filepath.FromSlash(clean)))
	if errors.Is(err, fs.ErrNotExist) {
		return fail(ReasonNotFound, nil)
	} else if err != nil {
		return fail(ReasonNotFound, err)
	}
	if !within(target, rootReal) {
		return fail(ReasonTraversal, errors.New("the path leads out of the skill's folder"))
	}
	if forbidden(filepath.Base(target)) {
		return fail(ReasonForbidden, nil)
	}
	return read(target, rel, path.Base(clean) == File, maxSize)
}

// read reads the regular file target (already sandboxed) as the resource
// rel; entry says it is SKILL.md, served without its front matter.
func read(target, rel string, entry bool, maxSize int64) (*Resource, error) {
	f, err := os.Open(target)
	if err != nil {
		return nil, &AccessError{Reason: ReasonNotFound, RelPath: rel, Err: err}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, &AccessError{Reason: ReasonNotFound, RelPath: rel, Err: err}
	}
	if st.Size() > maxSize {
		return nil, &AccessError{Reason: ReasonTooLarge, RelPath: rel, TotalSize: st.Size()}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return nil, &AccessError{Reason: ReasonNotFound, RelPath: rel, Err: fmt.Errorf("read: %w", err)}
	}
	if int64(len(data)) > maxSize { // grew since the stat
		return nil, &AccessError{Reason: ReasonTooLarge, RelPath: rel, TotalSize: int64(len(data))}
	}
	r := &Resource{RelPath: rel, MIMEType: MIMEType(target)}
	if entry {
		data = []byte(StripFrontMatter(string(data)))
		r.MIMEType = "text/markdown"
	}
	sum := sha256.Sum256(data)
	r.Data, r.SHA256 = data, hex.EncodeToString(sum[:])
	r.Text = IsText(r.MIMEType) && validUTF8(data)
	return r, nil
}

// lexical checks rel before the file system is touched and returns it
// cleaned.
func lexical(rel string) (string, error) {
	switch {
	case strings.Contains(rel, "\\"):
		return "", errors.New("a backslash is not a path separator here")
	case strings.HasPrefix(rel, "/"):
		return "", errors.New("the path is absolute")
	case strings.ContainsRune(rel, 0):
		return "", errors.New("the path has a NUL byte")
	}
	for _, part := range strings.Split(rel, "/") {
		if part == ".." {
			return "", errors.New("the path has a '..' segment")
		}
		if strings.Contains(part, ":") {
			return "", errors.New("a path segment has ':'")
		}
	}
	clean := path.Clean(rel)
	if clean == "." {
		return "", errors.New("the path names the skill's folder itself")
	}
	return clean, nil
}

// forbidden reports whether base is a name never served (case-insensitive,
// for case-insensitive file systems).
func forbidden(base string) bool {
	for _, n := range forbiddenNames {
		if strings.EqualFold(base, n) {
			return true
		}
	}
	return false
}

// within reports whether p is root or under it (both resolved).
func within(p, root string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}
