package rpcerr

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// newServer is an mcp-go server with one resource template, test://doc/{n},
// whose handler fails as n says: "coded" with an *Error, "protocol" with a
// *protocol.Error carrying details, "plain" with an error without a code.
// With a ledger, its hook is installed.
func newServer(l *Ledger) *server.MCPServer {
	hooks := &server.Hooks{}
	if l != nil {
		hooks.AddOnError(l.Hook)
	}
	s := server.NewMCPServer("rpcerr-test", "1", server.WithResourceCapabilities(false, false), server.WithHooks(hooks))
	s.AddResourceTemplate(mcp.NewResourceTemplate("test://doc/{n}", "doc"),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			switch strings.TrimPrefix(req.Params.URI, "test://doc/") {
			case "coded":
				return nil, &Error{Code: 4202, Message: "page 9 is out of range", Data: map[string]any{"page_index": 9, "page_count": 2}}
			case "protocol":
				return nil, fmt.Errorf("read: %w", protocol.NewError(4201, "document x not found").WithDetails(map[string]any{"doc_ref": "x"}))
			case "plain":
				return nil, errors.New("disk on fire")
			}
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "ok"}}, nil
		})
	return s
}

// stdioSession serves srv over pipes (through the ledger's writer when l is
// set) and returns a function that sends one raw JSON-RPC request line and
// returns the raw response to it.
func stdioSession(t *testing.T, srv *server.MCPServer, l *Ledger) func(id int, method string, params any) map[string]json.RawMessage {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	var out io.Writer = outW
	if l != nil {
		out = l.StdioWriter(outW)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = server.NewStdioServer(srv).Listen(ctx, inR, out)
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
		<-done
	})
	lines := bufio.NewScanner(outR)
	var mu sync.Mutex
	send := func(id int, method string, params any) map[string]json.RawMessage {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := inW.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
		for lines.Scan() {
			var msg map[string]json.RawMessage
			if err := json.Unmarshal(lines.Bytes(), &msg); err != nil {
				t.Fatalf("server wrote %q: %v", lines.Text(), err)
			}
			if string(msg["id"]) == fmt.Sprint(id) {
				return msg
			}
		}
		t.Fatalf("no answer to %s: %v", method, lines.Err())
		return nil
	}
	send(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "t", "version": "1"}})
	if _, err := inW.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	return send
}

func errorOf(t *testing.T, msg map[string]json.RawMessage) mcp.JSONRPCErrorDetails {
	t.Helper()
	var e mcp.JSONRPCErrorDetails
	if msg["error"] == nil || json.Unmarshal(msg["error"], &e) != nil {
		t.Fatalf("not an error answer: %v", msg)
	}
	return e
}

// What this package works around: an mcp-go server answers every handler
// error with -32603 and no data. If this test fails, mcp-go now keeps the
// code; the server half of this package can go.
func TestMCPGoServerDropsHandlerCodes(t *testing.T) {
	send := stdioSession(t, newServer(nil), nil)
	e := errorOf(t, send(2, "resources/read", map[string]any{"uri": "test://doc/coded"}))
	if e.Code != mcp.INTERNAL_ERROR || e.Data != nil {
		t.Fatalf("mcp-go answered %+v; it keeps handler codes now", e)
	}
}

// Server direction: a handler's *Error or *protocol.Error reaches the wire
// with its code, message and data, over stdio and in process; an error
// without a code stays mcp-go's -32603.
func TestServerAnswersHandlerCodes(t *testing.T) {
	want := map[string]struct {
		code int
		msg  string
		data string
	}{
		"coded":    {4202, "page 9 is out of range", `{"page_count":2,"page_index":9}`},
		"protocol": {4201, "document x not found", `{"doc_ref":"x"}`},
		"plain":    {mcp.INTERNAL_ERROR, "", "null"},
	}
	check := func(t *testing.T, how, n string, e mcp.JSONRPCErrorDetails) {
		t.Helper()
		w := want[n]
		data, _ := json.Marshal(e.Data)
		if e.Code != w.code || (w.msg != "" && e.Message != w.msg) || string(data) != w.data {
			t.Errorf("%s %s: error %d %q data %s, want %d %q %s", how, n, e.Code, e.Message, data, w.code, w.msg, w.data)
		}
	}

	t.Run("stdio", func(t *testing.T) {
		l := NewLedger()
		send := stdioSession(t, newServer(l), l)
		for i, n := range []string{"coded", "protocol", "plain"} {
			check(t, "stdio", n, errorOf(t, send(10+i, "resources/read", map[string]any{"uri": "test://doc/" + n})))
		}
		// A success is passed through untouched.
		if msg := send(20, "resources/read", map[string]any{"uri": "test://doc/fine"}); msg["result"] == nil {
			t.Errorf("success answer = %v", msg)
		}
		if n := l.Pending(); n != 0 {
			t.Errorf("%d recorded errors left behind", n)
		}
	})

	t.Run("in process", func(t *testing.T) {
		l := NewLedger()
		srv := newServer(l)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// Two transports to the same server: each gets its own answers.
		a, b := l.InProcess(srv), l.InProcess(srv)
		for _, tr := range []transport.Interface{a, b} {
			if err := tr.Start(ctx); err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
		}
		for i, n := range []string{"coded", "protocol", "plain"} {
			for _, tr := range []transport.Interface{a, b} {
				resp, err := tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(i)),
					Method: "resources/read", Params: map[string]any{"uri": "test://doc/" + n}})
				if err != nil || resp.Error == nil {
					t.Fatalf("%s: %v %+v", n, err, resp)
				}
				check(t, "in process", n, *resp.Error)
			}
		}
		if n := l.Pending(); n != 0 {
			t.Errorf("%d recorded errors left behind", n)
		}
	})
}

func TestStdioWriterSplitAndJoinedLines(t *testing.T) {
	l := NewLedger()
	k := ledgerKey(stdioSessionID, mcp.NewRequestId(float64(7)))
	l.m[k] = &Error{Code: 4202, Message: "page 9 is out of range", Data: map[string]any{"page_index": 9}}
	l.order = append(l.order, k)
	var out strings.Builder
	w := l.StdioWriter(&out)
	errLine := `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"x"}}`
	other := `{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"no such method"}}`
	ok := `{"jsonrpc":"2.0","id":9,"result":{}}`
	for _, chunk := range []string{errLine[:10], errLine[10:] + "\n" + other + "\n", ok + "\n"} {
		if _, err := w.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("lines = %q", lines)
	}
	if lines[0] != `{"jsonrpc":"2.0","id":7,"error":{"code":4202,"message":"page 9 is out of range","data":{"page_index":9}}}` {
		t.Errorf("rewritten = %s", lines[0])
	}
	if lines[1] != other || lines[2] != ok {
		t.Errorf("untouched lines changed: %q", lines[1:])
	}
	if l.Pending() != 0 {
		t.Error("the recorded error was not consumed")
	}
}

func TestLedgerHookAndBound(t *testing.T) {
	l := NewLedger()
	ctx := context.Background()
	l.Hook(ctx, float64(1), "resources/read", nil, errors.New("plain errors are not recorded"))
	l.Hook(ctx, nil, "resources/read", nil, protocol.NewError(4201, "notifications have no id"))
	if l.Pending() != 0 {
		t.Fatalf("recorded %d", l.Pending())
	}
	for i := 0; i < ledgerMax+10; i++ {
		l.Hook(ctx, float64(i), "resources/read", nil, protocol.NewError(4201, "x"))
	}
	if l.Pending() != ledgerMax || len(l.order) != ledgerMax {
		t.Errorf("ledger holds %d/%d, bound %d", l.Pending(), len(l.order), ledgerMax)
	}
	if _, ok := l.take("", mcp.NewRequestId(float64(0))); ok {
		t.Error("the oldest entry should have been evicted")
	}
	if re, ok := l.take("", mcp.NewRequestId(float64(ledgerMax+9))); !ok || re.Code != 4201 {
		t.Error("newest entry missing")
	}
}

// rawServer is a hand-written stdio MCP server: it answers initialize and
// fails every resources/read with error 4201 and data, as a document
// server does. It returns the client's ends of the pipes.
func rawServer(t *testing.T) (io.Reader, io.WriteCloser) {
	t.Helper()
	inR, inW := io.Pipe()   // client -> server
	outR, outW := io.Pipe() // server -> client
	go func() {
		defer outW.Close()
		sc := bufio.NewScanner(inR)
		for sc.Scan() {
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(sc.Bytes(), &req) != nil || req.ID == nil {
				continue
			}
			var answer string
			switch req.Method {
			case "initialize":
				answer = `"result":{"protocolVersion":"2025-06-18","capabilities":{"resources":{}},"serverInfo":{"name":"raw","version":"1"}}`
			case "resources/read":
				answer = `"error":{"code":4201,"message":"document x not found","data":{"doc_ref":"x"}}`
			default:
				answer = `"error":{"code":-32601,"message":"no such method"}`
			}
			if _, err := fmt.Fprintf(outW, `{"jsonrpc":"2.0","id":%s,%s}`+"\n", req.ID, answer); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return outR, inW
}

func startClient(t *testing.T, tr transport.Interface) *client.Client {
	t.Helper()
	c := client.NewClient(tr)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "t", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	return c
}

func read(c *client.Client, ctx context.Context, uri string) error {
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	_, err := c.ReadResource(ctx, req)
	return err
}

// What this package works around on the client side: mcp-go turns an
// error answer with an application code into an error holding only the
// message. If this test fails, mcp-go now keeps the code.
func TestMCPGoClientDropsApplicationCodes(t *testing.T) {
	r, w := rawServer(t)
	c := startClient(t, transport.NewIO(r, w, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := read(c, ctx, "dpe://h/x")
	if err == nil {
		t.Fatal("read succeeded")
	}
	if strings.Contains(err.Error(), "4201") || strings.Contains(err.Error(), "doc_ref") {
		t.Fatalf("mcp-go kept the code or data: %v", err)
	}
}

// Client direction: the code, message and data of an error answer reach
// the caller that captured them; other calls capture nothing.
func TestClientCapturesErrorAnswers(t *testing.T) {
	r, w := rawServer(t)
	c := startClient(t, WrapTransport(transport.NewIO(r, w, nil)))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	cctx, answered := Capture(ctx)
	if err := read(c, cctx, "dpe://h/x"); err == nil {
		t.Fatal("read succeeded")
	}
	e := answered()
	if e == nil {
		t.Fatal("no error captured")
	}
	data, _ := json.Marshal(e.Data)
	if e.Code != 4201 || e.Message != "document x not found" || string(data) != `{"doc_ref":"x"}` {
		t.Errorf("captured %+v data %s", e, data)
	}
	// A request made without Capture is unaffected, and a context that
	// captured nothing gives nil.
	if err := read(c, ctx, "dpe://h/y"); err == nil {
		t.Fatal("read succeeded")
	}
	if _, none := Capture(ctx); none() != nil {
		t.Error("a fresh capture is not empty")
	}
}

// Both halves together, as the Computer meets our document server: a coded
// handler error travels mcp-go server -> stdio -> mcp-go client whole.
func TestRoundTripOverStdio(t *testing.T) {
	l := NewLedger()
	srv := newServer(l)
	c2s, c2sW := io.Pipe()
	s2cR, s2c := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = server.NewStdioServer(srv).Listen(ctx, c2s, l.StdioWriter(s2c))
	}()
	t.Cleanup(func() { cancel(); c2sW.Close(); s2cR.Close(); <-done })
	c := startClient(t, WrapTransport(transport.NewIO(s2cR, c2sW, nil)))

	rctx, rcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer rcancel()
	cctx, answered := Capture(rctx)
	if err := read(c, cctx, "test://doc/protocol"); err == nil {
		t.Fatal("read succeeded")
	}
	if e := answered(); e == nil || e.Code != 4201 || fmt.Sprint(e.Data) != "map[doc_ref:x]" {
		t.Errorf("captured %+v", e)
	}
}

func TestFrom(t *testing.T) {
	if _, ok := From(errors.New("x")); ok {
		t.Error("a plain error has a code")
	}
	re, ok := From(fmt.Errorf("wrapped: %w", &Error{Code: 4203, Message: "m"}))
	if !ok || re.Code != 4203 {
		t.Errorf("From(*Error) = %+v, %v", re, ok)
	}
	re, ok = From(protocol.NewError(4204, "bad uri"))
	if !ok || re.Code != 4204 || re.Message != "bad uri" || re.Data != nil {
		t.Errorf("From(*protocol.Error) = %+v, %v", re, ok)
	}
}
