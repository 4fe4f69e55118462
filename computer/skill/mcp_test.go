package skill

import (
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// fakeMCP is an MCP server's resources in memory: what StageMCP lists and
// reads.
type fakeMCP struct {
	res   []mcp.Resource
	blobs map[string][]byte
	reads []string // URIs read, in order
}

func (f *fakeMCP) ListResources(ctx context.Context, cursor string) ([]mcp.Resource, string, error) {
	return f.res, "", nil
}

func (f *fakeMCP) Read(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	f.reads = append(f.reads, uri)
	b, ok := f.blobs[uri]
	if !ok {
		return nil, errors.New("no such resource")
	}
	return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
		mcp.BlobResourceContents{URI: uri, Blob: base64.StdEncoding.EncodeToString(b)},
	}}, nil
}

// add lists uri with _meta meta (none when nil) and, when data is not
// nil, serves data for it.
func (f *fakeMCP) add(uri string, meta map[string]any, data []byte) {
	r := mcp.NewResource(uri, filepath.Base(uri))
	if meta != nil {
		r.Meta = &mcp.Meta{AdditionalFields: meta}
	}
	f.res = append(f.res, r)
	if data != nil {
		if f.blobs == nil {
			f.blobs = map[string][]byte{}
		}
		f.blobs[uri] = data
	}
}

// stage runs StageMCP for the server srv in a fresh home.
func stage(t *testing.T, l Lister, o Origin) (string, []protocol.A2CSkillRef, []Problem) {
	t.Helper()
	home := t.TempDir()
	if o.BundleID == "" {
		o.BundleID = "srv"
	}
	refs, problems, err := StageMCP(context.Background(), l, o, home)
	if err != nil {
		t.Fatal(err)
	}
	return home, refs, problems
}

// staged lists what the staging folder of bundle srv holds (nothing when
// it does not exist).
func staged(t *testing.T, home string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(home, "srv"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

var local = Origin{BundleID: "srv", Local: true}

// TestResourcesModeStagesWholeSkillsOnly: a "resources" SKILL is staged
// in a folder named after its front matter; one that fails, even after
// its files were written (no description), leaves nothing behind.
func TestResourcesModeStagesWholeSkillsOnly(t *testing.T) {
	srv := &fakeMCP{}
	srv.add("skill://t.test/res", map[string]any{"source": "resources", "version": "1.0"}, nil)
	srv.add("skill://t.test/res/"+File, nil, []byte(goodSkill))
	srv.add("skill://t.test/res/scripts/fill.py", nil, []byte("print('hi')\n"))
	srv.add("skill://t.test/nodesc", map[string]any{"source": "resources"}, nil)
	srv.add("skill://t.test/nodesc/"+File, nil, []byte("---\nname: no-desc\n---\nbody\n"))
	home, refs, problems := stage(t, srv, local)
	if len(refs) != 1 || len(problems) != 1 || !strings.Contains(problems[0].Error(), "no description") {
		t.Fatalf("refs %+v problems %v", refs, problems)
	}
	r := refs[0]
	if r.Name != "mcp:srv:pdf-tools" || r.Source != "mcp:srv" || r.URI != "skill://t.test/res" || r.Version != "1.0" ||
		r.Path != filepath.Join(home, "srv", "pdf-tools") {
		t.Errorf("ref %+v", r)
	}
	if got := strings.Join(staged(t, home), " "); got != "pdf-tools" {
		t.Errorf("staging folder holds %q, want only pdf-tools", got)
	}
	if res, err := Open(r.Path, "scripts/fill.py", DefaultMaxSize); err != nil || string(res.Data) != "print('hi')\n" {
		t.Errorf("Open(scripts/fill.py) = %+v, %v", res, err)
	}
}
