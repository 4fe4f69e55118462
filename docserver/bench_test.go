package docserver

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// benchFolder writes n small Markdown files in 20 directories.
func benchFolder(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	for i := 0; i < n; i++ {
		writeFile(b, filepath.Join(dir, fmt.Sprintf("dir%02d", i%20), fmt.Sprintf("doc-%04d.md", i)),
			fmt.Sprintf("# Document %d\n\nThe first paragraph of document %d. It has two sentences.\n\n## Part\n\n- a\n- b\n", i, i))
	}
	return dir
}

// BenchmarkColdList measures a cold resources/list of 2,000 files: New
// (the stat walk) plus paging through every resource with an in-process
// client, so every file is peeked once and none is parsed.
func BenchmarkColdList(b *testing.B) {
	dir := benchFolder(b, 2000)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		s, err := New(dir, Options{Host: testHost})
		if err != nil {
			b.Fatal(err)
		}
		c := client.NewClient(s.InProcessTransport())
		if err := c.Start(ctx); err != nil {
			b.Fatal(err)
		}
		init := mcp.InitializeRequest{}
		init.Params.ProtocolVersion = "2025-06-18"
		if _, err := c.Initialize(ctx, init); err != nil {
			b.Fatal(err)
		}
		n := 0
		var cursor mcp.Cursor
		for {
			req := mcp.ListResourcesRequest{}
			req.Params.Cursor = cursor
			res, err := c.ListResourcesByPage(ctx, req)
			if err != nil {
				b.Fatal(err)
			}
			n += len(res.Resources)
			if cursor = res.NextCursor; cursor == "" {
				break
			}
		}
		if n != 2000 {
			b.Fatalf("listed %d", n)
		}
		c.Close()
		s.Close()
	}
}

// BenchmarkReadTablePage measures a Level 2 read of a 200-row CSV page
// (cached document) in JSON and in Markdown.
func BenchmarkReadTablePage(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	sb.WriteString("id,name,region,amount,note\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&sb, "%d,Customer %d,Region %d,%d.50,\"note, with comma %d\"\n", i, i, i%5, i*10, i)
	}
	writeFile(b, filepath.Join(dir, "t.csv"), sb.String())
	s, err := New(dir, Options{Host: testHost})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c, _ := connect(b, s.InProcessTransport())
	uri := "dpe://" + testHost + "/" + DocRef("t.csv") + "/pages/0"
	for _, format := range []string{"json", "markdown"} {
		b.Run(format, func(b *testing.B) {
			req := mcp.ReadResourceRequest{}
			req.Params.URI = uri + "?format=" + format
			b.ReportAllocs()
			for b.Loop() {
				res, err := c.ReadResource(context.Background(), req)
				if err != nil || len(res.Contents) != 1 {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseCorpus measures a full parse of each corpus format.
func BenchmarkParseCorpus(b *testing.B) {
	dir := copyCorpus(b)
	s, err := New(dir, Options{Host: testHost})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, e := range s.index.snapshot() {
		b.Run(e.rel, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.parse(e.fileInfo); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadTablePageHandler measures the server's own work for the
// same read (the resource handler, without MCP framing and client
// decoding).
func BenchmarkReadTablePageHandler(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	sb.WriteString("id,name,region,amount,note\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&sb, "%d,Customer %d,Region %d,%d.50,\"note, with comma %d\"\n", i, i, i%5, i*10, i)
	}
	writeFile(b, filepath.Join(dir, "t.csv"), sb.String())
	s, err := New(dir, Options{Host: testHost})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	uri := "dpe://" + testHost + "/" + DocRef("t.csv") + "/pages/0"
	for _, format := range []string{"json", "markdown"} {
		b.Run(format, func(b *testing.B) {
			req := mcp.ReadResourceRequest{}
			req.Params.URI = uri + "?format=" + format
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.readResource(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
