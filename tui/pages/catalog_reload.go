package pages

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/tui/common"
)

// catalogReload is the bookkeeping of a reload in flight: what was
// selected and what the catalog looked like, to restore the one and report
// the diff. Rows keep showing until their chunk comes again.
type catalogReload struct {
	live        bool
	selURI      string
	selIndex    int
	before      map[string]string // uri -> fingerprint
	chunks      map[int]bool      // the chunks loaded before
	wasComplete bool
	totalBefore int
	// first: the catalog had not been answered yet, so there is nothing
	// to compare with (a notification during the first load).
	first bool
	// quiet: a notification's reload says nothing when nothing visible
	// changed (the computer announces its catalog as the browser opens).
	quiet bool
	// seek lists the chunks still to look in for the selected document
	// when it moved out of the rows the reload fetched (new documents above
	// it push it down): it is followed to its new place, within a bound.
	seek   []int
	sought bool
}

// seekChunks bounds how many chunks a reload reads to find where the
// selected document moved (catalogChunk rows each).
const seekChunks = 40

// refreshCmd reloads keeping the selection; live says it was a
// notification.
func (s *catalogScreen) refreshCmd(live bool) tea.Cmd {
	rl := &catalogReload{live: live, before: map[string]string{}, chunks: map[int]bool{}, totalBefore: s.list.total, first: !s.list.haveTotal}
	for n := range s.list.docs.loaded {
		rl.chunks[n] = true
	}
	if d, ok := s.list.selected(); ok {
		rl.selURI, rl.selIndex = d.URI, s.list.nav.Cursor
	}
	n := 0
	for d := range s.list.docs.rows() {
		rl.before[d.URI] = fingerprint(d)
		n++
	}
	rl.wasComplete = s.list.haveTotal && n >= s.list.total
	s.reload = rl
	return s.restartCmd(true)
}

// reselect makes the document the user just moved to the one a reload in
// flight keeps selected: the move is newer than the selection the reload
// remembered when it started, and must not be undone when it lands.
func (s *catalogScreen) reselect() {
	rl := s.reload
	if rl == nil {
		return
	}
	if d, ok := s.list.selected(); ok {
		rl.selURI, rl.selIndex = d.URI, s.list.nav.Cursor
		rl.seek, rl.sought = nil, false
	}
}

// notifiedCmd reloads for a notify:update_finder: a live refresh that
// says nothing when nothing visible changed.
func (s *catalogScreen) notifiedCmd() tea.Cmd {
	cmd := s.refreshCmd(true)
	s.reload.quiet = true
	return cmd
}

// followSelection moves the cursor to the reloaded row of the selected
// document once it shows up, and when the rows fetched so far do not hold
// it, asks for the chunk where it probably went (its old index shifted by
// the change in total) and then the others, nearest first, up to
// seekChunks.
func (s *catalogScreen) followSelection() tea.Cmd {
	rl := s.reload
	if rl == nil || rl.selURI == "" {
		return nil
	}
	if i, ok := s.list.indexOf(rl.selURI); ok {
		s.list.nav.Set(i)
		rl.selURI, rl.seek = "", nil
		return nil
	}
	if s.list.docs.waiting() {
		return nil
	}
	if !rl.sought {
		rl.sought = true
		guess := max(rl.selIndex+s.list.total-rl.totalBefore, 0) / catalogChunk
		last := max(s.list.total-1, 0) / catalogChunk
		for d := 0; len(rl.seek) < seekChunks && (guess-d >= 0 || guess+d <= last); d++ {
			for _, n := range []int{guess + d, guess - d} {
				if n >= 0 && n <= last && (d > 0 || n == guess) && len(rl.seek) < seekChunks {
					rl.seek = append(rl.seek, n)
				}
			}
		}
	}
	for len(rl.seek) > 0 {
		n := rl.seek[0]
		rl.seek = rl.seek[1:]
		if _, loaded := s.list.docs.loaded[n]; loaded {
			continue
		}
		return s.fetchCmd(n)
	}
	rl.selURI = "" // gone, or too far: the cursor stays where it was
	return nil
}

// finishReload reports what a reload changed once all its chunks are in.
func (s *catalogScreen) finishReload() {
	rl := s.reload
	s.reload = nil
	l := &s.list
	l.docs.dropStale()
	after := map[string]string{}
	inPlace := map[string]bool{} // rows of chunks that were loaded before too
	n := 0
	for c, rows := range l.docs.loaded {
		for _, d := range rows {
			after[d.URI] = fingerprint(d)
			inPlace[d.URI] = rl.chunks[c]
			n++
		}
	}
	complete := n >= l.total
	var added, removed, changed int
	l.fresh = map[string]bool{}
	if rl.first {
		return // a first load, not an update
	}
	for u, fp := range after {
		old, ok := rl.before[u]
		switch {
		case !ok:
			added++
			if inPlace[u] || rl.wasComplete {
				l.fresh[u] = true // not a row merely read for the first time
			}
		case old != fp:
			changed++
			l.fresh[u] = true
		}
	}
	for u := range rl.before {
		if _, ok := after[u]; !ok {
			removed++
		}
	}
	var parts []string
	if rl.wasComplete && complete {
		if added > 0 {
			parts = append(parts, "+"+common.Itoa(added))
		}
		if removed > 0 {
			parts = append(parts, "−"+common.Itoa(removed))
		}
		if changed > 0 {
			parts = append(parts, "~"+common.Itoa(changed))
		}
	} else {
		// Only part of the catalog is loaded: report the count and what
		// changed among the rows on hand.
		if d := l.total - rl.totalBefore; d != 0 {
			sign := "+"
			if d < 0 {
				sign, d = "−", -d
			}
			parts = append(parts, sign+common.Itoa(d)+" ("+common.Itoa(rl.totalBefore)+" → "+common.Itoa(l.total)+")")
		}
		if changed > 0 {
			parts = append(parts, "~"+common.Itoa(changed)+" in view")
		}
	}
	switch {
	case len(parts) > 0:
		s.c.Notice = "catalog updated: " + strings.Join(parts, " ") + " documents"
	case rl.quiet:
	case rl.live:
		s.c.Notice = "catalog updated: no visible change"
	default:
		s.c.Notice = "catalog refreshed"
	}
}
