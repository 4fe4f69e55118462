package docserver

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/docserver/extract"
)

func TestTextCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x.text")
	c := newTextCache(dir, "s1", slog.New(slog.DiscardHandler))
	e := &entry{fileInfo: fileInfo{rel: "a/b.pdf", kind: extract.KindPDF, size: 10, mtime: time.Unix(100, 0)}}
	pages := []pageText{{headings: "H", body: "page one", elements: "e-1 0\n"}, {body: "page two"}}
	if _, ok := c.get(e); ok {
		t.Fatal("an empty cache has the text")
	}
	c.put(e, "Title", pages)
	got, ok := c.get(e)
	if !ok || got.Title != "Title" || len(got.Pages) != 2 || got.Pages[0].text() != pages[0] || got.Pages[1].text() != pages[1] {
		t.Fatalf("round trip: %+v %v", got, ok)
	}
	edited := *e
	edited.size = 11
	if _, ok := c.get(&edited); ok {
		t.Error("another version of the file is a hit")
	}
	if _, ok := newTextCache(dir, "s2", slog.New(slog.DiscardHandler)).get(e); ok {
		t.Error("text of other extractors is a hit")
	}
	text := &entry{fileInfo: fileInfo{rel: "a.md", kind: extract.KindMarkdown, size: 1, mtime: time.Unix(1, 0)}}
	c.put(text, "T", pages)
	if _, ok := c.get(text); ok {
		t.Error("a text file's text is kept (its bytes are read again instead)")
	}
	if err := os.WriteFile(c.path(e.rel), []byte("not zstd"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.get(e); ok {
		t.Error("a damaged entry is a hit")
	}
	if _, err := os.Stat(c.path(e.rel)); !os.IsNotExist(err) {
		t.Error("a damaged entry is kept")
	}
	c.put(e, "Title", pages)
	c.remove(e.rel)
	if _, ok := c.get(e); ok {
		t.Error("a removed entry is a hit")
	}
	if _, ok := newTextCache("", "s1", slog.New(slog.DiscardHandler)).get(e); ok {
		t.Error("a cache without a directory has the text")
	}
}
