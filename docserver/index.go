package docserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
)

// fileInfo is what the index knows about one served file without reading
// it.
type fileInfo struct {
	rel      string // slash-separated path relative to the root
	kind     extract.Kind
	fileType string
	size     int64
	mtime    time.Time
	access   access
	// denied, when set, is why the scan could not open the path: a
	// folder listed as one unreadable entry.
	denied error
}

// access is what decides whether the server may read a file: its
// permission bits and owner. A change of either (chmod, chown) is a new
// version of the file as far as the server is concerned: it reads the
// file again.
type access struct {
	Perm uint32 `json:"perm"`
	UID  uint32 `json:"uid"`
	GID  uint32 `json:"gid"`
}

// folderType is the file_type of a folder the server cannot open.
const folderType = "folder"

// errDenied is the reason of a file or folder the server's user may not
// read.
func errDenied(what string, err error) error {
	return fmt.Errorf("permission denied: the document server's user cannot %s (%w)", what, err)
}

// entry is one document of the index.
type entry struct {
	fileInfo
	docRef string
	ver    string // versionOf(fileInfo), the key of this version in the search index
}

// version is the key of the entry's file version in the search index.
func (e *entry) version() string {
	if e.ver != "" {
		return e.ver
	}
	return versionOf(e.fileInfo)
}

// sameVersion reports whether two infos describe the same file version as
// far as the caches are concerned: same size, modification time and
// access (permissions and owner), and the scan could read both or
// neither.
func (f fileInfo) sameVersion(o fileInfo) bool {
	return f.size == o.size && f.mtime.Equal(o.mtime) && f.access == o.access && (f.denied == nil) == (o.denied == nil)
}

// index is the set of documents under the root, sorted by path. It is
// built by walking the tree (stat only: nothing is parsed) and kept up to
// date by the watcher.
type index struct {
	mu      sync.RWMutex
	entries []*entry // sorted by rel
	byRef   map[string]*entry
	byRel   map[string]*entry
}

func newIndex() *index {
	return &index{byRef: map[string]*entry{}, byRel: map[string]*entry{}}
}

// DocRef returns the doc_ref of a relative path: a slug of the file name
// (lower-case ASCII letters, digits and dashes, at most 32 characters) and
// the first 6 hex digits of the SHA-256 of the path, e.g.
// "q3-report-xlsx-3fa9c1". It depends only on the path, so it is stable
// across restarts and edits; a rename gives a new doc_ref.
func DocRef(rel string) string {
	return docRefN(rel, 6)
}

func docRefN(rel string, hexDigits int) string {
	sum := sha256.Sum256([]byte(rel))
	return slug(strings.TrimSuffix(path.Base(rel), path.Ext(rel))) + "-" + hex.EncodeToString(sum[:])[:hexDigits]
}

// slug keeps ASCII letters and digits of name in lower case and turns every
// other run into one dash. Names with no ASCII letters or digits (e.g. only
// CJK characters) give "doc".
func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9'):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			if b.Len() >= 32 {
				return strings.TrimRight(b.String(), "-")
			}
		default:
			dash = true
		}
	}
	if b.Len() == 0 {
		return "doc"
	}
	return b.String()
}

// replace installs a new set of files and returns what changed: whether
// the set of documents differs and the entries whose contents changed.
func (ix *index) replace(files map[string]fileInfo) (setChanged bool, updated []*entry) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	rels := make([]string, 0, len(files))
	for rel := range files {
		rels = append(rels, rel)
	}
	slices.Sort(rels)
	entries := make([]*entry, 0, len(rels))
	byRef := make(map[string]*entry, len(rels))
	byRel := make(map[string]*entry, len(rels))
	for _, rel := range rels {
		fi := files[rel]
		e := &entry{fileInfo: fi, docRef: DocRef(rel), ver: versionOf(fi)}
		if old, ok := ix.byRel[rel]; ok {
			e.docRef = old.docRef // keep a ref that had to be lengthened
			if !old.sameVersion(fi) {
				updated = append(updated, e)
			}
		} else {
			setChanged = true
		}
		if other, taken := byRef[e.docRef]; taken && other.rel != rel {
			// A 24-bit hash collision between two slugs: lengthen the hash.
			for n := 10; n <= 64; n += 4 {
				e.docRef = docRefN(rel, n)
				if _, taken := byRef[e.docRef]; !taken {
					break
				}
			}
		}
		entries = append(entries, e)
		byRef[e.docRef] = e
		byRel[rel] = e
	}
	if len(byRel) != len(ix.byRel) {
		setChanged = true
	}
	ix.entries, ix.byRef, ix.byRel = entries, byRef, byRel
	return setChanged, updated
}

// snapshot returns the current entries (the slice must not be modified).
func (ix *index) snapshot() []*entry {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.entries
}

// lookup finds an entry by doc_ref.
func (ix *index) lookup(ref string) (*entry, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	e, ok := ix.byRef[ref]
	return e, ok
}

// lookupRel finds an entry by path.
func (ix *index) lookupRel(rel string) (*entry, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	e, ok := ix.byRel[rel]
	return e, ok
}

// files returns a copy of the indexed files keyed by path.
func (ix *index) files() map[string]fileInfo {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	m := make(map[string]fileInfo, len(ix.byRel))
	for rel, e := range ix.byRel {
		m[rel] = e.fileInfo
	}
	return m
}

// hidden reports whether a path element is hidden (starts with a dot);
// hidden files and directories (.git, .cache, editor swap files) are not
// served.
func hidden(name string) bool { return strings.HasPrefix(name, ".") && name != "." }

// scanner walks the root and classifies files.
type scanner struct {
	fsys        fs.FS
	stat        func(rel string) (fs.FileInfo, error)
	open        func(rel string) (*os.File, error) // a regular file, without blocking
	maxFileSize int64
	log         *slog.Logger
	skipped     *skipLedger // the files classify left out; nil: not recorded
}

// walk collects the served files under dir ("." for the whole root) and the
// directories it passed (for the watcher). Symbolic links are followed for
// files only when their target stays inside the root; linked directories
// are not descended into (no cycles, no escapes).
func (sc *scanner) walk(ctx context.Context, dir string, files map[string]fileInfo, dirs *[]string) error {
	return fs.WalkDir(sc.fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if d != nil && d.IsDir() && p != "." && !hidden(d.Name()) {
				// A folder the server cannot open is listed as unreadable,
				// not silently left out.
				sc.log.Warn("folder cannot be read; listed as unreadable", "path", p, "err", err)
				if fi, ok := sc.deniedFolder(p, err); ok {
					files[p] = fi
				}
			} else {
				sc.log.Warn("skip unreadable path", "path", p, "err", err)
			}
			if d != nil && d.IsDir() && p != dir {
				return fs.SkipDir
			}
			return nil
		}
		if p != "." && hidden(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if dirs != nil {
				*dirs = append(*dirs, p)
			}
			return nil
		}
		if fi, ok := sc.classify(p, d.Type()); ok {
			files[p] = fi
		}
		return nil
	})
}

// rewalk walks dir again: as walk, with what it skips recorded apart and
// put in place of what the ledger knew under dir only when the walk is
// done, so that a catalog read meanwhile sees the old account, not an
// empty one.
func (sc *scanner) rewalk(ctx context.Context, dir string, files map[string]fileInfo, dirs *[]string) error {
	if sc.skipped == nil {
		return sc.walk(ctx, dir, files, dirs)
	}
	fresh := *sc
	fresh.skipped = newSkipLedger()
	if err := fresh.walk(ctx, dir, files, dirs); err != nil {
		return err
	}
	sc.skipped.replaceUnder(dir, fresh.skipped)
	return nil
}

// sniff finds the kind of a file without a telling name from its first
// bytes; KindUnknown when it cannot be read or is not text.
func (sc *scanner) sniff(rel string) extract.Kind {
	if sc.open == nil {
		return extract.KindUnknown
	}
	f, err := sc.open(rel)
	if err != nil {
		return extract.KindUnknown
	}
	defer f.Close()
	head := make([]byte, extract.SniffBytes)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return extract.KindUnknown
	}
	kind, _ := extract.KindOfContent(rel, head[:n])
	return kind
}

// classify stats one path and reports whether it is a served file. A
// file it leaves out is recorded in the skip ledger with the reason.
func (sc *scanner) classify(rel string, mode fs.FileMode) (fileInfo, bool) {
	fi, reason := sc.classifyWhy(rel, mode)
	if sc.skipped != nil {
		if reason != "" {
			sc.skipped.set(rel, reason)
		} else {
			sc.skipped.clear(rel)
		}
	}
	return fi, reason == "" && fi.rel != ""
}

// classifyWhy is classify: the file's info, or why it is skipped (empty
// with no info for a file that is gone).
func (sc *scanner) classifyWhy(rel string, mode fs.FileMode) (fileInfo, string) {
	kind, _ := extract.KindOf(rel)
	sniff := kind == extract.KindUnknown && extract.Sniffable(rel)
	if kind == extract.KindUnknown && !sniff {
		return fileInfo{}, skipBinary // an extension of a binary format (png, zip)
	}
	info, err := sc.stat(rel) // follows links, refusing ones that leave the root
	if err != nil {
		switch {
		case mode&fs.ModeSymlink != 0:
			sc.log.Warn("skip symbolic link", "path", rel, "err", err)
			return fileInfo{}, skipOutside
		case !errors.Is(err, fs.ErrNotExist):
			sc.log.Warn("skip unreadable file", "path", rel, "err", err)
			return fileInfo{}, skipUnreadable
		}
		return fileInfo{}, ""
	}
	if !info.Mode().IsRegular() {
		return fileInfo{}, skipSpecial
	}
	if sniff {
		// No extension says what it is (GPL-3, go.mod, asm.s): served as
		// plain text when its content is text, else not at all.
		if kind = sc.sniff(rel); kind == extract.KindUnknown {
			return fileInfo{}, skipBinary
		}
	}
	// A file over the size bound is served as unreadable (its peek
	// fails with the reason), not left out without a word.
	return fileInfo{
		rel:      rel,
		kind:     kind,
		fileType: extract.FileType(rel),
		size:     info.Size(),
		mtime:    info.ModTime().UTC(),
		access:   accessOf(info),
	}, ""
}

// deniedFolder is the entry of a folder that cannot be opened (err says
// why), or false when rel is no longer a folder.
func (sc *scanner) deniedFolder(rel string, err error) (fileInfo, bool) {
	info, serr := sc.stat(rel)
	if serr != nil || !info.IsDir() {
		return fileInfo{}, false
	}
	if errors.Is(err, fs.ErrPermission) {
		err = errDenied("open this folder", err)
	} else {
		err = fmt.Errorf("the folder cannot be read: %w", err)
	}
	return fileInfo{rel: rel, fileType: folderType, mtime: info.ModTime().UTC(), access: accessOf(info), denied: err}, true
}

// folder re-examines the entry of a folder that could not be opened: its
// entry while it still cannot be, false once it can (its files are then
// listed instead) or is gone.
func (sc *scanner) folder(rel string) (fileInfo, bool) {
	f, err := sc.fsys.Open(rel)
	if err == nil {
		if d, ok := f.(fs.ReadDirFile); ok {
			_, err = d.ReadDir(1)
			if errors.Is(err, io.EOF) {
				err = nil
			}
		}
		f.Close()
	}
	if err == nil {
		return fileInfo{}, false
	}
	return sc.deniedFolder(rel, err)
}
