package skill

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watch calls onChange once things settle (window after the last event)
// whenever something changes in a configured folder or in a SKILL folder
// one level below it (a SKILL.md edited, a SKILL added or removed). It
// returns when ctx ends; an error only when the watcher cannot start.
func Watch(ctx context.Context, roots []string, window time.Duration, log *slog.Logger, onChange func()) error {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("skill watcher: %w", err)
	}
	defer fw.Close()
	isRoot := map[string]bool{}
	for _, root := range roots {
		abs, err := filepath.Abs(root)
		if err != nil {
			continue
		}
		isRoot[abs] = true
		if err := fw.Add(abs); err != nil {
			log.Warn("cannot watch skill folder", "path", abs, "err", err)
			continue
		}
		entries, _ := os.ReadDir(abs)
		for _, e := range entries {
			if e.IsDir() {
				addDir(fw, filepath.Join(abs, e.Name()), log)
			}
		}
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-fw.Events:
			if !ok {
				return nil
			}
			if ev.Has(fsnotify.Create) && isRoot[filepath.Dir(ev.Name)] && isDir(ev.Name) {
				addDir(fw, ev.Name, log)
			}
			timer.Reset(window)
		case err, ok := <-fw.Errors:
			if !ok {
				return nil
			}
			log.Warn("skill watcher error; looking again", "err", err)
			timer.Reset(window)
		case <-timer.C:
			onChange()
		}
	}
}

func addDir(fw *fsnotify.Watcher, dir string, log *slog.Logger) {
	if err := fw.Add(dir); err != nil {
		log.Warn("cannot watch skill folder", "path", dir, "err", err)
	}
}
