package finderclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// fakeFinder answers client:search_finder with its answers in turn (the
// last again once they run out) and records the queries.
type fakeFinder struct {
	mu      sync.Mutex
	answers []string
	err     error
	asked   []protocol.SearchQuery
}

func (f *fakeFinder) GetFinder(context.Context, string, protocol.FinderQuery) (*protocol.GetFinderRet, error) {
	return nil, errors.New("not used")
}

func (f *fakeFinder) GetFinderJSON(context.Context, string, protocol.FinderQuery) (json.RawMessage, error) {
	return nil, errors.New("not used")
}

func (f *fakeFinder) SearchFinderJSON(_ context.Context, _ string, q protocol.SearchQuery) (json.RawMessage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, q)
	if f.err != nil {
		return nil, f.err
	}
	i := min(len(f.asked), len(f.answers)) - 1
	return json.RawMessage(f.answers[i]), nil
}

func match(doc string, score float64) string {
	return fmt.Sprintf(`{"uri":"dpe://h/%s/pages/0","doc_ref":%q,"title":"T","page_index":0,"line":"l","start":0,"end":1,"score":%g,"extra":"kept"}`, doc, doc, score)
}

// Steps are taken, each from the previous cursor and for the matches
// still wanted, until the search ends; the merged answer keeps the last
// answer's fields as received (one this client does not model included)
// and every step's matches.
func TestCollectMergesSteps(t *testing.T) {
	f := &fakeFinder{answers: []string{
		`{"matches":[` + match("a", 3) + `],"next_cursor":"c1","total_documents":5,"req_id":"r1","future":1}`,
		`{"matches":[` + match("b", 2) + `,` + match("c", 1) + `],"next_cursor":"c2","total_documents":5,"req_id":"r2","future":2}`,
		`{"matches":[` + match("d", 0) + `],"total_documents":5,"scanned_documents":5,"req_id":"r3","future":3}`,
	}}
	raw, ret, err := Collect(context.Background(), f, "pc", protocol.SearchQuery{Query: "q", MaxMatches: 10}, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.asked) != 3 || f.asked[1].Cursor != "c1" || f.asked[2].Cursor != "c2" || f.asked[1].MaxMatches != 9 || f.asked[2].MaxMatches != 7 {
		t.Fatalf("asked %+v", f.asked)
	}
	var got []string
	for _, m := range ret.Matches {
		got = append(got, m.DocRef)
	}
	if strings.Join(got, ",") != "a,b,c,d" || ret.NextCursor != "" || ret.ScannedDocuments != 5 || ret.ReqID != "r3" {
		t.Errorf("ret = %+v", ret)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	matches, _ := m["matches"].([]any)
	if len(matches) != 4 || m["future"] != 3.0 || m["req_id"] != "r3" || matches[0].(map[string]any)["extra"] != "kept" {
		t.Errorf("raw = %s", raw)
	}
}

// The last step's answer has no next_cursor (the Computer omits it when
// the search is complete): the collection ends there rather than asking
// again with the cursor before it, which would repeat its matches.
func TestCollectEndsWithoutCursor(t *testing.T) {
	f := &fakeFinder{answers: []string{
		`{"matches":[` + match("a", 2) + `],"next_cursor":"c1","total_documents":2,"req_id":"r"}`,
		`{"matches":[` + match("b", 1) + `],"total_documents":2,"req_id":"r"}`,
	}}
	_, ret, err := Collect(context.Background(), f, "pc", protocol.SearchQuery{Query: "q", MaxMatches: 50}, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.asked) != 2 || len(ret.Matches) != 2 || ret.Matches[1].DocRef != "b" {
		t.Errorf("%d asks, %d matches %+v", len(f.asked), len(ret.Matches), ret.Matches)
	}
}

// One answer is returned exactly as received.
func TestCollectOneAnswerAsReceived(t *testing.T) {
	answer := `{"req_id":"r", "matches":[],  "total_documents":0,"x":[1,2]}`
	f := &fakeFinder{answers: []string{answer}}
	raw, ret, err := Collect(context.Background(), f, "pc", protocol.SearchQuery{Query: "q", MaxMatches: 5}, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != answer || ret.Matches == nil || len(ret.Matches) != 0 {
		t.Errorf("raw %s, matches %#v", raw, ret.Matches)
	}
}

// An answer that is not a SearchFinderRet is a 500 that says so, and an
// error of the request keeps its code, with the computer named.
func TestCollectErrors(t *testing.T) {
	for _, answer := range []string{`[1,2]`, `{"matches":"none"}`, `{"matches":[{"score":"high"}]}`, `{"next_cursor":7}`} {
		f := &fakeFinder{answers: []string{answer}}
		_, _, err := Collect(context.Background(), f, "pc", protocol.SearchQuery{Query: "q", MaxMatches: 5}, time.Now().Add(time.Minute))
		if protocol.CodeOf(err) != protocol.CodeInternalError || !strings.Contains(err.Error(), "answered the search with something else") {
			t.Errorf("%s: err = %v", answer, err)
		}
	}
	f := &fakeFinder{err: protocol.NewError(protocol.CodeNotFound, "computer 'pc' not found")}
	_, _, err := Collect(context.Background(), f, "pc", protocol.SearchQuery{Query: "q", MaxMatches: 5}, time.Now().Add(time.Minute))
	if protocol.CodeOf(err) != protocol.CodeNotFound || !strings.HasPrefix(err.Error(), "search_finder pc: ") {
		t.Errorf("err = %v", err)
	}
}

// With Wait, Search asks again while an index is being built, reports
// the progress, and returns the settled answer once there is one.
func TestSearchWaitsForTheIndex(t *testing.T) {
	building := `{"matches":[],"total_documents":9,"indexing":{"indexed":3,"total":9},"req_id":"r"}`
	f := &fakeFinder{answers: []string{building, building, `{"matches":[` + match("a", 1) + `],"total_documents":9,"req_id":"r"}`}}
	var progress []protocol.SearchIndexing
	_, ret, unsettled, err := Search(context.Background(), f, "pc", protocol.SearchQuery{Query: "q", MaxMatches: 5},
		SearchOptions{Timeout: time.Minute, Wait: true, Progress: func(ix protocol.SearchIndexing) { progress = append(progress, ix) }})
	if err != nil || unsettled != nil {
		t.Fatalf("err %v, unsettled %v", err, unsettled)
	}
	if len(f.asked) != 3 || len(ret.Matches) != 1 || ret.Indexing != nil {
		t.Errorf("%d asks, ret %+v", len(f.asked), ret)
	}
	if len(progress) == 0 || progress[0].Indexed != 3 || progress[0].Total != 9 {
		t.Errorf("progress %+v", progress)
	}
}

// An index still building when the timeout passes leaves the answer
// unsettled: a 408 with the counts, ending with the caller's advice.
// Without Wait the first answer is the answer.
func TestSearchUnsettled(t *testing.T) {
	building := `{"matches":[],"total_documents":9,"indexing":{"indexed":3,"total":9},"req_id":"r"}`
	f := &fakeFinder{answers: []string{building}}
	_, ret, unsettled, err := Search(context.Background(), f, "pc", protocol.SearchQuery{Query: "q", MaxMatches: 5},
		SearchOptions{Timeout: 300 * time.Millisecond, Wait: true, Advice: "raise --timeout"})
	if err != nil || ret == nil {
		t.Fatal(err)
	}
	var pe *protocol.Error
	if !errors.As(unsettled, &pe) || pe.Code != protocol.CodeTimeout || pe.Details["indexed"] != 3 || pe.Details["total"] != 9 ||
		!strings.HasSuffix(pe.Message, "partly from scanning, unranked; raise --timeout") {
		t.Errorf("unsettled = %#v", unsettled)
	}
	f = &fakeFinder{answers: []string{building}}
	_, ret, unsettled, err = Search(context.Background(), f, "pc", protocol.SearchQuery{Query: "q", MaxMatches: 5}, SearchOptions{Timeout: time.Minute})
	if err != nil || unsettled != nil || len(f.asked) != 1 || ret.Indexing == nil {
		t.Errorf("without Wait: err %v, unsettled %v, %d asks, ret %+v", err, unsettled, len(f.asked), ret)
	}
}
