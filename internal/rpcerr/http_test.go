package rpcerr

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/server"
)

// A coded handler error travels over Streamable HTTP whole, as over
// stdio; without HTTP's wrapping it is a -32603 with the message alone.
func TestRoundTripOverHTTP(t *testing.T) {
	for _, wrapped := range []bool{true, false} {
		t.Run(fmt.Sprint("wrapped=", wrapped), func(t *testing.T) {
			l := NewLedger()
			var h = server.NewStreamableHTTPServer(newServer(l), server.WithEndpointPath("/mcp"))
			srv := httptest.NewServer(h)
			if wrapped {
				srv.Config.Handler = l.HTTP(h)
			}
			t.Cleanup(srv.Close)
			tr, err := transport.NewStreamableHTTP(srv.URL + "/mcp")
			if err != nil {
				t.Fatal(err)
			}
			c := startClient(t, WrapTransport(tr))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cctx, answered := Capture(ctx)
			if err := read(c, cctx, "test://doc/protocol"); err == nil {
				t.Fatal("read succeeded")
			}
			e := answered()
			switch {
			case e == nil:
				t.Fatal("no error answer captured")
			case wrapped && (e.Code != 4201 || fmt.Sprint(e.Data) != "map[doc_ref:x]"):
				t.Errorf("captured %+v, want 4201 with its data", e)
			case !wrapped && e.Code != -32603:
				t.Errorf("unwrapped: captured %+v; mcp-go now keeps the code (drop HTTP?)", e)
			}
			if err := read(c, ctx, "test://doc/fine"); err != nil {
				t.Errorf("a read that succeeds: %v", err)
			}
		})
	}
}
