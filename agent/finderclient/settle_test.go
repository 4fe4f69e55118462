package finderclient

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// Settle asks again on each notify:update_finder until the answer is settled.
func TestSettleFinderAsksAgainOnUpdates(t *testing.T) {
	updates := make(chan struct{}, 1)
	answers := []struct {
		pending int
		listing bool
	}{{5, true}, {2, false}, {0, false}}
	asks := 0
	unsettled, err := Settle(context.Background(), SettleOptions{Timeout: time.Minute, Updates: updates}, func(context.Context) (int, bool, error) {
		a := answers[asks]
		asks++
		updates <- struct{}{} // the computer announces the next step
		return a.pending, a.listing, nil
	})
	if err != nil || unsettled != nil {
		t.Fatalf("err %v, unsettled %v", err, unsettled)
	}
	if asks != 3 {
		t.Errorf("%d asks, want 3", asks)
	}
}

// Without notifications it still asks again (a notification may have come
// before it waited), and after the timeout it reports what is missing.
func TestSettleFinderGivesUpAtTheTimeout(t *testing.T) {
	asks := 0
	unsettled, err := Settle(context.Background(), SettleOptions{Timeout: 300 * time.Millisecond}, func(context.Context) (int, bool, error) {
		asks++
		return 7, true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if asks < 2 {
		t.Errorf("asked %d times in 300 ms without notifications", asks)
	}
	if protocol.CodeOf(unsettled) != protocol.CodeTimeout || !strings.Contains(unsettled.Error(), "7 documents not read yet") ||
		!strings.Contains(unsettled.Error(), "still listing") {
		t.Errorf("unsettled = %v", unsettled)
	}
}

func TestSettleFinderErrors(t *testing.T) {
	boom := protocol.NewError(protocol.CodeNotFound, "computer gone")
	_, err := Settle(context.Background(), SettleOptions{Timeout: time.Minute}, func(context.Context) (int, bool, error) { return 0, false, boom })
	if !errors.Is(err, boom) {
		t.Errorf("first ask's error: %v", err)
	}
	// A later ask that fails for another reason than the deadline is an
	// error too, not a provisional answer.
	asks := 0
	_, err = Settle(context.Background(), SettleOptions{Timeout: time.Minute}, func(context.Context) (int, bool, error) {
		if asks++; asks == 1 {
			return 1, false, nil
		}
		return 0, false, boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("second ask's error: %v", err)
	}
	// A re-ask cut by the deadline leaves the answer before it.
	asks = 0
	unsettled, err := Settle(context.Background(), SettleOptions{Timeout: 200 * time.Millisecond}, func(ctx context.Context) (int, bool, error) {
		if asks++; asks == 1 {
			return 4, false, nil
		}
		<-ctx.Done()
		return 0, false, ctx.Err()
	})
	if err != nil || protocol.CodeOf(unsettled) != protocol.CodeTimeout {
		t.Errorf("deadline during a re-ask: err %v, unsettled %v", err, unsettled)
	}
}

// catalogAnswers answers client:get_finder with its JSON answers in turn.
type catalogAnswers struct {
	fakeFinder
	raw []string
	n   int
}

func (c *catalogAnswers) GetFinderJSON(context.Context, string, protocol.FinderQuery) (json.RawMessage, error) {
	r := c.raw[min(c.n, len(c.raw)-1)]
	c.n++
	return json.RawMessage(r), nil
}

// CatalogJSON returns the settled answer as received; one that does not
// decode is returned as it came, not asked again; after the timeout the
// unsettled error ends with the caller's advice.
func TestCatalogJSON(t *testing.T) {
	c := &catalogAnswers{raw: []string{`{"documents":[],"pending":2,"req_id":"a"}`, `{"documents":[] ,"total_count":0,"req_id":"b","x":1}`}}
	raw, unsettled, err := CatalogJSON(context.Background(), c, "pc", protocol.FinderQuery{}, SettleOptions{Timeout: time.Minute})
	if err != nil || unsettled != nil || string(raw) != c.raw[1] || c.n != 2 {
		t.Errorf("raw %s, unsettled %v, err %v, %d asks", raw, unsettled, err, c.n)
	}
	c = &catalogAnswers{raw: []string{`not json`}}
	raw, unsettled, err = CatalogJSON(context.Background(), c, "pc", protocol.FinderQuery{}, SettleOptions{Timeout: time.Minute})
	if err != nil || unsettled != nil || string(raw) != "not json" || c.n != 1 {
		t.Errorf("raw %s, unsettled %v, err %v, %d asks", raw, unsettled, err, c.n)
	}
	c = &catalogAnswers{raw: []string{`{"documents":[],"listing":true}`}}
	_, unsettled, err = CatalogJSON(context.Background(), c, "pc", protocol.FinderQuery{}, SettleOptions{Timeout: 200 * time.Millisecond, Advice: "raise --timeout to wait longer"})
	if err != nil || !strings.HasSuffix(unsettled.Error(), "the answer above is provisional; raise --timeout to wait longer") {
		t.Errorf("unsettled %v, err %v", unsettled, err)
	}
}
