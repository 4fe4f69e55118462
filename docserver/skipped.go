package docserver

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// Why a scan left a file out of the catalog (the keys of
// protocol.SkippedFiles.Reasons). Hidden files and folders (.git) are
// left out by design and not counted.
const (
	skipBinary     = "binary"             // binary content, or a binary format's extension (png, zip, so)
	skipUnreadable = "unreadable"         // the file cannot be stat'ed
	skipOutside    = "link outside"       // a symbolic link whose target leaves the folder
	skipSpecial    = "not a regular file" // a device, socket or named pipe
)

// skippedExamples bounds the paths a summary names.
const skippedExamples = 5

// skipLedger records the files the scan left out, by path, so that the
// catalog can say how many and why instead of leaving them out without a
// word. It is kept current by the watcher like the index.
type skipLedger struct {
	mu    sync.Mutex
	byRel map[string]string // path → reason
}

func newSkipLedger() *skipLedger { return &skipLedger{byRel: map[string]string{}} }

// set records rel as skipped for reason.
func (l *skipLedger) set(rel, reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.byRel[rel] = reason
}

// clear forgets rel: it is served, or gone.
func (l *skipLedger) clear(rel string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.byRel, rel)
}

// forgetUnder forgets p and every path under it, before they are
// examined again.
func (l *skipLedger) forgetUnder(p string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.forgetUnderLocked(p)
}

func (l *skipLedger) forgetUnderLocked(p string) {
	if p == "." {
		clear(l.byRel)
		return
	}
	prefix := p + "/"
	for rel := range l.byRel {
		if rel == p || strings.HasPrefix(rel, prefix) {
			delete(l.byRel, rel)
		}
	}
}

// replaceUnder puts what from recorded in place of what l knew under p
// (p and the paths under it; "." for all).
func (l *skipLedger) replaceUnder(p string, from *skipLedger) {
	from.mu.Lock()
	got := maps.Clone(from.byRel)
	from.mu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.forgetUnderLocked(p)
	maps.Copy(l.byRel, got)
}

// summary is what the catalog says of the skipped files; nil when none
// were.
func (l *skipLedger) summary() *protocol.SkippedFiles {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.byRel) == 0 {
		return nil
	}
	s := &protocol.SkippedFiles{Count: len(l.byRel), Reasons: map[string]int{}}
	for _, reason := range l.byRel {
		s.Reasons[reason]++
	}
	rels := slices.Sorted(maps.Keys(l.byRel))
	s.Examples = rels[:min(len(rels), skippedExamples)]
	return s
}
