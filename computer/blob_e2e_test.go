package computer_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/computer"
	"github.com/smcp-browse/smcp-browse/computer/config"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// waitTool waits until the computer lists tool.
func waitTool(t *testing.T, r *rig, tool string) {
	t.Helper()
	if !testutil.WaitUntil(30*time.Second, func() bool {
		tools, err := r.agent.GetTools(context.Background(), "pc")
		return err == nil && slices.ContainsFunc(tools.Tools, func(tl protocol.SMCPTool) bool { return tl.Name == tool })
	}) {
		t.Fatalf("tool %s never listed", tool)
	}
}

func hexSum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// A large image from a real stdio MCP server (the test binary as the
// hostile server: 2 MB, eight chunks, past the inline budget) comes back from our
// Computer through our Server with its data emptied and a handle; our
// Agent reads it by handle to eof, with the right bytes and sha256. Then
// the Agent uploads a file with put_blob and finds it, whole, under the
// landing root.
func TestBlobsEndToEnd(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	img := config.NewStdio("img", self)
	img.Params.Env = map[string]string{hostileEnv: "host=img.host"}
	landing := filepath.Join(t.TempDir(), "landing")
	r := startRig(t, []config.Server{img}, computer.Options{Uploads: computer.UploadOptions{LandingRoot: landing}})
	waitTool(t, r, "img__image")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	const size = 2 << 20
	want := imageBytes(size)
	res, err := r.agent.CallTool(ctx, "pc", "img__image", map[string]any{"bytes": size}, 90*time.Second)
	if err != nil || res.IsError || len(res.Content) != 2 {
		t.Fatalf("image call: %v %+v", err, res)
	}
	item := res.Content[1]
	handle, _ := item.Meta[protocol.MetaBlobHandle].(string)
	if item.Data != "" || handle == "" || item.Meta[protocol.MetaTotalSize] != float64(size) || item.Meta[protocol.MetaSHA256] != hexSum(want) {
		t.Fatalf("image item: %d bytes inline, meta %v", len(item.Data), item.Meta)
	}
	got, info, err := r.agent.GetBlob(ctx, "pc", handle, 0)
	if err != nil || !bytes.Equal(got, want) || info.SHA256 != hexSum(want) || info.MIMEType != "image/png" {
		t.Fatalf("get_blob: %d bytes, %+v, %v", len(got), info, err)
	}
	// The helper the CLI and TUI use puts the bytes back in the result.
	if err := r.agent.ResolveBlobs(ctx, "pc", res, 0); err != nil || res.Content[1].Data != base64.StdEncoding.EncodeToString(want) {
		t.Fatalf("ResolveBlobs: %v", err)
	}
	// A small image stays inline.
	res, err = r.agent.CallTool(ctx, "pc", "img__image", map[string]any{"bytes": 1000}, 30*time.Second)
	if err != nil || res.Content[1].Data != base64.StdEncoding.EncodeToString(imageBytes(1000)) || res.Content[1].Meta != nil {
		t.Fatalf("small image: %v %+v", err, res)
	}
	if _, err := r.agent.GetBlobChunk(ctx, "pc", handle, size+1, 0); codeOf(err) != protocol.CodeBlobNotAccessible {
		t.Errorf("get_blob past the end: %v", err)
	}

	up := imageBytes(1<<20 + 777)
	ret, err := r.agent.PutBlob(ctx, "pc", bytes.NewReader(up), int64(len(up)), hexSum(up), "../shot.png")
	if err != nil {
		t.Fatalf("put_blob: %v", err)
	}
	if filepath.Dir(ret.LandingPath) != landing || ret.SHA256 != hexSum(up) {
		t.Errorf("put_blob answer %+v", ret)
	}
	if b, err := os.ReadFile(ret.LandingPath); err != nil || !bytes.Equal(b, up) {
		t.Errorf("landed file: %v", err)
	}
	// A wrong declaration is 4019 integrity, and nothing is left.
	if _, err := r.agent.PutBlob(ctx, "pc", bytes.NewReader(up), int64(len(up)), hexSum(up[1:]), "bad"); codeOf(err) != protocol.CodeBlobWriteFailed {
		t.Errorf("put_blob with a wrong sha256: %v", err)
	}
	if entries, _ := os.ReadDir(landing); len(entries) != 2 { // the good file and .a2c-upload
		t.Errorf("landing root holds %d entries", len(entries))
	}
}

// server-everything's get-tiny-image, with the inline budget lowered under
// its size, comes by handle too: the Agent's bytes are the ones the same
// tool answers inline with the default budget.
func TestBlobsServerEverything(t *testing.T) {
	t.Parallel()
	nm := testutil.NodeModules(t)
	everything := config.NewStdio("everything", filepath.Join(nm, ".bin", "mcp-server-everything"), "stdio")
	r := startRig(t, []config.Server{everything}, computer.Options{Blobs: computer.BlobOptions{InlineBudget: 64}})
	waitTool(t, r, "everything__get-tiny-image")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := r.agent.CallTool(ctx, "pc", "everything__get-tiny-image", map[string]any{}, 30*time.Second)
	if err != nil || res.IsError {
		t.Fatalf("get-tiny-image: %v %+v", err, res)
	}
	handles := 0
	for _, it := range res.Content {
		h, _ := it.Meta[protocol.MetaBlobHandle].(string)
		if it.Type != "image" || h == "" {
			continue
		}
		handles++
		b, info, err := r.agent.GetBlob(ctx, "pc", h, 0)
		if err != nil || info.SHA256 != it.Meta[protocol.MetaSHA256] || int64(len(b)) != info.TotalSize || info.MIMEType != it.MIMEType {
			t.Errorf("get_blob: %d bytes %+v %v", len(b), info, err)
		}
		if !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("blob is not the PNG: %q", b[:min(8, len(b))])
		}
	}
	if handles != 1 {
		t.Errorf("%d image items by handle, want 1: %+v", handles, res.Content)
	}
}
