package tui

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/computer"
	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
	"github.com/smcp-browse/smcp-browse/server"
	"github.com/smcp-browse/smcp-browse/server/servertest"
)

// The whole stack: our Server, our Computer running the npm
// server-everything over stdio with its inline budget lowered under the
// tiny image's size, and the browser on a real agent session. M lists the
// tools, enter and ctrl+s call get-tiny-image, the result shows the image
// by blob handle with its type and size, and s reads it (client:get_blob)
// and saves the PNG whole, its sha256 the one the Computer declared.
func TestToolsEndToEndSavesABlobByHandle(t *testing.T) {
	nm := testutil.NodeModules(t)
	const office, tool = "office-tools", "everything__get-tiny-image"
	srv := servertest.Start(t, server.Options{})
	everything := config.NewStdio("everything", filepath.Join(nm, ".bin", "mcp-server-everything"), "stdio")
	comp, err := computer.New(config.Config{Servers: []config.Server{everything}}, computer.Options{
		Name: "pc", Office: office, ServerURL: srv.URL, Logger: servertest.LogFor(t),
		MinBackoff: 100 * time.Millisecond, Blobs: computer.BlobOptions{InlineBudget: 64},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- comp.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Error("the computer did not stop")
		}
	})
	actx, acancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer acancel()
	ag, err := agent.Connect(actx, srv.URL, agent.Options{Name: "browser", Logger: servertest.LogFor(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ag.Close() })
	if err := ag.JoinOffice(actx, office); err != nil {
		t.Fatal(err)
	}
	var tools []protocol.SMCPTool
	if !testutil.WaitUntil(30*time.Second, func() bool {
		ret, err := ag.GetTools(context.Background(), "pc")
		if err == nil {
			tools = ret.Tools
		}
		return slices.ContainsFunc(tools, func(tl protocol.SMCPTool) bool { return tl.Name == tool })
	}) {
		t.Fatalf("%s never listed (%d tools)", tool, len(tools))
	}

	dir := t.TempDir()
	o := testOptions()
	o.Timeout, o.SaveDir = 30*time.Second, dir
	hs := newHarnessOn(t, ag, o, 120, 40)
	hs.press("M")
	hs.requireContains("Tools · pc · ", tool)
	for range slices.IndexFunc(tools, func(tl protocol.SMCPTool) bool { return tl.Name == tool }) {
		hs.press("j")
	}
	hs.press("enter")
	hs.requireContains("Call " + tool + " · on pc")
	hs.press("ctrl+s")
	hs.requireContains("Result of "+tool+" · on pc", "image · image/png · ", " · by blob handle", "s saves it")

	// The image is the first item by handle; select it and save it.
	scr := hs.screen()
	n := strings.Count(scr[:strings.Index(scr, "image · image/png")], " ▣ ") - 1
	for range n {
		hs.press("]")
	}
	hs.press("s")
	var saved string
	for _, l := range strings.Split(hs.screen(), "\n") {
		if i := strings.Index(l, "saved "); i >= 0 {
			saved = strings.Fields(l[i+len("saved "):])[0]
		}
	}
	if filepath.Dir(saved) != dir || filepath.Ext(saved) != ".png" {
		t.Fatalf("saved %q, want a .png in %s:\n%s", saved, dir, hs.screen())
	}
	b, err := os.ReadFile(saved)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Fatalf("the saved file is not the PNG (%v): %q", err, b[:min(len(b), 8)])
	}
	// The same call through the agent: the Computer's declared size and
	// sha256 of the image are those of the bytes saved.
	res, err := ag.CallTool(context.Background(), "pc", tool, nil, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Content {
		if it.Type == "image" {
			sum := sha256.Sum256(b)
			if it.Meta[protocol.MetaSHA256] != hex.EncodeToString(sum[:]) || it.Meta[protocol.MetaTotalSize] != float64(len(b)) {
				t.Errorf("saved %d bytes, sha256 %x; the computer declares %v", len(b), sum, it.Meta)
			}
		}
	}
}
