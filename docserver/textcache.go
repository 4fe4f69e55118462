package docserver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/zstd"
)

// textCache keeps the search text of the documents whose text takes a
// parse to get (PDF and the office formats; a text file's bytes are read
// again instead), zstd-compressed, one file per document beside the
// search index. The index holds no text (package fulltext), so a search
// reads the text of the pages it shows, and a scan the text of the files
// not indexed yet: from here they never wait for a PDF engine again once
// the text has been extracted, by the index build or by a scan, also
// after a restart. An entry names the file version it holds; another
// version is a miss.
type textCache struct {
	dir    string // "" when off (no cache directory)
	schema string // the extractors' version: text of another is a miss
	log    *slog.Logger
	enc    *zstd.Encoder // EncodeAll and DecodeAll are safe for concurrent use
	dec    *zstd.Decoder
}

// cachedText is a document's search text.
type cachedText struct {
	Version string       `json:"v"`
	Title   string       `json:"t"` // extract.SearchForm of the title
	Pages   []cachedPage `json:"p"`
}

type cachedPage struct {
	Headings string `json:"h,omitempty"`
	Body     string `json:"b,omitempty"`
	Elements string `json:"e,omitempty"`
}

func (p cachedPage) text() pageText {
	return pageText{headings: p.Headings, body: p.Body, elements: p.Elements}
}

// newTextCache opens the cache in dir ("" for none).
func newTextCache(dir, schema string, log *slog.Logger) *textCache {
	c := &textCache{dir: dir, schema: schema, log: log}
	if dir == "" {
		return c
	}
	var err error
	if c.enc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1)); err == nil {
		c.dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
	}
	if err != nil {
		log.Warn("search text cache off", "err", err)
		c.dir = ""
	}
	return c
}

// cachesText reports whether the text of e's format is kept here.
func (c *textCache) cachesText(e *entry) bool { return c.dir != "" && !prefilterKind(e.kind) }

func (c *textCache) version(e *entry) string { return c.schema + " " + e.version() }

func (c *textCache) path(rel string) string {
	sum := sha256.Sum256([]byte(rel))
	return filepath.Join(c.dir, hex.EncodeToString(sum[:12])+".zst")
}

// get returns the text of e's version, if kept.
func (c *textCache) get(e *entry) (cachedText, bool) {
	if !c.cachesText(e) {
		return cachedText{}, false
	}
	raw, err := os.ReadFile(c.path(e.rel))
	if err != nil {
		return cachedText{}, false
	}
	data, err := c.dec.DecodeAll(raw, nil)
	var t cachedText
	if err == nil {
		err = json.Unmarshal(data, &t)
	}
	if err != nil {
		c.log.Debug("search text cache: entry dropped", "path", e.rel, "err", err)
		_ = os.Remove(c.path(e.rel))
		return cachedText{}, false
	}
	return t, t.Version == c.version(e)
}

// put keeps the text of e's version (pages in order, all of them).
func (c *textCache) put(e *entry, title string, pages []pageText) {
	if !c.cachesText(e) {
		return
	}
	t := cachedText{Version: c.version(e), Title: title, Pages: make([]cachedPage, len(pages))}
	for i, p := range pages {
		t.Pages[i] = cachedPage{Headings: p.headings, Body: p.body, Elements: p.elements}
	}
	data, err := json.Marshal(t)
	if err == nil {
		err = os.MkdirAll(c.dir, 0o700)
	}
	if err == nil {
		err = writeFileAtomic(c.path(e.rel), c.enc.EncodeAll(data, nil))
	}
	if err != nil {
		c.log.Warn("search text cache: cannot keep a document's text", "path", e.rel, "err", err)
	}
}

// remove forgets the text of files no longer served.
func (c *textCache) remove(rels ...string) {
	if c.dir == "" {
		return
	}
	for _, rel := range rels {
		if err := os.Remove(c.path(rel)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			c.log.Debug("search text cache: remove", "path", rel, "err", err)
		}
	}
}

// writeFileAtomic writes data to path through a temporary file renamed
// over it, so a reader sees the old file or the new one, whole.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}
