package computer

import (
	"sync"
	"time"
)

// ToolCallRecord is one entry of the tool-call history that orders
// servers in the Finder and Desktop organizers (most recent first).
type ToolCallRecord struct {
	Timestamp time.Time     `json:"timestamp"`
	ReqID     string        `json:"req_id"`
	Server    string        `json:"server"`
	Tool      string        `json:"tool"`
	Success   bool          `json:"success"`
	Duration  time.Duration `json:"duration"`
	Outcome   string        `json:"outcome,omitempty"` // "", "error", "timeout", "cancelled" or "unauthorized"
}

// history is a bounded ring of tool-call records.
type history struct {
	mu   sync.Mutex
	max  int
	recs []ToolCallRecord
}

func newHistory(max int) *history { return &history{max: max} }

func (h *history) add(r ToolCallRecord) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recs = append(h.recs, r)
	if over := len(h.recs) - h.max; over > 0 {
		h.recs = append(h.recs[:0], h.recs[over:]...)
	}
}

func (h *history) records() []ToolCallRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]ToolCallRecord(nil), h.recs...)
}

// servers returns the server of each record, oldest first, as the
// organizers take it.
func (h *history) servers() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, len(h.recs))
	for i, r := range h.recs {
		out[i] = r.Server
	}
	return out
}
