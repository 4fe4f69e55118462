package wire

import (
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/zishang520/socket.io/parsers/socket/v3/parser"
)

// benchAck is the ACK of a page read as it crosses the Server: one
// argument, the ReadResourceResult.
func benchAck(textBytes int) string {
	text := strings.Repeat("Lorem ipsum dolor sit amet, consectetur. ", textBytes/40+1)[:textBytes]
	body := `{"contents":[{"uri":"dpe://h/d/pages/1","mimeType":"text/markdown","text":` + strconv.Quote(text) + `}]}`
	return "3/smcp,17[" + body + "]"
}

// BenchmarkRelayAck decodes an ACK and encodes it again for the next hop,
// what the Server does with every answer: with this package's parser and
// with the library's, for a small answer and a 1 MB page.
func BenchmarkRelayAck(b *testing.B) {
	for _, size := range []int{1 << 10, 1 << 20} {
		pkt := benchAck(size)
		for _, p := range []struct {
			name string
			p    parser.Parser
		}{{"raw", rawParser{log: slog.New(slog.DiscardHandler)}}, {"library", parser.NewParser()}} {
			b.Run(p.name+"/"+strconv.Itoa(size), func(b *testing.B) {
				dec, enc := p.p.NewDecoder(), p.p.NewEncoder()
				var got *parser.Packet
				_ = dec.On("decoded", func(args ...any) { got = args[0].(*parser.Packet) })
				b.SetBytes(int64(len(pkt)))
				b.ReportAllocs()
				for b.Loop() {
					if err := dec.Add(pkt); err != nil || got == nil {
						b.Fatal(err)
					}
					out := enc.Encode(got)
					if len(out) != 1 {
						b.Fatal("not one buffer")
					}
					got = nil
				}
			})
		}
	}
}

// TestRawAckRoundTrip: what the raw parser relays is the packet it got.
func TestRawAckRoundTrip(t *testing.T) {
	pkt := benchAck(1000)
	p := rawParser{log: slog.New(slog.DiscardHandler)}
	dec := p.NewDecoder()
	var got *parser.Packet
	_ = dec.On("decoded", func(args ...any) { got = args[0].(*parser.Packet) })
	_ = dec.Add(pkt)
	if got == nil {
		t.Fatal("not decoded")
	}
	if _, ok := got.Data.([]any)[0].(json.RawMessage); !ok {
		t.Fatalf("argument %T, want json.RawMessage", got.Data.([]any)[0])
	}
	out := p.NewEncoder().Encode(got)
	if s := out[0].String(); s != pkt {
		t.Fatalf("relayed %.80q…, want %.80q…", s, pkt)
	}
}
