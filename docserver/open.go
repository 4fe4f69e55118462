package docserver

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"syscall"
)

// sourceName is the name a served file is parsed under: its path from
// the served folder's parent ("myproject/README.md"), so that a README
// at the root is titled by the folder, as one in a subfolder is by its.
func (s *Server) sourceName(rel string) string {
	base := filepath.Base(s.rootDir)
	if base == string(filepath.Separator) || base == "." {
		return rel
	}
	return path.Join(filepath.ToSlash(base), rel)
}

// openRegular opens a served file for reading without blocking and checks,
// on the opened file, that it is a regular file. A file swapped for a FIFO
// between the watcher's stat and the read would otherwise block the open
// (and with it resources/list) until some writer opened the FIFO; checking
// after the open also closes the window between a stat and an open.
func (s *Server) openRegular(rel string) (*os.File, error) {
	f, err := s.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat: %w", err)
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("not a regular file (%s)", info.Mode().Type())
	}
	return f, nil
}
