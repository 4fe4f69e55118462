package finder

import (
	"slices"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// pending is a catalog entry built from a listing: no keywords, no page
// count yet.
func pending(ref, title, path, fileType, modified string) protocol.DPEDocumentSummary {
	d := doc("s", ref, modified)
	d.Title, d.Path, d.FileType, d.PageCount, d.Pending = title, path, fileType, 0, true
	return d
}

// A query never answers wrongly from provisional entries: what their
// listing decides is used, what only their Level 1 read can decide is
// left out and named in Needs, and so are the provisional entries the
// page shows.
func TestOrganizedProvisional(t *testing.T) {
	read := doc("s", "read", "2026-01-05T00:00:00Z")
	read.Title, read.Keywords = "Budget", []string{"revenue"}
	docs := []protocol.DPEDocumentSummary{
		read,
		pending("by-title", "Revenue plan", "plans/a.md", "md", "2026-01-04T00:00:00Z"),
		pending("by-path", "Plan", "revenue/b.md", "md", "2026-01-03T00:00:00Z"),
		pending("unknown", "Minutes", "notes/c.md", "md", "2026-01-02T00:00:00Z"),
		pending("a-pdf", "Scan", "scans/d.pdf", "pdf", "2026-01-01T00:00:00Z"),
		pending("no-type", "Thing", "e", "", "2026-01-01T00:00:00Z"),
	}
	needs := func(a Answer) []string { return refs(a.Needs) }

	t.Run("keywords: a match on what the listing says decides; no match waits for the read", func(t *testing.T) {
		a := Organized(docs, protocol.FinderQuery{Keywords: []string{"revenue"}, Limit: 10}, nil)
		if got := refs(a.Page); !slices.Equal(got, []string{"read", "by-title", "by-path"}) || a.Total != 3 {
			t.Errorf("page %v total %d", got, a.Total)
		}
		// unknown, a-pdf and no-type may have "revenue" among their
		// keywords; by-title and by-path are on the page unread.
		if got := needs(a); !slices.Equal(sorted(got), []string{"a-pdf", "by-path", "by-title", "no-type", "unknown"}) {
			t.Errorf("needs %v", got)
		}
	})
	t.Run("a file type from the listing decides", func(t *testing.T) {
		a := Organized(docs, protocol.FinderQuery{FileType: "pdf", Limit: 10}, nil)
		if got := refs(a.Page); !slices.Equal(got, []string{"a-pdf"}) || a.Total != 1 {
			t.Errorf("page %v total %d", got, a.Total)
		}
		// no-type's listing gave no file type: only its read can tell.
		if got := needs(a); !slices.Equal(sorted(got), []string{"a-pdf", "no-type"}) {
			t.Errorf("needs %v", got)
		}
	})
	t.Run("unfiltered: only the provisional entries of the page", func(t *testing.T) {
		a := Organized(docs, protocol.FinderQuery{Limit: 2}, nil)
		if got := refs(a.Page); !slices.Equal(got, []string{"read", "by-title"}) || a.Total != 6 {
			t.Errorf("page %v total %d", got, a.Total)
		}
		if got := needs(a); !slices.Equal(got, []string{"by-title"}) {
			t.Errorf("needs %v", got)
		}
	})
	t.Run("a sort by pages needs every provisional match", func(t *testing.T) {
		a := Organized(docs, protocol.FinderQuery{Sort: "-pages", Limit: 1}, nil)
		if len(a.Needs) != 5 {
			t.Errorf("needs %v", needs(a))
		}
	})
	t.Run("settled catalog: nothing needed, as Organize", func(t *testing.T) {
		a := Organized([]protocol.DPEDocumentSummary{read}, protocol.FinderQuery{Keywords: []string{"nothing"}, Limit: 5}, nil)
		if len(a.Page) != 0 || a.Total != 0 || len(a.Needs) != 0 {
			t.Errorf("answer %+v", a)
		}
	})
	t.Run("file_types counts only what is decided", func(t *testing.T) {
		got := FileTypes(docs, protocol.FinderQuery{Keywords: []string{"revenue"}})
		if len(got) != 1 || got["md"] != 3 {
			t.Errorf("file types %v", got)
		}
	})
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
