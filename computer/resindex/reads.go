package resindex

import (
	"context"
	"time"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// readKey names one Level 1 read: a document of one incarnation of a
// source.
type readKey struct {
	st  *sourceState
	uri string
}

// readQueue holds the Level 1 reads to do, those an answer waits for
// (urgent) before the others. A key may sit in both slices; the first
// copy popped runs it and the others are skipped.
type readQueue struct {
	urgent, normal []readKey
	queued         map[readKey]bool // true: waiting in a slice; false: running
	workers        int
}

func newReadQueue() readQueue { return readQueue{queued: map[readKey]bool{}} }

// wantLocked queues the Level 1 read of k unless it is queued or running;
// urgent puts it ahead of the others. Call with ix.mu held.
func (ix *Index) wantLocked(k readKey, urgent bool) {
	q := &ix.reads
	waiting, ok := q.queued[k]
	switch {
	case !ok:
		q.queued[k] = true
		if urgent {
			q.urgent = append(q.urgent, k)
		} else {
			q.normal = append(q.normal, k)
		}
	case waiting && urgent:
		q.urgent = append(q.urgent, k)
	default:
		return
	}
	for q.workers < ix.conc && !ix.closed {
		q.workers++
		go ix.readWorker()
	}
}

// nextLocked pops the next read to run. Call with ix.mu held.
func (ix *Index) nextLocked() (readKey, bool) {
	q := &ix.reads
	for {
		var k readKey
		switch {
		case len(q.urgent) > 0:
			k, q.urgent = q.urgent[0], q.urgent[1:]
		case len(q.normal) > 0:
			k, q.normal = q.normal[0], q.normal[1:]
		default:
			q.urgent, q.normal = nil, nil
			return readKey{}, false
		}
		if q.queued[k] {
			q.queued[k] = false
			return k, true
		}
	}
}

// readWorker runs queued reads until none is left. The last worker to
// stop signals a Finder change when an answer showed provisional entries.
func (ix *Index) readWorker() {
	for {
		ix.mu.Lock()
		k, ok := ix.nextLocked()
		if !ok || ix.closed {
			ix.reads.workers--
			var c Change
			if ix.reads.workers == 0 && ix.shown {
				ix.shown = false
				c = FinderChanged
			}
			ix.mu.Unlock()
			ix.signal(c)
			return
		}
		st := k.st
		_, listed := st.docSet[k.uri]
		cached, have := st.summaries[k.uri]
		valid := ix.sources[st.name] == st && listed && !(have && (cached.ok || time.Since(cached.at) <= NegativeTTL))
		version := st.versions[k.uri]
		ix.mu.Unlock()

		var s summary
		if valid {
			s = ix.readSummary(ix.base, st, k.uri)
		}

		ix.mu.Lock()
		delete(ix.reads.queued, k)
		// An interrupted read says nothing about the document; one that
		// an invalidation overtook is read again when asked for.
		if valid && ix.base.Err() == nil && ix.sources[st.name] == st && st.versions[k.uri] == version {
			if _, listed := st.docSet[k.uri]; listed {
				st.summaries[k.uri] = s
				ix.catalog = nil
			}
		}
		ix.broadcastLocked()
		ix.mu.Unlock()
	}
}

// Await reads the documents of docs whose entries are provisional ahead
// of the others and waits until their reads are done (true) or ctx ends
// (false). Documents no longer listed are not waited for.
func (ix *Index) Await(ctx context.Context, docs []protocol.DPEDocumentSummary) bool {
	left := make([]protocol.DPEDocumentSummary, 0, len(docs))
	for _, d := range docs {
		if d.Pending {
			left = append(left, d)
		}
	}
	// Each pass looks only at what is still missing; passes are at least
	// awaitTick apart, so a wait for thousands of reads does not look at
	// all of them after each one.
	var last time.Time
	for {
		ix.mu.Lock()
		n := 0
		for _, d := range left {
			st := ix.sources[d.Server]
			if st == nil {
				continue
			}
			if _, listed := st.docSet[d.URI]; !listed {
				continue
			}
			if _, read := st.summaries[d.URI]; read {
				continue
			}
			ix.wantLocked(readKey{st, d.URI}, true)
			left[n] = d
			n++
		}
		left = left[:n]
		ch, closed := ix.changed, ix.closed
		ix.mu.Unlock()
		if n == 0 {
			return true
		}
		if closed {
			return false
		}
		if wait := awaitTick - time.Since(last); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return false
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
		last = time.Now()
	}
}

// awaitTick is the shortest time between two looks of Await.
const awaitTick = 5 * time.Millisecond
