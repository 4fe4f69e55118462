package common

import "context"

// ExportJob is what `s` saves, `o` pages and `E` edits: a file name stem,
// the Markdown (built in a command: a whole document is read page by page)
// and, for a document, the local file it came from.
type ExportJob struct {
	Name  string
	Title string // what the notice calls it
	File  string // the document's local file (file:// URI on this machine), "" when none
	// Ext is the saved file's extension (".md" when empty); Viewer says
	// the content is a binary file that `o` opens with the desktop's
	// viewer rather than $PAGER.
	Ext    string
	Viewer bool
	Build  func(ctx context.Context, b Backend) (md string, err error)
}

// Exporter is a screen whose content `s`, `o` and `E` act on.
type Exporter interface {
	Export() (ExportJob, bool)
}

// StaticExport is a job whose Markdown is already known.
func StaticExport(name, title, md string) ExportJob {
	return ExportJob{Name: name, Title: title, Build: func(context.Context, Backend) (string, error) { return md, nil }}
}
