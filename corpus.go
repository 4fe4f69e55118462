// Package smcpbrowse holds what the module ships besides its packages: the
// sample corpus of testdata/corpus (Markdown, text, Go, CSV, TSV, XLSX, PDF,
// DOCX, PPTX), embedded once here so that `smcp-browse --demo` carries the
// very files the tests read (internal/democorpus extracts it).
package smcpbrowse

import (
	"embed"
	"io/fs"
)

//go:embed all:testdata/corpus
var sampleCorpus embed.FS

// SampleCorpus returns the embedded sample corpus, rooted at its folder.
func SampleCorpus() fs.FS {
	sub, err := fs.Sub(sampleCorpus, "testdata/corpus")
	if err != nil {
		panic(err) // a valid constant path: fs.Sub fails only for invalid ones
	}
	return sub
}
