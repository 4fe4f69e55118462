package ratelog

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestWarnHoldsBackAndCounts(t *testing.T) {
	var buf bytes.Buffer
	l := &Logger{Log: slog.New(slog.NewTextHandler(&buf, nil)), Every: time.Hour}
	for range 5 {
		l.Warn("redis down", "err", "refused")
	}
	if n := strings.Count(buf.String(), "redis down"); n != 1 {
		t.Fatalf("logged %d lines within one interval, want 1:\n%s", n, buf.String())
	}
	l.mu.Lock()
	l.last = time.Now().Add(-2 * time.Hour) // the interval has passed
	l.mu.Unlock()
	l.Warn("redis down", "err", "refused")
	if !strings.Contains(buf.String(), "similar_not_logged=4") {
		t.Fatalf("second line does not count the 4 held back:\n%s", buf.String())
	}
}

func TestFlushCountsWhatWasHeldBack(t *testing.T) {
	var buf bytes.Buffer
	l := &Logger{Log: slog.New(slog.NewTextHandler(&buf, nil)), Every: time.Hour}
	l.Flush("summary") // nothing held back: nothing said
	for range 4 {
		l.Warn("read failed")
	}
	l.Flush("reads failed")
	out := buf.String()
	if strings.Count(out, "read failed") != 1 || !strings.Contains(out, `msg="reads failed" count=3`) {
		t.Fatalf("want one warning and a summary of the 3 held back:\n%s", out)
	}
	buf.Reset()
	l.Warn("read failed") // after a flush the next one is logged
	if !strings.Contains(buf.String(), "read failed") {
		t.Fatalf("the first warning after a flush was held back")
	}
}
