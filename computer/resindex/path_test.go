package resindex

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// pathSource lists its documents with their relative paths in _meta.path,
// as the document server does.
type pathSource struct {
	*fakeSource
	paths map[string]string
}

func (p pathSource) ListResources(ctx context.Context, cursor string) ([]mcp.Resource, string, error) {
	res, next, err := p.fakeSource.ListResources(ctx, cursor)
	for i := range res {
		if path, ok := p.paths[res[i].URI]; ok {
			res[i].Meta = &mcp.Meta{AdditionalFields: map[string]any{"path": path}}
		}
	}
	return res, next, err
}

// Identical titles (main.go in many folders) are told apart by the path
// the listing gave, carried into each catalog entry.
func TestCatalogEntriesCarryTheListedPath(t *testing.T) {
	ctx := context.Background()
	a := newAgg(t, newChanges())
	f := newFake("h", "cmd-a-main", "cmd-b-main", "nopath")
	src := pathSource{f, map[string]string{f.doc("cmd-a-main"): "cmd/a/main.go", f.doc("cmd-b-main"): "cmd/b/main.go"}}
	a.AddSource(ctx, "docs", src)
	got := map[string]string{}
	for _, d := range a.Documents(ctx) {
		got[d.DocRef] = d.Path
	}
	want := map[string]string{"cmd-a-main": "cmd/a/main.go", "cmd-b-main": "cmd/b/main.go", "nopath": ""}
	for ref, p := range want {
		if got[ref] != p {
			t.Errorf("%s: path %q, want %q (all %v)", ref, got[ref], p, got)
		}
	}
}
