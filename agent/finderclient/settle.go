package finderclient

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// Finder is what the helpers of this package ask of an agent;
// *agent.Client has it.
type Finder interface {
	GetFinder(ctx context.Context, computer string, q protocol.FinderQuery) (*protocol.GetFinderRet, error)
	GetFinderJSON(ctx context.Context, computer string, q protocol.FinderQuery) (json.RawMessage, error)
	SearchFinderJSON(ctx context.Context, computer string, q protocol.SearchQuery) (json.RawMessage, error)
}

// SettlePoll is the longest time Settle waits for a notification before
// it asks again.
const SettlePoll = time.Second

// Updates wakes a waiting Settle on each notify:update_finder: pass
// Notify as agent.Handlers.UpdateFinder and C to Settle. A wake-up is
// dropped while one is waiting already. The zero value is not usable:
// use NewUpdates.
type Updates struct{ ch chan struct{} }

// NewUpdates returns an Updates with room for one waiting wake-up.
func NewUpdates() *Updates { return &Updates{ch: make(chan struct{}, 1)} }

// Notify records a change notification (any computer's).
func (u *Updates) Notify(protocol.UpdateComputerConfigReq) {
	select {
	case u.ch <- struct{}{}:
	default:
	}
}

// C is the channel Settle waits on.
func (u *Updates) C() <-chan struct{} { return u.ch }

// SettleOptions bound Settle.
type SettleOptions struct {
	// Timeout is how long to wait for a settled answer (required).
	Timeout time.Duration
	// Updates, when not nil, wakes the wait on a change notification.
	Updates <-chan struct{}
	// Advice ends the message of the unsettled error: what the user can
	// do to wait longer (e.g. "raise --timeout to wait longer").
	Advice string
}

// Settle asks until the answer is settled: nothing it depends on is
// pending and the computer has finished listing (GetFinderRet.Pending and
// Listing, absent from a computer that answers only when settled). It asks
// again on each value of o.Updates, and at least every SettlePoll (a
// notification can come between an answer and the next wait). After
// o.Timeout it stops and returns the last answer's state as unsettled (a
// 408 with details {pending, listing}); err is the error of an ask (except
// a re-ask that the deadline cut: the answer before it is then returned as
// unsettled).
func Settle(ctx context.Context, o SettleOptions, ask func(context.Context) (pending int, listing bool, err error)) (unsettled, err error) {
	deadline := time.Now().Add(o.Timeout)
	poll := SettlePoll / 8
	asked := false
	var pending int
	var listing bool
	for {
		actx, cancel := context.WithDeadline(ctx, deadline)
		p, l, err := ask(actx)
		cancel()
		switch {
		case err != nil && asked && !time.Now().Before(deadline):
			return unsettledError(o, pending, listing), nil // the deadline cut the re-ask
		case err != nil:
			return nil, err
		}
		asked, pending, listing = true, p, l
		if pending == 0 && !listing {
			return nil, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return unsettledError(o, pending, listing), nil
		}
		t := time.NewTimer(min(poll, left))
		select {
		case <-o.Updates:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
		t.Stop()
		poll = min(2*poll, SettlePoll)
	}
}

// unsettledError says what a catalog still lacked when the timeout passed.
func unsettledError(o SettleOptions, pending int, listing bool) error {
	var what []string
	if pending > 0 {
		what = append(what, fmt.Sprintf("%d documents not read yet", pending))
	}
	if listing {
		what = append(what, "the computer is still listing its documents")
	}
	return protocol.Errorf(protocol.CodeTimeout, "the catalog is not settled after %v (%s): the answer above is provisional%s",
		o.Timeout, strings.Join(what, ", "), advice(o.Advice)).WithDetails(map[string]any{"pending": pending, "listing": listing})
}

// advice is "; "+a, or "" when a is empty.
func advice(a string) string {
	if a == "" {
		return ""
	}
	return "; " + a
}

// Catalog returns one page of computer's catalog once it is settled (see
// Settle); unsettled says why the last answer is not.
func Catalog(ctx context.Context, f Finder, computer string, q protocol.FinderQuery, o SettleOptions) (ret *protocol.GetFinderRet, unsettled, err error) {
	unsettled, err = Settle(ctx, o, func(ctx context.Context) (int, bool, error) {
		r, err := f.GetFinder(ctx, computer, q)
		if err != nil {
			return 0, false, fmt.Errorf("get_finder %s: %w", computer, err)
		}
		ret = r
		return r.Pending, r.Listing, nil
	})
	return ret, unsettled, err
}

// CatalogJSON is Catalog returning the GetFinderRet as the computer sent
// it. An answer that does not decode is not an error here: it is returned
// as it came, for the caller to show, and what decodes of its pending and
// listing (nothing: settled) decides whether to ask again.
func CatalogJSON(ctx context.Context, f Finder, computer string, q protocol.FinderQuery, o SettleOptions) (raw json.RawMessage, unsettled, err error) {
	unsettled, err = Settle(ctx, o, func(ctx context.Context) (int, bool, error) {
		r, err := f.GetFinderJSON(ctx, computer, q)
		if err != nil {
			return 0, false, fmt.Errorf("get_finder %s: %w", computer, err)
		}
		raw = r
		var st struct {
			Pending int  `json:"pending"`
			Listing bool `json:"listing"`
		}
		_ = json.Unmarshal(r, &st) // deliberate: shown as it came (see above)
		return st.Pending, st.Listing, nil
	})
	return raw, unsettled, err
}
