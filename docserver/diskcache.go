package docserver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
)

// The on-disk index cache remembers, per file version (path, size and
// modification time), what listing and the catalog need: the peeked title
// and summary (or why the file cannot be read) and the Level 1 metadata of
// a parse (title, summary, keywords, page count). A second start over an
// unchanged folder answers resources/list and Level 1 reads from it
// without opening a single file; pages are still parsed when they are
// read.
//
// It is one JSON file per served folder and host under
// $XDG_CACHE_HOME/smcp-browse/docs (Options.CacheDir), written atomically
// (a temporary file renamed over it) a few seconds after changes and on
// Close. It is versioned (a new extractor version starts empty), bounded
// (diskCacheMaxEntries entries, diskCacheMaxBytes on disk: a larger file is
// not read), and a corrupt or foreign file is ignored and replaced.

// diskCacheVersion changes whenever the extractors' output changes, so
// entries written by an older version are not trusted.
const diskCacheVersion = 8 // 8: a binary file under a text name is unreadable (ErrBinary); a cut document says how much it kept; PDF links, a wrapped URL whole

// Bounds of the on-disk cache.
const (
	diskCacheMaxEntries = 200_000
	diskCacheMaxBytes   = 128 << 20
	diskCacheSaveDelay  = 2 * time.Second
)

// docInfo is the Level 1 metadata of a parsed file version, or why it
// cannot be parsed.
type docInfo struct {
	Title     string   `json:"title,omitempty"`
	Summary   string   `json:"summary,omitempty"`
	Keywords  []string `json:"keywords,omitempty"`
	Pages     int      `json:"pages"`
	Truncated bool     `json:"truncated,omitempty"`
	Cut       string   `json:"cut,omitempty"` // what cut it short, in words
	Err       string   `json:"err,omitempty"`
}

// diskEntry is what the cache knows of one file version.
type diskEntry struct {
	Size    int64    `json:"size"`
	MTime   int64    `json:"mtime"` // UnixNano
	Access  access   `json:"access"`
	Title   string   `json:"title,omitempty"`
	Summary string   `json:"summary,omitempty"`
	PeekErr string   `json:"peek_err,omitempty"`
	Peeked  bool     `json:"peeked,omitempty"`
	Info    *docInfo `json:"info,omitempty"`
}

func (d diskEntry) matches(k cacheKey) bool {
	return d.Size == k.size && d.MTime == k.mtime && d.Access == k.access
}

type diskFile struct {
	Version int                  `json:"version"`
	Root    string               `json:"root"`
	Host    string               `json:"host"`
	Entries map[string]diskEntry `json:"entries"`
}

// diskCache is the in-memory image of the cache file.
type diskCache struct {
	path string // "" when disabled
	root string
	host string
	log  interface{ Warn(string, ...any) }

	mu      sync.Mutex
	entries map[string]diskEntry
	dirty   bool
	timer   *time.Timer
	closed  bool
}

// defaultCacheDir is $XDG_CACHE_HOME/smcp-browse/docs, or "" when the
// user has no cache directory.
func defaultCacheDir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "smcp-browse", "docs")
}

// openDiskCache loads the cache file of root and host from dir ("" for
// no cache). Problems are logged; the cache then starts empty.
func openDiskCache(dir, root, host string, log interface{ Warn(string, ...any) }) *diskCache {
	c := &diskCache{root: root, host: host, log: log, entries: map[string]diskEntry{}}
	if dir == "" {
		return c
	}
	c.path = filepath.Join(dir, cacheName(root, host)+".json")
	f, err := os.Open(c.path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			log.Warn("index cache unreadable; starting empty", "path", c.path, "err", err)
		}
		return c
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, diskCacheMaxBytes+1))
	if err != nil || len(data) > diskCacheMaxBytes {
		log.Warn("index cache unreadable or too large; starting empty", "path", c.path, "err", err)
		return c
	}
	var df diskFile
	if err := json.Unmarshal(data, &df); err != nil {
		log.Warn("index cache corrupt; starting empty", "path", c.path, "err", err)
		return c
	}
	if df.Version != diskCacheVersion || df.Root != root || df.Host != host {
		return c // another version or folder: start empty
	}
	for rel, e := range df.Entries {
		if len(c.entries) >= diskCacheMaxEntries {
			break
		}
		c.entries[rel] = e
	}
	return c
}

// cacheName is the name of a folder's (and host's) files in the cache
// directory: the catalog cache (.json) and the search index (.search).
func cacheName(root, host string) string {
	sum := sha256.Sum256([]byte(root + "\x00" + host))
	return hex.EncodeToString(sum[:12])
}

// get returns the entry of a file version.
func (c *diskCache) get(k cacheKey) (diskEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k.rel]
	return e, ok && e.matches(k)
}

// update changes the entry of a file version (starting a fresh one when
// the file changed) and schedules a save.
func (c *diskCache) update(k cacheKey, f func(*diskEntry)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k.rel]
	if !ok || !e.matches(k) {
		if !ok && len(c.entries) >= diskCacheMaxEntries {
			return
		}
		e = diskEntry{Size: k.size, MTime: k.mtime, Access: k.access}
	}
	f(&e)
	c.entries[k.rel] = e
	c.dirty = true
	if c.path != "" && c.timer == nil && !c.closed {
		c.timer = time.AfterFunc(diskCacheSaveDelay, func() {
			if err := c.save(); err != nil {
				c.log.Warn("index cache not saved", "path", c.path, "err", err)
			}
		})
	}
}

// forget drops the entry of a path (it changed or went away).
func (c *diskCache) forget(rel string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[rel]; ok {
		delete(c.entries, rel)
		c.dirty = true
	}
}

// save writes the cache file when it changed since the last save.
func (c *diskCache) save() error {
	c.mu.Lock()
	c.timer = nil
	if c.path == "" || !c.dirty {
		c.mu.Unlock()
		return nil
	}
	data, err := json.Marshal(diskFile{Version: diskCacheVersion, Root: c.root, Host: c.host, Entries: c.entries})
	c.dirty = false
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if len(data) > diskCacheMaxBytes {
		return fmt.Errorf("index cache would be %d bytes, more than %d", len(data), diskCacheMaxBytes)
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return err
	}
	return writeFileAtomic(c.path, data)
}

// close saves pending changes and stops further saves.
func (c *diskCache) close() error {
	c.mu.Lock()
	c.closed = true
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	return c.save()
}

// infoOf is the Level 1 metadata of a parsed document.
func infoOf(doc *extract.Document) *docInfo {
	return &docInfo{Title: doc.Title, Summary: doc.Summary, Keywords: doc.Keywords, Pages: len(doc.Pages), Truncated: doc.Truncated, Cut: doc.Cut}
}

// staleCacheHead bounds what is read of another cache file to learn its
// folder: the folder is written before the entries.
const staleCacheHead = 64 << 10

// removeStaleCaches removes the catalog cache files in dir, other than
// keep, whose folder is gone (a demo's temporary corpus, a deleted folder),
// and temporary files a save left behind over an hour ago. A file whose
// folder cannot be told is kept. It returns the files removed.
func removeStaleCaches(dir, keep string) []string {
	var removed []string
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		if f == keep {
			continue
		}
		root, ok := cacheRoot(f)
		if !ok {
			continue
		}
		if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) && os.Remove(f) == nil {
			removed = append(removed, f)
		}
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, ".tmp-*"))
	for _, f := range tmps {
		if st, err := os.Stat(f); err == nil && time.Since(st.ModTime()) > time.Hour && os.Remove(f) == nil {
			removed = append(removed, f)
		}
	}
	return removed
}

// cacheRoot reads the folder a cache file belongs to from its head.
func cacheRoot(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	dec := json.NewDecoder(io.LimitReader(f, staleCacheHead))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return "", false
		}
		if k == "root" {
			var root string
			if err := dec.Decode(&root); err != nil || !filepath.IsAbs(root) {
				return "", false
			}
			return root, true
		}
		var skip json.RawMessage
		if k == "entries" || dec.Decode(&skip) != nil {
			return "", false // the folder comes before the entries
		}
	}
	return "", false
}
