package docserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// maxDebounceDelay caps how long a steady stream of events can hold back
// notifications, as a multiple of the debounce interval.
const maxDebounceDelay = 10

// watcher turns file-system events under the root into index updates and
// MCP notifications: list_changed when documents appear, go or are
// renamed, updated for a document whose contents, permissions or owner
// changed. Events are
// gathered for the debounce interval (restarted by each event, but never
// held back longer than ten intervals) and applied as one batch.
type watcher struct {
	s      *Server
	fw     *fsnotify.Watcher
	cancel context.CancelFunc
	done   chan struct{}
}

// Start starts watching the root (recursively; directories created later
// are added). It returns at once; the watcher runs until ctx ends or Close.
// Calling Start again is a no-op.
func (s *Server) Start(ctx context.Context) error {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	if s.closed {
		return errors.New("docserver: start: server is closed")
	}
	if s.watch != nil {
		return nil
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("docserver: start watcher: %w", err)
	}
	wctx, cancel := context.WithCancel(ctx)
	w := &watcher{s: s, fw: fw, cancel: cancel, done: make(chan struct{})}
	for _, d := range s.scannedDirs {
		w.add(d)
	}
	s.scannedDirs = nil
	s.watch = w
	s.text.start(wctx)
	// Files may have changed between New's scan and the watches: the
	// watcher catches up first, in the background, so that the server
	// answers at once (a 10,000-file folder costs a second walk).
	go w.run(wctx, map[string]bool{".": true})
	return nil
}

// add watches one directory (relative to the root).
func (w *watcher) add(rel string) {
	if err := w.fw.Add(filepath.Join(w.s.rootDir, filepath.FromSlash(rel))); err != nil {
		w.s.log.Warn("cannot watch directory", "path", rel, "err", err)
	}
}

func (w *watcher) close() error {
	w.cancel()
	err := w.fw.Close()
	<-w.done
	return err
}

// rel turns an event path into a root-relative slash path; ok is false for
// paths outside the root or under a hidden directory.
func (w *watcher) rel(name string) (string, bool) {
	r, err := filepath.Rel(w.s.rootDir, name)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	r = filepath.ToSlash(r)
	for _, part := range strings.Split(r, "/") {
		if hidden(part) {
			return "", false
		}
	}
	return r, true
}

// run applies the watched changes, after catching up with the paths in
// catchUp (applied at once).
func (w *watcher) run(ctx context.Context, catchUp map[string]bool) {
	defer close(w.done)
	w.apply(catchUp)
	pending := map[string]bool{}
	var timer *time.Timer
	var timerC <-chan time.Time
	var first time.Time
	flush := func() {
		if len(pending) > 0 {
			w.apply(pending)
			pending = map[string]bool{}
		}
		timerC = nil
	}
	for {
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			// Chmod is any change of a file's attributes (permissions,
			// owner, times): a file made readable again is read again.
			rel, ok := w.rel(ev.Name)
			if !ok {
				continue
			}
			pending[rel] = true
			now := time.Now()
			if timerC == nil {
				first = now
			}
			wait := w.s.opts.Debounce
			if limit := first.Add(maxDebounceDelay * w.s.opts.Debounce); now.Add(wait).After(limit) {
				wait = max(limit.Sub(now), 0)
			}
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Stop()
				timer.Reset(wait)
			}
			timerC = timer.C
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			// An overflow loses events: rescan everything.
			w.s.log.Warn("file watcher error; rescanning", "err", err)
			pending["."] = true
			flush()
		case <-timerC:
			flush()
		}
	}
}

// apply re-examines the changed paths (files, or whole directories), updates
// the index and caches, and notifies. Its cost is that of the changed
// paths (a changed path that is a directory finds its files by binary
// search in the sorted index) plus one pass over the index; looping over
// every indexed file for every changed path made a batch quadratic.
func (w *watcher) apply(paths map[string]bool) {
	s := w.s
	ctx := s.baseCtx
	old := s.index.files()
	sorted := s.index.snapshot() // sorted by rel
	files := make(map[string]fileInfo, len(old))
	for rel, fi := range old {
		files[rel] = fi
	}
	for p := range paths {
		if p == "." {
			files = map[string]fileInfo{}
			var dirs []string
			if err := s.scan.rewalk(ctx, ".", files, &dirs); err != nil {
				s.log.Warn("rescan failed", "err", err)
				return
			}
			for _, d := range dirs {
				w.add(d)
			}
			continue
		}
		delete(files, p)
		prefix := p + "/"
		for i := sort.Search(len(sorted), func(i int) bool { return sorted[i].rel >= prefix }); i < len(sorted) && strings.HasPrefix(sorted[i].rel, prefix); i++ {
			delete(files, sorted[i].rel)
		}
		info, err := s.root.Lstat(p)
		if err != nil {
			s.scan.skipped.forgetUnder(p)
			continue // gone
		}
		if info.IsDir() {
			var dirs []string
			if err := s.scan.rewalk(ctx, p, files, &dirs); err != nil {
				s.log.Warn("scan of new directory failed", "path", p, "err", err)
			}
			for _, d := range dirs {
				w.add(d)
			}
			continue
		}
		if fi, ok := s.scan.classify(p, info.Mode().Type()); ok {
			files[p] = fi
		}
	}
	setChanged, updated := s.index.replace(files)
	var touched []string
	for rel, fi := range old {
		if nf, ok := files[rel]; !ok || !nf.sameVersion(fi) {
			s.docs.forget(rel)
			s.peeks.forget(rel)
			s.disk.forget(rel)
			touched = append(touched, rel)
		}
	}
	for rel := range files {
		if _, ok := old[rel]; !ok {
			touched = append(touched, rel)
		}
	}
	s.text.touch(touched)
	if setChanged {
		s.log.Info("document list changed", "documents", len(files))
		s.notifyListChanged()
	}
	for _, e := range updated {
		s.log.Info("document changed", "path", e.rel, "doc_ref", e.docRef)
		s.notifyUpdated(e.docRef)
	}
}
