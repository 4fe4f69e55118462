// Package democorpus is the sample corpus built into the smcp-browse binary
// for `smcp-browse --demo`: testdata/corpus (Markdown, text, Go, CSV, TSV,
// XLSX, PDF, DOCX, PPTX), embedded by the module's root package, extracted
// to a folder the demo's document server serves.
package democorpus

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	smcpbrowse "github.com/smcp-browse/smcp-browse"
)

// Modified returns the modification time given to extracted files. Embedded
// files carry no time, so the demo shows the date the corpus generator writes
// (cmd/corpusgen) rather than the moment of extraction.
func Modified() time.Time { return time.Date(2026, 1, 15, 8, 30, 0, 0, time.UTC) }

// FS returns the embedded corpus, rooted at the corpus folder.
func FS() fs.FS { return smcpbrowse.SampleCorpus() }

// Extract writes the corpus into dir (created if missing) and returns the
// number of files written. Existing files of the same names are replaced.
func Extract(dir string) (int, error) {
	n := 0
	err := fs.WalkDir(FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(FS(), p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return err
		}
		n++
		return os.Chtimes(dst, Modified(), Modified())
	})
	if err != nil {
		return n, fmt.Errorf("extract demo corpus into %s: %w", dir, err)
	}
	return n, nil
}
