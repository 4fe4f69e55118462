package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/smcp-browse/smcp-browse/internal/ratelog"
)

// smallGuard is a guard with tiny bounds, so tests need no 16 MiB lines.
func smallGuard(src io.Reader) *guard {
	return &guard{src: src, log: &ratelog.Logger{Log: slog.New(slog.DiscardHandler)}, maxBytes: 100, maxDepth: 5}
}

func guarded(t testing.TB, in string, oneByte bool) []string {
	t.Helper()
	var src io.Reader = strings.NewReader(in)
	if oneByte {
		src = iotest.OneByteReader(src)
	}
	out, err := io.ReadAll(smallGuard(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}

// refusal decodes a line the guard wrote in place of an answer.
func refusal(t *testing.T, line string) (id json.RawMessage, reason string) {
	t.Helper()
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Code int            `json:"code"`
			Data map[string]any `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("not JSON: %q", line)
	}
	r, _ := m.Error.Data[refusedKey].(string)
	if refused(m.Error.Code, m.Error.Data) == nil {
		t.Fatalf("line %q is not a refusal", line)
	}
	return m.ID, r
}

func TestGuard(t *testing.T) {
	long := strings.Repeat("x", 200)
	deep := strings.Repeat("[", 10) + strings.Repeat("]", 10)
	tests := []struct {
		name   string
		in     string
		pass   []string // lines passed on as they are
		id     string   // the id of the refusal that follows them ("" for none)
		reason string
	}{
		{"small answer", `{"jsonrpc":"2.0","id":1,"result":{}}`, []string{`{"jsonrpc":"2.0","id":1,"result":{}}`}, "", ""},
		{"notification", `{"jsonrpc":"2.0","method":"x"}`, []string{`{"jsonrpc":"2.0","method":"x"}`}, "", ""},
		{"not JSON", `garbage`, []string{`garbage`}, "", ""},
		{"long answer, id first", `{"jsonrpc":"2.0","id":7,"result":{"t":"` + long + `"}}`, nil, "7", reasonTooLarge},
		{"long answer, id last", `{"result":{"t":"` + long + `"},"jsonrpc":"2.0","id":8}`, nil, "8", reasonTooLarge},
		{"long answer, string id", `{"id":"a,}\"b","result":{"t":"` + long + `"}}`, nil, `"a,}\"b"`, reasonTooLarge},
		{"an id inside the result is not the id", `{"result":{"id":99,"t":"` + long + `"},"id":3}`, nil, "3", reasonTooLarge},
		{"quotes and keys inside strings", `{"result":{"t":"\",\"id\":5,` + long + `"},"id":4}`, nil, "4", reasonTooLarge},
		{"long notification is dropped", `{"method":"notifications/message","params":{"t":"` + long + `"}}` + "\n" + `{"id":2,"result":{}}`,
			[]string{`{"id":2,"result":{}}`}, "", ""},
		{"long request is dropped", `{"id":9,"method":"sampling/createMessage","params":{"t":"` + long + `"}}`, nil, "", ""},
		{"long line without an id is dropped", `{"result":"` + long + `"}`, nil, "", ""},
		{"deep answer", `{"id":5,"result":` + deep + `}`, nil, "5", reasonTooDeep},
		{"deep notification is dropped", `{"method":"m","params":` + deep + `}`, nil, "", ""},
		{"as deep as allowed", `{"id":6,"result":[[[[]]]]}`, []string{`{"id":6,"result":[[[[]]]]}`}, "", ""},
		{"object id is no id", `{"id":{"a":1},"result":"` + long + `"}`, nil, "", ""},
		{"last line without newline", `{"id":1,"result":1}` + "\n" + `{"id":2,"result":2}`, []string{`{"id":1,"result":1}`, `{"id":2,"result":2}`}, "", ""},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			got := guarded(t, tt.in, oneByte)
			want := len(tt.pass)
			if tt.id != "" {
				want++
			}
			if len(got) != want {
				t.Errorf("%s (one byte at a time: %v): %d lines %q, want %d", tt.name, oneByte, len(got), got, want)
				continue
			}
			for i, l := range tt.pass {
				if got[i] != l {
					t.Errorf("%s: line %d = %q, want %q", tt.name, i, got[i], l)
				}
			}
			if tt.id != "" {
				id, reason := refusal(t, got[len(got)-1])
				if string(id) != tt.id || reason != tt.reason {
					t.Errorf("%s: refusal of id %s (%s), want %s (%s)", tt.name, id, reason, tt.id, tt.reason)
				}
			}
		}
	}
}

// TestGuardKeepsNoLongLine feeds a 64 MB line through the real bounds:
// the answer is refused without the guard ever holding it whole.
func TestGuardKeepsNoLongLine(t *testing.T) {
	const size = 64 << 20
	body := io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","result":{"text":"`),
		io.LimitReader(repeatReader('a'), size), strings.NewReader(`"},"id":42}`+"\n"))
	g := newGuard(body, slog.New(slog.DiscardHandler), "test")
	out, err := io.ReadAll(g)
	if err != nil {
		t.Fatal(err)
	}
	id, reason := refusal(t, strings.TrimSpace(string(out)))
	if string(id) != "42" || reason != reasonTooLarge {
		t.Errorf("refusal of %s (%s)", id, reason)
	}
	if cap(g.line) > MaxMessageBytes {
		t.Errorf("the guard kept %d bytes of the line", cap(g.line))
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// TestHugeReadFailsAtOnce reads a resource bigger than MaxMessageBytes
// from a real stdio server: the read fails with ErrTooLarge as soon as
// the answer has gone by, not at the request's timeout, and the
// connection goes on serving.
func TestHugeReadFailsAtOnce(t *testing.T) {
	_, rec := startManager(t, Options{RequestTimeout: 30 * time.Second}, selfServer("self"))
	hugeReadFailsAtOnce(t, rec.up(t))
}

// hugeReadFailsAtOnce reads a resource bigger than MaxMessageBytes from c
// (its RequestTimeout far away): the read fails with ErrTooLarge, and c
// then answers a tool call.
func hugeReadFailsAtOnce(t *testing.T, c *Conn) {
	t.Helper()
	start := time.Now()
	_, err := c.Read(context.Background(), "test://huge/1")
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("read of a huge resource: %v, want ErrTooLarge", err)
	}
	t.Logf("refused after %v: %v", time.Since(start), err)
	res, err := c.CallTool(context.Background(), "echo", map[string]any{"message": "still here"})
	if err != nil || res.IsError {
		t.Fatalf("echo after the refusal: %v %+v", err, res)
	}
}

func FuzzGuard(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"id":"x","result":"` + strings.Repeat("y", 120) + `"}`,
		`{"method":"m","params":[[[[[[[]]]]]]]}`, "a\nb\n\n", `{"id":1,"result":"\"\\"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := io.ReadAll(smallGuard(bytes.NewReader(in)))
		if err != nil {
			t.Fatal(err)
		}
		if len(out) == 0 {
			return
		}
		lines := map[string]bool{}
		for _, l := range strings.Split(string(in), "\n") {
			lines[l] = true
		}
		for _, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
			if lines[l] && len(l) <= 100 {
				continue
			}
			var m struct {
				Error struct {
					Code int            `json:"code"`
					Data map[string]any `json:"data"`
				} `json:"error"`
			}
			if json.Unmarshal([]byte(l), &m) != nil || refused(m.Error.Code, m.Error.Data) == nil {
				t.Fatalf("line %q is neither an input line within bounds nor a refusal", l)
			}
		}
	})
}
