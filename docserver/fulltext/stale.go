package fulltext

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// RemoveStale removes the index directories among dirs whose folder is
// gone (a demo's temporary corpus, a folder deleted) and that no process
// holds open, and those left half-made (no meta file) over an hour ago.
// It returns the directories removed.
func RemoveStale(dirs []string) []string {
	var removed []string
	for _, dir := range dirs {
		m := readMeta(dir)
		stale := false
		if m.Root != "" {
			_, err := os.Stat(m.Root)
			stale = errors.Is(err, fs.ErrNotExist)
		} else if st, err := os.Stat(dir); err == nil {
			stale = time.Since(st.ModTime()) > time.Hour
		}
		if !stale || inUse(filepath.Join(dir, "index", "store", "root.bolt")) {
			continue
		}
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}
