package tui

import "context"

// exportJob is what `s` saves, `o` pages and `E` edits: a file name stem,
// the Markdown (built in a command: a whole document is read page by page)
// and, for a document, the local file it came from.
type exportJob struct {
	name  string
	title string // what the notice calls it
	file  string // the document's local file (file:// URI on this machine), "" when none
	build func(ctx context.Context, b Backend) (md string, err error)
}

// exporter is a screen whose content `s`, `o` and `E` act on.
type exporter interface {
	export() (exportJob, bool)
}

// staticExport is a job whose Markdown is already known.
func staticExport(name, title, md string) exportJob {
	return exportJob{name: name, title: title, build: func(context.Context, Backend) (string, error) { return md, nil }}
}
