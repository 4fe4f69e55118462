package finderclient

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// Pace of Search while it waits for the indexes.
const (
	// IndexPoll is how often Search asks again while an index is built.
	IndexPoll = 500 * time.Millisecond
	// ProgressEvery is how often, at most, Search reports the indexes'
	// progress.
	ProgressEvery = 2 * time.Second
)

// SearchOptions bound Search.
type SearchOptions struct {
	// Timeout bounds the whole search (required): the steps of one
	// collection, and the wait for the indexes.
	Timeout time.Duration
	// Wait asks again until no document server is still building its
	// index (at most Timeout), for a ranked answer; without it the first
	// collection is the answer.
	Wait bool
	// Progress, when set, is told how far the indexes are while Search
	// waits for them, at most every ProgressEvery.
	Progress func(protocol.SearchIndexing)
	// Advice ends the message of the unsettled error (see SettleOptions).
	Advice string
}

// Search collects q's matches from computer (Collect) and, with o.Wait,
// collects them again until no document server is still building its
// index, at most o.Timeout. unsettled is the 408 of an answer still partly
// scanned when the wait ends (details {indexed, total}); without o.Wait it
// is nil, and ret.Indexing says whether the ranking is partial. raw is the
// answer as Collect returns it.
func Search(ctx context.Context, f Finder, computer string, q protocol.SearchQuery, o SearchOptions) (raw json.RawMessage, ret *protocol.SearchFinderRet, unsettled, err error) {
	deadline := time.Now().Add(o.Timeout)
	var lastNote time.Time
	for {
		raw, ret, err = Collect(ctx, f, computer, q, deadline)
		if err != nil {
			return nil, nil, nil, err
		}
		ix := ret.Indexing
		if ix == nil {
			return raw, ret, nil, nil
		}
		if !o.Wait {
			return raw, ret, nil, nil
		}
		unsettled = protocol.Errorf(protocol.CodeTimeout,
			"the search index is not built after %v (%d of %d documents indexed): the answer above is partly from scanning, unranked%s",
			o.Timeout, ix.Indexed, ix.Total, advice(o.Advice)).
			WithDetails(map[string]any{"indexed": ix.Indexed, "total": ix.Total})
		left := min(time.Until(deadline), IndexPoll)
		if left <= 0 {
			return raw, ret, unsettled, nil
		}
		if o.Progress != nil && time.Since(lastNote) >= ProgressEvery {
			o.Progress(*ix)
			lastNote = time.Now()
		}
		t := time.NewTimer(left)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, nil, nil, ctx.Err()
		}
	}
}

// searchStep is one answer of client:search_finder as decoded once: its
// fields, and its matches as received.
type searchStep struct {
	protocol.SearchFinderRet
	Matches []json.RawMessage `json:"matches"`
}

// Collect asks computer for q's matches, step after step (each answer's
// next_cursor), until it has q.MaxMatches of them, the search ends, or the
// deadline passes (after the first answer, which gets a second even when
// the deadline has passed). ret is the last answer with every step's
// matches; raw is the one answer exactly as received, or, after several,
// the last answer's fields as received with every step's matches. An
// answer that is not a SearchFinderRet is a 500.
func Collect(ctx context.Context, f Finder, computer string, q protocol.SearchQuery, deadline time.Time) (raw json.RawMessage, ret *protocol.SearchFinderRet, err error) {
	var all []json.RawMessage
	var last searchStep
	steps := 0
	for steps = 1; ; steps++ {
		actx, cancel := context.WithDeadline(ctx, deadline)
		if time.Until(deadline) <= 0 {
			cancel()
			actx, cancel = context.WithTimeout(ctx, time.Second)
		}
		r, err := f.SearchFinderJSON(actx, computer, q)
		cancel()
		if err != nil {
			return nil, nil, fmt.Errorf("search_finder %s: %w", computer, err)
		}
		last = searchStep{}
		if err := json.Unmarshal(r, &last); err != nil {
			return nil, nil, answeredElse(err)
		}
		raw = r
		all = append(all, last.Matches...)
		if len(all) >= q.MaxMatches || last.NextCursor == "" || !time.Now().Before(deadline) {
			break
		}
		q.Cursor = last.NextCursor
		q.MaxMatches -= len(last.Matches)
	}
	ret = &last.SearchFinderRet
	ret.Matches = make([]protocol.SearchMatch, len(all))
	for i, m := range all {
		if err := json.Unmarshal(m, &ret.Matches[i]); err != nil {
			return nil, nil, answeredElse(err)
		}
	}
	if steps > 1 {
		if raw, err = mergeMatches(raw, all); err != nil {
			return nil, nil, err
		}
	}
	return raw, ret, nil
}

// mergeMatches returns the answer last, as received but for its matches,
// which become all.
func mergeMatches(last json.RawMessage, all []json.RawMessage) (json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(last, &fields); err != nil || fields == nil {
		return nil, answeredElse(fmt.Errorf("not an object: %v", err))
	}
	if all == nil {
		all = []json.RawMessage{} // "matches": [], as one answer has it
	}
	matches, err := json.Marshal(all)
	if err != nil {
		return nil, fmt.Errorf("search_finder: merge the matches: %w", err)
	}
	fields["matches"] = matches
	out, err := json.Marshal(fields)
	if err != nil {
		return nil, fmt.Errorf("search_finder: merge the answers: %w", err)
	}
	return out, nil
}

// answeredElse is the 500 of an answer that is not a SearchFinderRet.
func answeredElse(err error) error {
	return protocol.Errorf(protocol.CodeInternalError, "the computer answered the search with something else: %v", err)
}
