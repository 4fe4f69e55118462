package mcpclient

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/smcp-browse/smcp-browse/computer/config"
)

// sseGuarded runs in through an SSE guard with tiny bounds (100 bytes).
func sseGuarded(t *testing.T, in string, oneByte bool) string {
	t.Helper()
	var src io.Reader = strings.NewReader(in)
	if oneByte {
		src = iotest.OneByteReader(src)
	}
	g := smallGuard(src)
	g.sse = true
	out, err := io.ReadAll(g)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestGuardSSE: on an SSE stream the guard passes events within bounds
// byte for byte, replaces an answer's data line over the bound by an error
// answer to the same id (the event stays whole), and drops a notification
// over the bound, any other line over it, and the lines that would take
// an event over it.
func TestGuardSSE(t *testing.T) {
	long := strings.Repeat("x", 200)
	small := "event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\r\n: a comment\nid: 7\ndata:{\"method\":\"m\"}\n\n"
	tests := []struct {
		name, in, want string
		refusedID      string // the id of the refusal in the output ("" for none)
	}{
		{"events within bounds", small, small, ""},
		{"long answer", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":\"" + long + "\"}\n\n" + small,
			"event: message\ndata: REFUSAL\n\n" + small, "7"},
		{"long notification", "event: message\ndata: {\"method\":\"m\",\"params\":\"" + long + "\"}\n\n" + small,
			"event: message\n\n" + small, ""},
		{"long other line", "event: " + long + "\ndata: {\"id\":2,\"result\":1}\n\n", "data: {\"id\":2,\"result\":1}\n\n", ""},
		{"event over the bound", "data: [\"" + strings.Repeat("y", 60) + "\",\ndata: \"" + strings.Repeat("z", 60) + "\"]\n\n" + small,
			"data: [\"" + strings.Repeat("y", 60) + "\",\n\n" + small, ""},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			got := sseGuarded(t, tt.in, oneByte)
			if tt.refusedID != "" {
				i := strings.Index(got, "data: {\"error\"")
				if i < 0 {
					i = strings.Index(got, "data: {")
				}
				end := strings.IndexByte(got[i:], '\n')
				line := got[i+len("data: ") : i+end]
				if id, reason := refusal(t, line); string(id) != tt.refusedID || reason != reasonTooLarge {
					t.Errorf("%s: refusal of %s (%s), want %s", tt.name, id, reason, tt.refusedID)
				}
				got = got[:i] + "data: REFUSAL" + got[i+end:]
			}
			if got != tt.want {
				t.Errorf("%s (one byte at a time: %v):\n got %q\nwant %q", tt.name, oneByte, got, tt.want)
			}
		}
	}
}

// TestHTTPHugeAnswerRefused: a server over Streamable HTTP (a JSON body)
// or SSE (an event on the stream) answering a read with more than
// MaxMessageBytes: the read fails with ErrTooLarge as soon as the answer
// has gone by, not at the request's timeout, and the connection goes on
// serving. Before, mcp-go read either whole into memory.
func TestHTTPHugeAnswerRefused(t *testing.T) {
	for _, tt := range httpServers {
		t.Run(tt.typ, func(t *testing.T) {
			ts, url := tt.serve(newTestServer())
			t.Cleanup(ts.Close)
			s := config.Server{Key: "web", Name: "web", BundleID: "web", Type: tt.typ, Params: config.Params{URL: url}}
			_, rec := startManager(t, Options{RequestTimeout: 30 * time.Second}, s)
			hugeReadFailsAtOnce(t, rec.up(t))
		})
	}
}

// FuzzGuardSSE: whatever an SSE stream holds, every line the guard hands
// on is a line of the stream within the bound, or an error answer in
// place of a data line.
func FuzzGuardSSE(f *testing.F) {
	for _, s := range []string{
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
		"data: {\"id\":\"x\",\"result\":\"" + strings.Repeat("y", 120) + "\"}\r\n\r\n",
		"data: [1,\ndata: 2]\n\n: c\nid: 3\n", "data:{\"method\":\"m\",\"params\":[[[[[[[]]]]]]]}\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		g := smallGuard(strings.NewReader(string(in)))
		g.sse = true
		out, err := io.ReadAll(g)
		if err != nil {
			t.Fatal(err)
		}
		lines := map[string]bool{}
		for _, l := range strings.Split(string(in), "\n") {
			lines[l] = true
		}
		for _, l := range strings.Split(string(out), "\n") {
			if l == "" || (lines[l] && len(l) <= 100) { // "": an event's end (or the end of the output)
				continue
			}
			if data, ok := strings.CutPrefix(l, "data: "); ok {
				var m struct {
					Error struct {
						Code int            `json:"code"`
						Data map[string]any `json:"data"`
					} `json:"error"`
				}
				if json.Unmarshal([]byte(data), &m) == nil && refused(m.Error.Code, m.Error.Data) != nil {
					continue
				}
			}
			t.Fatalf("line %q is neither a stream line within bounds nor a refusal", l)
		}
	})
}
